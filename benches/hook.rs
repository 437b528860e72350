//! `skilldeck ingest --hook` on one 10 MB Claude Code session (target: under 200 ms), beside
//! baselines measured in the same run: the plain `skilldeck ingest FILE` of the same file (what the
//! hook saves nothing over) and its reading alone (`--no-detect`), and the process start floor
//! (`skilldeck --version`).
//!
//! The session is built from the real sessions in ../shared/data (one file, the real lines
//! replicated with fresh ids per copy, as ../shared/tools/make-bench-corpus does for trees).
//! Measured: a `SessionEnd` into a fresh database (the whole file is new: the worst case), and a
//! `Stop` after one more copy of a turn was appended to an already ingested file (the usual case).
//! `SKILLDECK_BENCH_BEFORE` (another `skilldeck` binary, say a release build of the commit before
//! a change) adds its hook runs to the same rounds, on its own copy of the session.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 7;
const TARGET_BYTES: usize = 10 << 20;

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/transcripts/handgemacht-ai__claude-code-log/real_projects");
    if !src.is_dir() {
        eprintln!("SKIP: {} is absent", src.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("projects/-bench/0b5e55ed-0000-4000-8000-000000000000.jsonl");
    let tail = build_session(&src, &session);
    let mb = std::fs::metadata(&session).unwrap().len() as f64 / 1_048_576.0;
    println!("session: {} ({mb:.1} MB, one file)", session.display());

    let mut floor = Vec::new();
    let mut plain = Vec::new();
    let mut no_detect = Vec::new();
    let mut hook_end = Vec::new();
    let mut hook_stop = Vec::new();
    let before = std::env::var_os("SKILLDECK_BENCH_BEFORE").map(PathBuf::from);
    let before_session =
        dir.path().join("before/projects/-bench/0b5e55ed-0000-4000-8000-000000000000.jsonl");
    if before.is_some() {
        std::fs::create_dir_all(before_session.parent().unwrap()).unwrap();
        std::fs::copy(&session, &before_session).unwrap();
    }
    let (mut before_end, mut before_stop) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if let Some(bin) = &before {
            let db = dir.path().join(format!("before/hook-{round}/skilldeck.db"));
            let end = payload(&before_session, "SessionEnd");
            before_end
                .push(timed(|| run_bin(bin, &db_args(&db, &["ingest", "--hook"]), Some(&end))));
            append(&before_session, &tail, round);
            let stop = payload(&before_session, "Stop");
            before_stop
                .push(timed(|| run_bin(bin, &db_args(&db, &["ingest", "--hook"]), Some(&stop))));
        }
        floor.push(timed(|| run(&["--version"], None)));
        let db = dir.path().join(format!("plain-{round}/skilldeck.db"));
        plain.push(timed(|| run(&db_args(&db, &["ingest", session.to_str().unwrap()]), None)));
        let db = dir.path().join(format!("read-{round}/skilldeck.db"));
        let read_only = ["ingest", "--no-detect", session.to_str().unwrap()];
        no_detect.push(timed(|| run(&db_args(&db, &read_only), None)));
        let db = dir.path().join(format!("hook-{round}/skilldeck.db"));
        let end = payload(&session, "SessionEnd");
        hook_end.push(timed(|| run(&db_args(&db, &["ingest", "--hook"]), Some(&end))));
        // One more turn's lines appended, then the Stop hook of that turn.
        append(&session, &tail, round);
        let stop = payload(&session, "Stop");
        hook_stop.push(timed(|| run(&db_args(&db, &["ingest", "--hook"]), Some(&stop))));
    }
    report("process start floor (skilldeck --version)", &floor);
    report("plain `ingest FILE` (fresh database)", &plain);
    report("plain `ingest --no-detect FILE` (reading alone)", &no_detect);
    report("`ingest --hook` SessionEnd (fresh database)", &hook_end);
    report("`ingest --hook` Stop after one appended turn", &hook_stop);
    let ratio = median(&hook_end).as_secs_f64() / median(&plain).as_secs_f64();
    println!("hook / plain ingest of the same file: {ratio:.2}");
    if !before_end.is_empty() {
        report("before: `ingest --hook` SessionEnd", &before_end);
        report("before: `ingest --hook` Stop after an appended turn", &before_stop);
        let end = median(&hook_end).as_secs_f64() / median(&before_end).as_secs_f64();
        let stop = median(&hook_stop).as_secs_f64() / median(&before_stop).as_secs_f64();
        println!("this build / before: SessionEnd {end:.2}, Stop {stop:.2}");
    }
}

