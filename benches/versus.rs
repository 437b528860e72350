//! The whole `skilldeck ingest` (read, detect, lessons, drafts) and `ingest --no-detect` against
//! ccusage 20 (`CLAUDE_CONFIG_DIR=<dir> ccusage daily --json --offline`), as a user runs them:
//! each a fresh process (a fresh database for skilldeck), on the 302.5 MB and 1.5 GB trees in one
//! run. Contenders alternate within each round (the order rotates from round to round) so a
//! shared machine's load falls on all of them alike; the figures are medians over the rounds,
//! and the ratios are ratios of medians. Peak memory is the child's maximum resident set
//! (ccusage's launcher and the native binary it runs, whichever is larger).
//!
//! Env: `SKILLDECK_BENCH_SIZES` (MB of each tree, default `300,1500`; each made under
//! `/tmp/skilldeck-bench-<MB>/projects` by `../shared/tools/make-bench-corpus` when missing),
//! `SKILLDECK_BENCH_ROUNDS` (5), `SKILLDECK_CCUSAGE` (else `ccusage` on PATH),
//! `SKILLDECK_BENCH_BEFORE` (another `skilldeck` binary, say a release build of the commit before
//! a change: its two runs join the rounds, for a before/after measured under the same load).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One run of one contender: wall time, CPU time (user + system), peak resident set in KiB.
#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    cpu: Duration,
    peak_kib: i64,
}

#[path = "corpus/mod.rs"]
mod corpus;

/// One contender: ccusage, or a `skilldeck` binary's whole ingest or reading alone.
struct Contender {
    name: String,
    skilldeck: Option<(PathBuf, bool)>,
}

impl Contender {
    fn skilldeck(label: &str, bin: &Path, detect: bool) -> Self {
        let what = if detect { "ingest" } else { "ingest --no-detect" };
        Contender { name: format!("{label}{what}"), skilldeck: Some((bin.to_path_buf(), detect)) }
    }
}

