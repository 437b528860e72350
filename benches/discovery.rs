//! Discovery benchmark: `cargo bench --bench discovery`.
//!
//! Plants six concrete workflows (release a crate, add a SQL migration, an issue-tracker loop, a
//! docs deploy, a Python package check written as Codex rollouts, an MCP issue-to-PR loop), each
//! in sessions of different projects with variations (look-around steps, failed checks fixed
//! and re-run, other arguments and wordings, swapped steps) and fake secrets, among generic
//! sessions, noise sessions and the real transcripts of `../shared/data` (copied at run time).
//! Runs the real `skilldeck ingest` at support thresholds 2, 3 and 4 and reports recall,
//! precision and leaked secrets per seed. `DISCOVERY_SEEDS=4,5,6` runs other seeds;
//! `DISCOVERY_KEEP=1` keeps the folders for reading the drafts.

use std::path::Path;
use std::time::Instant;

use skilldeck::bench::discovery::{copy_tree, run_case};
use skilldeck::synth::plant::{self, Plan};

fn main() {
    let seeds: Vec<u64> = std::env::var("DISCOVERY_SEEDS")
        .unwrap_or_else(|_| "1,2,3".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let bin = Path::new(env!("CARGO_BIN_EXE_skilldeck"));
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/transcripts");
    println!(
        "seed  support  recall  precision  proposed  leaks  time    missed / spurious / real work"
    );
    let mut worst = (1.0f64, 1.0f64, 0usize);
    // DISCOVERY_KEEP=1 keeps the last seed's folders (corpus, databases, staged drafts).
    let mut kept = None;
    for seed in seeds {
        let work = tempfile::tempdir().expect("tempdir");
        let corpus = work.path().join("corpus");
        let plan = Plan { seed, ..Plan::default() };
        let generated = plant::generate(&corpus.join("planted"), &plan).expect("generate");
        if real.exists() {
            std::fs::create_dir_all(corpus.join("real")).expect("mkdir");
            copy_tree(&real, &corpus.join("real")).expect("copy real transcripts");
        } else {
            eprintln!("note: {} is absent; planted and generic sessions only", real.display());
        }
        for support in [2, 3, 4] {
            let t = Instant::now();
            let r = run_case(bin, &corpus, work.path(), &generated, support).expect("case");
            let s = &r.score;
            println!(
                "{seed:>4}  {support:>7}  {:>6.2}  {:>9.2}  {:>8}  {:>5}  {:>5.1}s  {:?} / {:?} / {:?}",
                s.recall,
                s.precision,
                s.proposed,
                r.leaked.len(),
                t.elapsed().as_secs_f64(),
                s.missed,
                s.spurious,
                s.real_work
            );
            worst = (worst.0.min(s.recall), worst.1.min(s.precision), worst.2.max(r.leaked.len()));
        }
        if std::env::var_os("DISCOVERY_KEEP").is_some() {
            kept = Some(work.keep());
        }
    }
    if let Some(w) = kept {
        println!("kept: {}", w.display());
    }
    println!(
        "worst: recall {:.2}, precision {:.2}, leaks {} (targets: >= 0.9, >= 0.8, 0)",
        worst.0, worst.1, worst.2
    );
}
