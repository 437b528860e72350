//! Hostile files in the folders skilldeck reads: a SKILL.md whose frontmatter is an alias bomb.

use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use crate::support::{TestWorkspace, describe};

/// Anchors nested ten deep, each level ten aliases of the one below (10^10 nodes expanded), in
/// a 1 KB SKILL.md; and a merge-key (`<<:`) variant.
fn bombs() -> Vec<String> {
    let mut nested = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        nested += &format!("a{i}: &a{i} [{}]\n", [prev.as_str(); 10].join(", "));
    }
    let mut merge = String::from("m0: &m0 {k: [v, v, v, v, v, v, v, v, v, v]}\n");
    for i in 1..10 {
        let p = format!("*m{}", i - 1);
        merge += &format!("m{i}: &m{i} {{<<: {p}, l: [{}]}}\n", [p.as_str(); 10].join(", "));
    }
    [nested, merge]
        .into_iter()
        .map(|y| {
            format!("---\nname: bomb\ndescription: Tidy. Use when asked to tidy.\n{y}---\nbody\n")
        })
        .collect()
}

#[test]
fn alias_bombs_under_the_skills_folder_are_bounded_for_every_reader() {
    for (i, bomb) in bombs().into_iter().enumerate() {
        assert!(bomb.len() < 1500, "{}", bomb.len());
        let ws = TestWorkspace::new();
        ws.live_skill("tidy");
        for dir in ["bomb", "nested/deeper/bomb"] {
            let folder = ws.skills_dir().join(dir);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("SKILL.md"), &bomb).unwrap();
        }
        for args in [&["sweep"][..], &["audit"], &["suggest", "tidy"], &["overlaps"], &["validate"]]
        {
            let mut cmd = ws.cmd();
            cmd.args(args);
            // 2 GB of address space: the unbounded loader needs tens of GB and aborts.
            unsafe {
                cmd.pre_exec(|| {
                    let lim = libc::rlimit { rlim_cur: 2 << 30, rlim_max: 2 << 30 };
                    libc::setrlimit(libc::RLIMIT_AS, &lim);
                    Ok(())
                });
            }
            let start = Instant::now();
            let out = cmd.output().expect("run skilldeck");
            let took = start.elapsed();
            assert!(
                out.status.code().is_some(),
                "bomb {i}: {args:?} was killed by a signal:\n{}",
                describe(&out)
            );
            assert!(took < Duration::from_secs(20), "bomb {i}: {args:?} took {took:?}");
            if args != ["validate"] {
                assert!(out.status.success(), "bomb {i}: {args:?}:\n{}", describe(&out));
            }
        }
    }
}

/// A transcript line past the line cap (64 MiB) is skipped with a clear problem, the lines around
/// it are read, and the next run does not read it again.
#[test]
fn a_huge_line_is_skipped_once_and_said() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("tx");
    std::fs::create_dir_all(&dir).unwrap();
    let session = crate::learn::session(
        "big-1",
        "2026-03-01T10:00:00Z",
        "check the app",
        &["npm ci", "npm test", "npm run lint"],
    );
    let huge = format!(
        "{{\"type\":\"user\",\"sessionId\":\"big-1\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
        "x".repeat(65 << 20)
    );
    let (first, rest) = session.split_once('\n').unwrap();
    std::fs::write(dir.join("big.jsonl"), format!("{first}\n{huge}{rest}")).unwrap();
    let r = ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    let problems = r["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["line"] == 2
            && p["reason"].as_str().unwrap().contains("over the 64 MiB line cap: skipped")),
        "{r:#}"
    );
    assert_eq!(r["tool_calls"], 3, "{r:#}");
    let again = ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    assert_eq!(again["bytes_read"], 0, "{again:#}");
}

/// A skills folder that is a file is an error naming it, not an empty workspace.
#[test]
fn a_skills_dir_that_is_a_file_is_an_error() {
    let ws = TestWorkspace::new();
    std::fs::write(ws.skills_dir(), "not a folder").unwrap();
    for args in [&["audit"][..], &["sweep"], &["candidates"]] {
        let out = ws.run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} exited 0:\n{}", describe(&out));
        assert!(err.contains("is a file, not a folder"), "{args:?}: {err}");
    }
}

/// `validate` reports an over-cap SKILL.md as that folder's error and checks the others.
#[test]
fn validate_goes_on_past_an_over_cap_skill_md() {
    let ws = TestWorkspace::new();
    for name in ["a-big", "b-fine"] {
        std::fs::create_dir_all(ws.skills_dir().join(name)).unwrap();
    }
    let big = format!("---\nname: a-big\ndescription: d\n---\n{}", "x".repeat(2 << 20));
    std::fs::write(ws.skills_dir().join("a-big/SKILL.md"), big).unwrap();
    std::fs::write(ws.skills_dir().join("b-fine/SKILL.md"), "---\nname: b-fine\n---\nbody\n")
        .unwrap();
    let out = ws.run(&["validate", ws.skills_dir().to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a-big") && text.contains("cap for SKILL.md"), "{}", describe(&out));
    assert!(
        text.contains("b-fine") && text.contains("description"),
        "b-fine was not checked:\n{text}"
    );
    assert!(text.contains("2 folder(s) checked"), "{text}");
}

/// A binary file named `.jsonl` is one clear problem, not a bad line per newline byte.
#[test]
fn a_binary_jsonl_is_not_text_and_skipped() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("tx");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    bytes[10] = 0;
    std::fs::write(dir.join("blob.jsonl"), bytes).unwrap();
    let r = ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    assert_eq!(r["bad_lines"], 0, "{r:#}");
    let problems = r["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["reason"].as_str().unwrap().contains("not text")), "{r:#}");
}

/// Invalid UTF-8 in a prompt or a command is kept (the bad bytes read as `?`) and said.
#[test]
fn invalid_utf8_is_kept_lossily_and_said() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("tx");
    std::fs::create_dir_all(&dir).unwrap();
    let session = crate::learn::session(
        "utf-1",
        "2026-03-01T10:00:00Z",
        "check the caf\u{e9} app",
        &["npm ci", "grep caf\u{e9} menu.txt", "npm test"],
    );
    let mut bytes = session.into_bytes();
    // `é` (C3 A9) becomes the Latin-1 byte E9 in the prompt and in the command.
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(&[0xc3, 0xa9]) {
            out.push(0xe9);
            i += 2;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    bytes = out;
    std::fs::write(dir.join("utf.jsonl"), bytes).unwrap();
    let r = ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    assert_eq!(r["bad_lines"], 0, "{r:#}");
    assert_eq!(r["tool_calls"], 3, "a command was dropped: {r:#}");
    let problems = r["problems"].as_array().unwrap();
    let said =
        problems.iter().filter(|p| p["reason"].as_str().unwrap().contains("invalid UTF-8")).count();
    assert!(said >= 2, "{r:#}");
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let prompt: String =
        db.query_row("SELECT user_input FROM turns ORDER BY id LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(prompt, "check the caf? app");
}