fn main() {
    let sizes: Vec<u64> = std::env::var("SKILLDECK_BENCH_SIZES")
        .unwrap_or_else(|_| "300,1500".into())
        .split(',')
        .map(|s| s.trim().parse().expect("SKILLDECK_BENCH_SIZES: MB, comma-separated"))
        .collect();
    let rounds: usize =
        std::env::var("SKILLDECK_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let ccusage = std::env::var_os("SKILLDECK_CCUSAGE")
        .map(PathBuf::from)
        .or_else(|| on_path("ccusage"))
        .expect("ccusage not found: npm i -g ccusage@20.0.14 @ccusage/ccusage-linux-x64@20.0.14");
    let skilldeck = Path::new(env!("CARGO_BIN_EXE_skilldeck"));
    let mut contenders = vec![
        Contender { name: "ccusage".into(), skilldeck: None },
        Contender::skilldeck("skilldeck ", skilldeck, true),
        Contender::skilldeck("skilldeck ", skilldeck, false),
    ];
    if let Some(before) = std::env::var_os("SKILLDECK_BENCH_BEFORE").map(PathBuf::from) {
        contenders.push(Contender::skilldeck("before: ", &before, true));
        contenders.push(Contender::skilldeck("before: ", &before, false));
    }
    let n = contenders.len();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{rounds} rounds per tree, contenders alternating; {cores} cores; {}",
        ccusage.display()
    );
    let mut per_mb: Vec<(f64, Vec<Duration>)> = Vec::new();
    for mb in sizes {
        let root = PathBuf::from(format!("/tmp/skilldeck-bench-{mb}"));
        let projects = root.join("projects");
        if !projects.is_dir() {
            corpus::generate(&projects, &mb.to_string());
        }
        let bytes = warm(&projects);
        let size = bytes as f64 / 1_048_576.0;
        let mut runs: Vec<Vec<Run>> = (0..n).map(|_| Vec::new()).collect();
        for round in 0..rounds {
            for k in 0..n {
                let which = (round + k) % n;
                let run = match &contenders[which].skilldeck {
                    None => timed(
                        Command::new(&ccusage)
                            .args(["daily", "--json", "--offline"])
                            .env("CLAUDE_CONFIG_DIR", &root),
                    ),
                    Some((bin, detect)) => {
                        let ws = tempfile::tempdir().expect("tempdir");
                        let mut c = Command::new(bin);
                        c.arg("--db").arg(ws.path().join("db.sqlite"));
                        c.arg("--skills-dir").arg(ws.path().join("skills"));
                        c.arg("--config").arg(ws.path().join("none.toml"));
                        c.env("HOME", ws.path()).arg("ingest");
                        if !detect {
                            c.arg("--no-detect");
                        }
                        timed(c.arg(&projects))
                    }
                };
                runs[which].push(run);
            }
        }
        println!("\n{} ({size:.1} MB)", projects.display());
        let med: Vec<(Duration, Duration, i64)> = runs.iter().map(|r| medians(r)).collect();
        for (c, (wall, cpu, peak)) in contenders.iter().zip(&med) {
            println!(
                "  {:<30} wall {:>7.3} s  cpu {:>7.3} s  peak {:>6.1} MiB  ({:.0} MB/s)",
                c.name,
                wall.as_secs_f64(),
                cpu.as_secs_f64(),
                *peak as f64 / 1024.0,
                size / wall.as_secs_f64()
            );
        }
        let r = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        let cc = med[0];
        for (pair, who) in med[1..].chunks(2).zip(contenders[1..].chunks(2)) {
            let (full, read) = (pair[0], pair[1]);
            let label = who[0].name.trim_end_matches("ingest");
            println!(
                "  {label}whole ingest / ccusage: wall {:.2}x, cpu {:.2}x (target <= 1.0); \
                 --no-detect / ccusage: wall {:.2}x, cpu {:.2}x (target <= 0.7); \
                 peak memory / ccusage: {:.2}x (target <= 0.5)",
                r(full.0, cc.0),
                r(full.1, cc.1),
                r(read.0, cc.0),
                r(read.1, cc.1),
                full.2 as f64 / cc.2 as f64
            );
        }
        per_mb.push((size, med.iter().map(|m| m.0).collect()));
    }
    if let (Some(small), Some(big)) = (per_mb.first(), per_mb.last())
        && big.0 > small.0
    {
        println!("\ngrowth, time per MB at {:.0} MB over {:.0} MB (1.0 = linear):", big.0, small.0);
        for (k, c) in contenders.iter().enumerate() {
            let rate = |(mb, t): &(f64, Vec<Duration>)| t[k].as_secs_f64() / mb;
            println!("  {:<30} {:.2}", c.name, rate(big) / rate(small));
        }
    }
}

/// Runs `cmd` to its end (output discarded), measured by `wait4`.
// The child is reaped by `wait4`, which also returns its resource use (std's `wait` does not).
#[allow(clippy::zombie_processes)]
fn timed(cmd: &mut Command) -> Run {
    use std::process::Stdio;
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {cmd:?}: {e}"));
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill; the pid is our child's.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "wait4 on {cmd:?} failed");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{cmd:?} failed: {status}");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Run { wall, cpu: tv(usage.ru_utime) + tv(usage.ru_stime), peak_kib: usage.ru_maxrss }
}

fn medians(runs: &[Run]) -> (Duration, Duration, i64) {
    fn median<T: Ord + Copy>(mut v: Vec<T>) -> T {
        v.sort();
        v[v.len() / 2]
    }
    (
        median(runs.iter().map(|r| r.wall).collect()),
        median(runs.iter().map(|r| r.cpu).collect()),
        median(runs.iter().map(|r| r.peak_kib).collect()),
    )
}

/// Reads every transcript once so every contender reads from the page cache; returns the bytes.
fn warm(dir: &Path) -> u64 {
    corpus::jsonl_files(dir).iter().map(|f| std::fs::read(f).map_or(0, |b| b.len() as u64)).sum()
}

fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|p| p.join(name)).find(|p| p.is_file())
}
