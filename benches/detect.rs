//! Detection throughput on a synthetic history: `cargo bench --bench detect`.
//!
//! Baseline, measured in the same run on an identical copy of the database: reading every pending
//! turn and its tool calls once, with no analysis and no writes. The ratio says what detection
//! (signatures, streaks, sequence hashing, sightings, candidates, staged drafts) costs on top.

use std::time::Instant;

use rusqlite::params;
use skilldeck::config::Config;

use skilldeck::workspace::{Paths, Workspace};

const TURNS_PER_SESSION: usize = 25;

/// Step keys the Bash calls carry (as ingest stores them): a mix of generic and specific work,
/// so workflow mining aligns and indexes real sequences.
const COMMANDS: [&str; 16] = [
    "sh:cargo test",
    "sh:git commit",
    "sh:git status",
    "sh:ls",
    "sh:cargo build",
    "sh:npm test",
    "sh:git push",
    "sh:gh pr create",
    "sh:tk close",
    "sh:tk show",
    "sh:git tag",
    "sh:cargo publish",
    "sh:make test",
    "sh:docker compose up",
    "sh:ruff check",
    "file:Edit:CHANGELOG.md",
];

const TOOLS: [(&str, &str); 6] = [
    ("Read", r#"{"file_path":"string"}"#),
    ("Grep", r#"{"path":"string","pattern":"string"}"#),
    ("Edit", r#"{"file_path":"string","new_string":"string","old_string":"string"}"#),
    ("Bash", r#"{"command":"string","description":"string"}"#),
    ("Write", r#"{"content":"string","file_path":"string"}"#),
    ("TodoWrite", r#"{"todos":"array"}"#),
];
const PROMPTS: [&str; 8] = [
    "refactor the parser module",
    "fix the failing integration test",
    "please update the changelog for the release",
    "add a command line flag for verbose output",
    "why does the build fail on CI",
    "rename the config loader and its tests",
    "write documentation for the storage layer",
    "bump dependencies and run the test suite",
];

fn populate(ws: &mut Workspace, sessions: usize) -> usize {
    let tx = ws.store.conn_mut().transaction().unwrap();
    let mut turns = 0;
    let mut seed: u64 = 7;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for s in 0..sessions {
        tx.execute(
            "INSERT INTO sessions (agent_id, session_key, source) VALUES ('default', ?1, 'native')",
            [format!("session-{s}")],
        )
        .unwrap();
        let session = tx.last_insert_rowid();
        for t in 0..TURNS_PER_SESSION {
            let prompt = PROMPTS[next() % PROMPTS.len()];
            let outcome = if next() % 5 == 0 { "failure" } else { "success" };
            let at = format!("2026-11-01T{:02}:{:02}:{:02}Z", s / 60 % 24, s % 60, t);
            tx.execute(
                "INSERT INTO turns (session_id, agent_id, file_path, user_input, outcome, ended_at, complete)
                 VALUES (?1, 'default', 'bench.jsonl', ?2, ?3, ?4, 1)",
                params![session, format!("{prompt} #{}", next() % 3), outcome, at],
            )
            .unwrap();
            let turn = tx.last_insert_rowid();
            let calls = 2 + next() % 8;
            for ordinal in 0..calls {
                let (name, shape) = TOOLS[next() % TOOLS.len()];
                let step = match name {
                    "Bash" => COMMANDS[next() % COMMANDS.len()].to_string(),
                    "Edit" | "Write" => "file:Edit:*.rs".to_string(),
                    "Read" => "file:Read:*.rs".to_string(),
                    other => format!("tool:{other}"),
                };
                tx.execute(
                    "INSERT INTO tool_calls (turn_id, ordinal, name, input_shape, is_error, step,
                        detail)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        turn,
                        ordinal as i64,
                        name,
                        shape,
                        (next() % 20 == 0) as i64,
                        step,
                        format!("{} {}", step.trim_start_matches("sh:"), next() % 1000)
                    ],
                )
                .unwrap();
            }
            turns += 1;
        }
    }
    tx.commit().unwrap();
    turns
}

fn baseline(ws: &Workspace) -> usize {
    let conn = ws.store.conn();
    let mut turns = conn
        .prepare(
            "SELECT t.id, t.user_input, t.outcome, s.session_key FROM turns t
             JOIN sessions s ON s.id = t.session_id
             WHERE t.complete = 1 AND t.detected = 0 ORDER BY t.ended_at, t.id",
        )
        .unwrap();
    let mut calls = conn
        .prepare("SELECT name, input_shape, is_error FROM tool_calls WHERE turn_id = ?1 ORDER BY ordinal")
        .unwrap();
    let ids: Vec<(i64, String)> =
        turns.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
    let mut total = 0;
    for (id, input) in &ids {
        total += input.len();
        let rows: Vec<(String, String, bool)> = calls
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        total += rows.len();
    }
    total
}

fn main() {
    // Detection should scale linearly in turns: the same history shape at 10k and 100k turns.
    // `DETECT_BENCH_TURNS=2000,20000` measures other sizes (quicker while iterating).
    let sizes: Vec<usize> = std::env::var("DETECT_BENCH_TURNS")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| v.len() == 2)
        .unwrap_or_else(|| vec![10_000, 100_000]);
    let mut per_turn = Vec::new();
    for &turns in &sizes {
        per_turn.push(measure(turns / TURNS_PER_SESSION));
    }
    println!(
        "per-turn cost at {} / at {}: {:.2} by wall, {:.2} by CPU time (1.0 = linear)",
        sizes[1],
        sizes[0],
        per_turn[1].0 / per_turn[0].0,
        per_turn[1].1 / per_turn[0].1
    );
}

/// CPU time (user + system) of this process so far: on a shared machine, what the neighbours'
/// load changes least.
fn cpu() -> f64 {
    // SAFETY: a zeroed rusage is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Runs detection on `sessions` sessions; returns seconds per turn, by wall and by CPU time.
fn measure(sessions: usize) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path())).unwrap();
    let turns = populate(&mut ws, sessions);
    if let Some(kib) =
        std::env::var("DETECT_BENCH_CACHE_KIB").ok().and_then(|k| k.parse::<i64>().ok())
    {
        ws.store.conn().pragma_update(None, "cache_size", -kib).unwrap();
    }

    let (start, cpu_start) = (Instant::now(), cpu());
    std::hint::black_box(baseline(&ws));
    let (base, base_cpu) = (start.elapsed(), cpu() - cpu_start);

    let (start, cpu_start) = (Instant::now(), cpu());
    let report = skilldeck::pipeline::detect(&mut ws).unwrap();
    let (full, full_cpu) = (start.elapsed(), cpu() - cpu_start);
    assert_eq!(report.detected.turns_processed as usize, turns);

    let start = Instant::now();
    let again = skilldeck::pipeline::detect(&mut ws).unwrap();
    let idle = start.elapsed();
    assert_eq!(again.detected.turns_processed, 0);

    println!("turns: {turns} in {sessions} sessions");
    println!(
        "baseline read: {:>8.1} ms ({:.0} turns/s)",
        base.as_secs_f64() * 1e3,
        turns as f64 / base.as_secs_f64()
    );
    println!(
        "detect::run:   {:>8.1} ms ({:.0} turns/s), {:.1}x the baseline read; CPU {:.1} ms, {:.1}x",
        full.as_secs_f64() * 1e3,
        turns as f64 / full.as_secs_f64(),
        full.as_secs_f64() / base.as_secs_f64(),
        full_cpu * 1e3,
        full_cpu / base_cpu
    );
    println!("idle re-run:   {:>8.1} ms", idle.as_secs_f64() * 1e3);
    println!(
        "candidates created: {}, evidence only: {}, workflow turns: {}, sequences seen: {}",
        report.detected.candidates_created,
        report.detected.evidence_only,
        report.detected.workflow_turns,
        report.detected.sequences_seen
    );
    if std::env::var_os("DETECT_BENCH_KEEP").is_some() {
        println!("database kept in {}", dir.keep().display());
    }
    (full.as_secs_f64() / turns as f64, full_cpu / turns as f64)
}
