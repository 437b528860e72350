//! Detection throughput on a synthetic history: `cargo bench --bench detect`.
//!
//! The same history shape at N, 2N and 4N turns, each on a fresh database. Baseline, measured in
//! the same run on the same database: reading every pending turn and its tool calls once through
//! the reads detection itself uses, with no analysis and no writes. Its ratio says what detection
//! (signatures, streaks, sequence hashing, sightings, candidates, staged drafts) costs on top;
//! the per-turn cost at 2N and 4N over N says whether it grows linearly.

use std::time::Instant;

use rusqlite::params;
use skilldeck::config::Config;
use skilldeck::ingest;
use skilldeck::text::signature::task_signature;

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
            let prompt = format!("{} #{}", PROMPTS[next() % PROMPTS.len()], next() % 3);
            let outcome = if next() % 5 == 0 { "failure" } else { "success" };
            let at = format!("2026-11-01T{:02}:{:02}:{:02}Z", s / 60 % 24, s % 60, t);
            // As ingest stores a complete turn: its signature with it, and a row in the queue
            // detection reads (`pending_turns`).
            tx.execute(
                "INSERT INTO turns (session_id, agent_id, file_path, user_input, signature, outcome,
                    ended_at, complete)
                 VALUES (?1, 'default', 'bench.jsonl', ?2, ?3, ?4, ?5, 1)",
                params![session, prompt, task_signature(&prompt), outcome, at],
            )
            .unwrap();
            let turn = tx.last_insert_rowid();
            tx.execute(
                "INSERT INTO pending_turns (turn_id, ended_at) VALUES (?1, ?2)",
                params![turn, at],
            )
            .unwrap();
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

/// Reads every pending turn and its tool calls once, in detection's batches, through the reads
/// detection uses (`ingest::pending_turns_from`, `ingest::tool_calls_of`).
fn baseline(ws: &Workspace) -> usize {
    const BATCH: usize = 500;
    let conn = ws.store.conn();
    let mut total = 0;
    let mut skip = 0;
    loop {
        let turns = ingest::pending_turns_from(conn, skip, BATCH).unwrap();
        if turns.is_empty() {
            return total;
        }
        let ids: Vec<i64> = turns.iter().map(|t| t.id).collect();
        let calls = ingest::tool_calls_of(conn, &ids).unwrap();
        total += turns.iter().map(|t| t.user_input.len()).sum::<usize>();
        total += calls.values().map(Vec::len).sum::<usize>();
        skip += turns.len();
    }
}

fn main() {
    // Detection should scale linearly in turns: the same history shape at N, 2N and 4N turns.
    // `DETECT_BENCH_TURNS=2000` measures another N (quicker while iterating).
    let base: usize = std::env::var("DETECT_BENCH_TURNS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n| n >= TURNS_PER_SESSION)
        .unwrap_or(10_000);
    let runs: Vec<Run> = [1, 2, 4].iter().map(|k| measure(k * base / TURNS_PER_SESSION)).collect();
    let first = &runs[0];
    for (k, run) in [2, 4].iter().zip(&runs[1..]) {
        println!(
            "at {k}N ({} turns) over N ({} turns): per-turn cost {:.2} by wall, {:.2} by CPU \
             (1.0 = linear); detection over the bare read {:.2} by wall, {:.2} by CPU",
            run.turns,
            first.turns,
            run.per_turn() / first.per_turn(),
            run.per_turn_cpu() / first.per_turn_cpu(),
            run.over_base() / first.over_base(),
            run.over_base_cpu() / first.over_base_cpu()
        );
    }
}

/// One size's figures, in seconds.
struct Run {
    turns: usize,
    base: f64,
    base_cpu: f64,
    full: f64,
    full_cpu: f64,
}

impl Run {
    fn per_turn(&self) -> f64 {
        self.full / self.turns as f64
    }
    fn per_turn_cpu(&self) -> f64 {
        self.full_cpu / self.turns as f64
    }
    fn over_base(&self) -> f64 {
        self.full / self.base
    }
    fn over_base_cpu(&self) -> f64 {
        self.full_cpu / self.base_cpu
    }
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

/// Runs detection on `sessions` sessions.
fn measure(sessions: usize) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path())).unwrap();
    let turns = populate(&mut ws, sessions);
    // A history detection would not read measures nothing: fail loudly instead.
    assert_eq!(ingest::pending_turn_ids(ws.store.conn(), usize::MAX).unwrap().len(), turns);
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
    Run { turns, base: base.as_secs_f64(), base_cpu, full: full.as_secs_f64(), full_cpu }
}
