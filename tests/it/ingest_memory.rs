//! A huge transcript is read a chunk at a time: ingesting 600 MB of lines (one of them over the
//! 64 MiB line cap) keeps the process's peak memory far below the file's size, and the offset
//! stored stops before an unfinished last line, so the next run reads just what follows it.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::json;

use crate::support::TestWorkspace;

const SIZE: u64 = 600 << 20;
/// Below the file's own size: the file is never held whole (652 MB peak measured when it was).
/// What stays is a 64 MiB line carried between chunks, the parse's output and the allocator's
/// arenas, which vary with the machine's load (measured 142 to 408 MB from run to run).
const PEAK_LIMIT: u64 = 560 << 20;

/// One turn of a Claude Code session whose tool printed `output`.
fn turn(i: usize, output: &str) -> String {
    let at = |k: usize| {
        format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            (i / 900) % 24,
            (i / 15) % 60,
            (i * 4 + k) % 60
        )
    };
    let base = json!({"isSidechain": false, "sessionId": "huge-1", "cwd": "/w"});
    let with = |mut extra: serde_json::Value, k: usize| {
        for (key, value) in base.as_object().unwrap() {
            extra[key] = value.clone();
        }
        extra["uuid"] = json!(format!("u{i}-{k}"));
        extra["timestamp"] = json!(at(k));
        format!("{extra}\n")
    };
    [
        with(json!({"type": "user", "message": {"role": "user", "content": format!("build part {}", i % 40)}}), 0),
        with(json!({"type": "assistant", "message": {"id": format!("m{i}"), "role": "assistant", "type": "message",
            "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": "make build"}}],
            "stop_reason": "tool_use"}}), 1),
        with(json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": output}]}}), 2),
        with(json!({"type": "assistant", "message": {"id": format!("n{i}"), "role": "assistant", "type": "message",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}}), 3),
    ]
    .concat()
}

/// Runs the binary and returns its parsed `--json` output and its peak resident memory in bytes
/// (`wait4`'s `ru_maxrss`).
#[expect(clippy::zombie_processes, reason = "reaped by wait4, which also reports its peak memory")]
fn run_measured(tw: &TestWorkspace, args: &[&str]) -> (serde_json::Value, u64) {
    let out_path = tw.root().join("out.json");
    let child = tw
        .cmd()
        .args(args)
        .arg("--json")
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not yet waited for; both pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4: {}", std::io::Error::last_os_error());
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?}: {status}\n{text}"
    );
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (json, usage.ru_maxrss as u64 * 1024)
}

fn write_huge(path: &Path) -> (u64, usize, String) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let output = "line of build output with some words in it 0123456789\n".repeat(3700);
    let (mut size, mut turns) = (0u64, 0usize);
    while size < SIZE {
        if turns == 100 {
            // A line over the cap, in the middle: reported and skipped, never held.
            let huge = format!(
                "{}\n",
                json!({"type": "user", "sessionId": "huge-1", "message": {"role": "user", "content": "x".repeat(65 << 20)}})
            );
            file.write_all(huge.as_bytes()).unwrap();
            size += huge.len() as u64;
        }
        let text = turn(turns, &output);
        file.write_all(text.as_bytes()).unwrap();
        size += text.len() as u64;
        turns += 1;
    }
    // An unfinished last line: the stored offset stops before it.
    let partial =
        r#"{"type":"user","sessionId":"huge-1","message":{"role":"user","con"#.to_string();
    file.write_all(partial.as_bytes()).unwrap();
    file.flush().unwrap();
    (size, turns, partial)
}

#[test]
fn a_600_mb_transcript_is_read_in_bounded_memory_and_resumes_at_the_same_byte() {
    let tw = TestWorkspace::new();
    let dir = tw.root().join("projects/huge");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.jsonl");
    let (complete, turns, partial) = write_huge(&path);
    let dir_arg = dir.to_str().unwrap();
    let (r, peak) = run_measured(&tw, &["ingest", "--no-detect", dir_arg]);
    eprintln!(
        "ingest of {} MB: peak resident {} MB",
        (complete + partial.len() as u64) >> 20,
        peak >> 20
    );
    assert!(
        peak < PEAK_LIMIT,
        "peak resident memory {} MB for a {} MB file",
        peak >> 20,
        complete >> 20
    );
    assert_eq!(r["bytes_read"], complete + partial.len() as u64, "{r:#}");
    assert_eq!(r["turns"], turns, "{r:#}");
    assert_eq!(r["tool_calls"], turns, "{r:#}");
    let problems = r["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["line"] == 401
            && p["reason"].as_str().unwrap().contains("over the 64 MiB line cap: skipped")),
        "{r:#}"
    );
    assert_eq!(r["bad_lines"], 1, "{r:#}");

    // The unfinished line, completed: the next run starts at its first byte.
    let rest = r#"tent":"and one more"}}"#.to_string() + "\n";
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(rest.as_bytes())
        .unwrap();
    let again = tw.run_json(&["ingest", "--no-detect", dir_arg]);
    assert_eq!(again["bytes_read"], (partial.len() + rest.len()) as u64, "{again:#}");
    assert_eq!(again["lines"], 1, "{again:#}");
    assert_eq!(again["bad_lines"], 0, "{again:#}");
    drop(std::fs::remove_file(&path));
}
