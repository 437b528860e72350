//! Full ingest (parse, extract, store) of a ≥ 300 MB Claude Code corpus, beside two baselines
//! measured in the same run: the floor of parsing every line with serde_json into `IgnoredAny`
//! on one core, and ccusage (`ccusage daily --json --offline`), the tool Claude Code users run.
//!
//! Env: `SKILLDECK_BENCH_CORPUS` (default `/tmp/skilldeck-bench-corpus`; transcripts under its
//! `projects/`, generated with `../shared/tools/make-bench-corpus` when missing),
//! `SKILLDECK_CCUSAGE` (the ccusage binary; else `ccusage` on PATH), `SKILLDECK_BENCH_MB` (300),
//! `SKILLDECK_BENCH_ONLY_INGEST=1` (run only the full ingest, for a profiler),
//! `SKILLDECK_BENCH_ONLY_LESSONS=1` (run only the lesson-extraction cost against its ingest).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use corpus::jsonl_files;
use skilldeck::config::Config;
use skilldeck::ingest;
use skilldeck::workspace::{Paths, Workspace};

#[path = "corpus/mod.rs"]
mod corpus;

const ROUNDS: usize = 5;

fn main() {
    let corpus = std::env::var_os("SKILLDECK_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/skilldeck-bench-corpus"));
    let projects = corpus.join("projects");
    if !projects.is_dir() {
        generate(&projects);
    }
    let files = jsonl_files(&projects);
    let bytes: u64 = files.iter().map(|f| std::fs::metadata(f).map_or(0, |m| m.len())).sum();
    let mb = bytes as f64 / 1_048_576.0;
    println!("corpus: {} ({} files, {mb:.1} MB)", projects.display(), files.len());
    for f in &files {
        let _ = std::fs::read(f); // warm the page cache so every contender reads from memory
    }

    if std::env::var_os("SKILLDECK_BENCH_ONLY_LESSONS").is_some() {
        return lessons_cost(&projects);
    }
    if std::env::var_os("SKILLDECK_BENCH_ONLY_INGEST").is_some() {
        let mut full = Best::default();
        for _ in 0..ROUNDS {
            full.add(full_ingest(&projects, None));
        }
        return report("skilldeck ingest (full, all cores)", &full, mb);
    }

    // Contenders run interleaved, round after round, and each keeps its best time: on a shared
    // machine every one of them then sees the same spread of load.
    let ccusage = ccusage_binary();
    let mut floor = Best::default();
    let mut full = Best::default();
    let mut single = Best::default();
    let mut cc = Best::default();
    for _ in 0..ROUNDS {
        floor.add(floor_parse(&files));
        full.add(full_ingest(&projects, None));
        single.add(full_ingest(&projects, Some(1)));
        if let Some(bin) = &ccusage {
            cc.add(run_ccusage(bin, &corpus));
        }
    }
    report("floor: serde_json IgnoredAny, 1 core", &floor, mb);
    report("skilldeck ingest (full, all cores)", &full, mb);
    report("skilldeck ingest (full, 1 parser thread)", &single, mb);
    let rerun = rerun_unchanged(&projects);
    println!(
        "{:<44} {:>8.3} s  (re-run over the unchanged tree)",
        "skilldeck ingest re-run",
        secs(rerun)
    );
    println!(
        "ratio full/floor: {:.2} (target <= 1.20); 1 parser thread/floor: {:.2}; \
         cpu full/floor: {:.2}",
        ratio(full.time, floor.time),
        ratio(single.time, floor.time),
        ratio(full.cpu, floor.cpu)
    );
    match ccusage {
        Some(bin) => {
            println!("ccusage: {}", bin.display());
            report("ccusage daily --json --offline", &cc, mb);
            println!(
                "ratio full/ccusage: {:.2} (target <= 1.00); ccusage takes {:.1}x as long; \
                 cpu full/ccusage: {:.2}",
                ratio(full.time, cc.time),
                ratio(cc.time, full.time),
                ratio(full.cpu, cc.cpu)
            );
        }
        None => println!(
            "ccusage: not found (set SKILLDECK_CCUSAGE or put ccusage on PATH; npm i ccusage@20.0.14 \
             @ccusage/ccusage-linux-x64@20.0.14); ratio to ccusage not measured"
        ),
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{ROUNDS} rounds, best of each; {cores} cores available");
    lessons_cost(&projects);
}