fn db_args<'a>(db: &'a Path, rest: &[&'a str]) -> Vec<&'a str> {
    let root = db.parent().unwrap();
    std::fs::create_dir_all(root).unwrap();
    let mut args = vec!["--db", db.to_str().unwrap()];
    let skills =
        Box::leak(root.join("skills").into_os_string().into_string().unwrap().into_boxed_str());
    // No throttle, so the Stop after an appended turn is measured doing its work.
    // The session's folder is a transcript root: a hook reads transcripts only under one.
    let projects = root.parent().unwrap().join("projects");
    let config = format!(
        "[hooks]\nstop_throttle_secs = 0\n[[transcripts]]\npath = \"{}\"\n",
        projects.display()
    );
    std::fs::write(root.join("config.toml"), config).unwrap();
    let config = Box::leak(
        root.join("config.toml").into_os_string().into_string().unwrap().into_boxed_str(),
    );
    args.extend(["--skills-dir", skills, "--config", config]);
    args.extend_from_slice(rest);
    args
}

fn payload(session: &Path, event: &str) -> String {
    serde_json::json!({
        "session_id": "0b5e55ed-0000-4000-8000-000000000000",
        "transcript_path": session,
        "cwd": "/bench",
        "hook_event_name": event,
    })
    .to_string()
}

fn run(args: &[&str], stdin: Option<&str>) {
    run_bin(Path::new(env!("CARGO_BIN_EXE_skilldeck")), args, stdin)
}

fn run_bin(bin: &Path, args: &[&str], stdin: Option<&str>) {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    t[t.len() / 2]
}

fn report(label: &str, times: &[Duration]) {
    let best = times.iter().min().unwrap();
    println!(
        "{label:<48} median {:>7.1} ms  best {:>7.1} ms",
        median(times).as_secs_f64() * 1e3,
        best.as_secs_f64() * 1e3
    );
}

/// Writes one session file of about 10 MB from the real main-session files, every copy's ids made
/// unique; returns the lines of one turn to append later.
fn build_session(src: &Path, out: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(src).unwrap().flatten() {
        for file in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
            let p: PathBuf = file.path();
            if p.extension().is_some_and(|e| e == "jsonl") && p.is_file() {
                let text = std::fs::read_to_string(&p).unwrap();
                lines.extend(text.lines().map(str::to_string));
            }
        }
    }
    lines.sort(); // deterministic order whatever read_dir gives
    let ids = regex::Regex::new(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}([0-9a-f]{8})|((?:toolu_|msg_|req_|call_)[A-Za-z0-9]+)").unwrap();
    let session_id = regex::Regex::new(r#""sessionId":"[^"]*""#).unwrap();
    let mut body = String::new();
    let mut copy = 0u32;
    while body.len() < TARGET_BYTES {
        for line in &lines {
            body.push_str(&fresh(&ids, &session_id, line, copy));
            body.push('\n');
        }
        copy += 1;
    }
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(out, body).unwrap();
    lines
        .iter()
        .filter(|l| l.contains("\"type\":\"user\""))
        .take(1)
        .chain(lines.iter().filter(|l| l.contains("\"type\":\"assistant\"")).take(4))
        .cloned()
        .collect()
}

fn fresh(ids: &regex::Regex, session_id: &regex::Regex, line: &str, copy: u32) -> String {
    let line = ids.replace_all(line, |c: &regex::Captures| match (c.get(1), c.get(2), c.get(3)) {
        (Some(a), Some(b), _) => format!("{}{copy:04x}{}", a.as_str(), b.as_str()),
        (_, _, Some(t)) => format!("{}k{copy:04x}", t.as_str()),
        _ => c[0].to_string(),
    });
    session_id
        .replace_all(&line, "\"sessionId\":\"0b5e55ed-0000-4000-8000-000000000000\"")
        .into_owned()
}

fn append(session: &Path, tail: &[String], round: usize) {
    let ids = regex::Regex::new(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}([0-9a-f]{8})|((?:toolu_|msg_|req_|call_)[A-Za-z0-9]+)").unwrap();
    let session_id = regex::Regex::new(r#""sessionId":"[^"]*""#).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(session).unwrap();
    for line in tail {
        writeln!(f, "{}", fresh(&ids, &session_id, line, 0xf000 + round as u32)).unwrap();
    }
}