/// One fresh database: ingest, detection, then lesson extraction over the sessions detection
/// read (what `pipeline::after_ingest` runs after detecting), each timed; the extraction's cost
/// as a ratio to the ingest and to the detection of the same run.
fn lessons_cost(projects: &Path) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path())).expect("ws");
    let (read, read_cpu, note) = measured(false, || {
        let r = ingest::run(&mut ws, &[projects.to_path_buf()], &mut |_| {}).expect("ingest");
        format!("{} turns", r.turns)
    });
    let sessions = ingest::pending_session_ids(ws.store.conn()).expect("sessions");
    let (detect, detect_cpu, _) = measured(false, || {
        skilldeck::pipeline::detect(&mut ws).expect("detect");
        String::new()
    });
    let (lessons, lessons_cpu, found) = measured(false, || {
        let r = skilldeck::lessons::after_detect(&mut ws, &sessions).expect("lessons");
        format!("{} turns read, {} proposed, {} refused", r.turns_read, r.proposed, r.rejected)
    });
    println!("ingest {:.3} s ({note}); detection {:.3} s", secs(read), secs(detect));
    println!("lesson extraction {:.3} s ({found})", secs(lessons));
    println!(
        "ratio lessons/ingest: {:.3} (cpu {:.3}); lessons/detection: {:.3} (cpu {:.3})",
        ratio(lessons, read),
        ratio(lessons_cpu, read_cpu),
        ratio(lessons, detect),
        ratio(lessons_cpu, detect_cpu)
    );
}

/// A contender's best wall time and, separately, its least CPU time (user + system, all
/// threads or the child process): on a loaded machine wall time swings with the other load,
/// CPU time much less.
struct Best {
    time: Duration,
    cpu: Duration,
    note: String,
}

impl Default for Best {
    fn default() -> Self {
        Best { time: Duration::MAX, cpu: Duration::MAX, note: String::new() }
    }
}

impl Best {
    fn add(&mut self, (time, cpu, note): (Duration, Duration, String)) {
        self.cpu = self.cpu.min(cpu);
        if time < self.time {
            self.time = time;
            self.note = note;
        }
    }
}

/// CPU time used so far by this process (`self`) or its waited-for children, from
/// `/proc/self/stat` (clock ticks of 10 ms); zero where that file is missing.
fn cpu_time(children: bool) -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime is field 14 (index 11 here).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<u64> = rest.split_whitespace().map(|f| f.parse().unwrap_or(0)).collect();
    let at = if children { 13 } else { 11 };
    let ticks = fields.get(at).copied().unwrap_or(0) + fields.get(at + 1).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// Runs `f`, returning its wall time, its CPU time and its note.
fn measured(children: bool, f: impl FnOnce() -> String) -> (Duration, Duration, String) {
    let cpu = cpu_time(children);
    let start = Instant::now();
    let note = f();
    let took = start.elapsed();
    (took, cpu_time(children).saturating_sub(cpu), note)
}

fn generate(projects: &Path) {
    let mb = std::env::var("SKILLDECK_BENCH_MB").unwrap_or_else(|_| "300".into());
    corpus::generate(projects, &mb);
}

fn floor_parse(files: &[PathBuf]) -> (Duration, Duration, String) {
    measured(false, || floor_lines(files))
}

fn floor_lines(files: &[PathBuf]) -> String {
    let mut lines = 0u64;
    for f in files {
        let buf = std::fs::read(f).expect("read corpus file");
        let mut from = 0;
        for end in memchr::memchr_iter(b'\n', &buf) {
            let _ = serde_json::from_slice::<serde::de::IgnoredAny>(&buf[from..end]);
            lines += 1;
            from = end + 1;
        }
    }
    lines.to_string()
}

fn full_ingest(projects: &Path, threads: Option<usize>) -> (Duration, Duration, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path())).expect("ws");
    let agent = ws.config.agent_id.clone();
    measured(false, || {
        let paths = [projects.to_path_buf()];
        let r = ingest::run_with_threads(&mut ws, &paths, Some(&agent), threads, &mut |_| {})
            .expect("ingest");
        format!(
            "{} sessions, {} turns, {} tool calls, {} errors",
            r.sessions, r.turns, r.tool_calls, r.tool_errors
        )
    })
}

fn rerun_unchanged(projects: &Path) -> Duration {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path())).expect("ws");
    ingest::run(&mut ws, &[projects.to_path_buf()], &mut |_| {}).expect("ingest");
    let start = Instant::now();
    let r = ingest::run(&mut ws, &[projects.to_path_buf()], &mut |_| {}).expect("re-ingest");
    assert_eq!((r.turns, r.tool_calls, r.bytes_read), (0, 0, 0), "re-run added something");
    start.elapsed()
}

fn ccusage_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SKILLDECK_CCUSAGE") {
        return Some(PathBuf::from(p));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("ccusage"))
        .find(|p| p.is_file())
}

fn run_ccusage(bin: &Path, config_dir: &Path) -> (Duration, Duration, String) {
    measured(true, || {
        let out = Command::new(bin)
            .args(["daily", "--json", "--offline"])
            .env("CLAUDE_CONFIG_DIR", config_dir)
            .stderr(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
        assert!(out.status.success(), "ccusage failed: {:?}", out.status);
        format!("{} bytes of JSON", out.stdout.len())
    })
}

fn report(name: &str, best: &Best, mb: f64) {
    let t = secs(best.time);
    let cpu = secs(best.cpu);
    println!("{name:<44} {t:>8.3} s  {:>8.1} MB/s  cpu {cpu:>6.2} s  {}", mb / t, best.note);
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn ratio(a: Duration, b: Duration) -> f64 {
    secs(a) / secs(b)
}
