//! The sweep's implicit-failure pass over a long session finds every retry once, and the
//! engine, ingest, sweep and recorders together never see a locked database. Timings are
//! printed for the report, not asserted (timings go in benches).

use std::time::Instant;

use std::path::Path;

use chrono::{TimeZone, Utc};
use serde_json::json;
use skilldeck::synth::transcripts::{self, Clock, Turn};
use skilldeck::workspace::{Paths, Workspace};

/// Every tenth turn of `long_session` is a retry without the skill.
fn is_retry(i: usize) -> bool {
    i % 10 == 9
}

/// One Claude Code session of `n` turns asking the same thing, each invoking the `tidy` skill
/// with success and then editing or running a command, except every tenth turn, which writes
/// the file without the skill (a retry with other tools): written to disk, ingested and detected (detection
/// gives the turns their signature).
fn long_session(ws: &mut Workspace, dir: &Path, n: usize) {
    let turns: Vec<Turn> = (0..n)
        .map(|i| {
            let step = if i % 2 == 0 {
                transcripts::call("Bash", json!({"command": "cargo fmt"}))
            } else {
                transcripts::call(
                    "Edit",
                    json!({"file_path": "src/lib.rs", "old_string": "a", "new_string": "b"}),
                )
            };
            let skill = transcripts::call("Skill", json!({"skill": "tidy"}));
            let other =
                transcripts::call("Write", json!({"file_path": "src/lib.rs", "content": "b"}));
            let calls = if is_retry(i) { vec![other] } else { vec![skill, step] };
            Turn { prompt: "refactor the code".into(), calls, reply: "Done." }
        })
        .collect();
    let start = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap();
    let text = transcripts::claude_session(&mut Clock::starting(start), "s", "/work/p", &turns);
    let path = dir.join("transcripts/s.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let report = skilldeck::ingest::run_as(ws, &[path], "default", &mut |_| {}).unwrap();
    let uses = (0..n).filter(|&i| !is_retry(i)).count() as u64;
    assert_eq!((report.turns, report.skill_invocations), (n as u64, uses), "{report:?}");
    skilldeck::pipeline::detect(ws).unwrap();
    let signed: i64 = ws
        .store
        .conn()
        .query_row("SELECT COUNT(*) FROM turns WHERE signature = 'code-refactor'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(signed, n as i64, "every turn has the one signature");
}

#[test]
fn the_implicit_failure_pass_over_a_long_session() {
    for n in [1_000, 4_000] {
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::with_paths(Default::default(), Paths::under(dir.path())).unwrap();
        long_session(&mut ws, dir.path(), n);
        let started = Instant::now();
        let added = skilldeck::lifecycle::implicit_failures(&mut ws).unwrap();
        eprintln!("implicit-failure pass: {n} turns, {added} added, {:?}", started.elapsed());
        // Each use is followed, within ten turns, by a retry with other tools (the last turn is
        // one): every use becomes one implicit failure, and a second pass adds nothing.
        let uses = (0..n).filter(|&i| !is_retry(i)).count();
        assert_eq!(added, uses);
        assert_eq!(skilldeck::lifecycle::implicit_failures(&mut ws).unwrap(), 0);
    }
}

/// Concurrent load, bounded: the console's engine passing on a timer, an ingest loop, a
/// sweep loop and four recorders for three seconds. Nothing fails with "database is locked";
/// the figures are printed for the report.
#[test]
fn console_ingest_sweep_and_four_recorders_never_see_a_locked_database() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use crate::support::TestWorkspace;

    let tw = Arc::new(TestWorkspace::new());
    tw.live_skill("tidy");
    let tx = tw.root().join("transcripts");
    std::fs::create_dir_all(&tx).unwrap();
    std::fs::write(
        tw.config(),
        format!("[[transcripts]]\npath = {:?}\n\n[engine]\ntick_secs = 1\n", tx),
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // (command, runs, failures, locked)
    let figures = Arc::new(Mutex::new(Vec::<(String, usize, usize, usize)>::new()));
    let mut workers = Vec::new();
    let mut spawn = |label: String,
                     args: Vec<String>,
                     between: Option<(std::path::PathBuf, usize)>| {
        let (tw, stop, figures) = (tw.clone(), stop.clone(), figures.clone());
        workers.push(std::thread::spawn(move || {
            let (mut runs, mut failed, mut locked) = (0, 0, 0);
            while !stop.load(Ordering::Relaxed) {
                if let Some((dir, _)) = &between {
                    // The ingest loop: a growing transcript, so each run has work.
                    let line = format!(
                        "{{\"type\":\"user\",\"sessionId\":\"s{runs}\",\"message\":{{\"content\":\"tidy the files {runs}\"}}}}\n"
                    );
                    std::fs::write(dir.join(format!("t{runs}.jsonl")), line).unwrap();
                }
                let out = tw.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
                runs += 1;
                if !out.status.success() {
                    failed += 1;
                    if String::from_utf8_lossy(&out.stderr).contains("locked") {
                        locked += 1;
                    }
                }
            }
            figures.lock().unwrap().push((label, runs, failed, locked));
        }));
    };
    for i in 0..4 {
        let outcome = if i % 2 == 0 { "success" } else { "failure" };
        spawn(format!("record #{i}"), vec!["record".into(), "tidy".into(), outcome.into()], None);
    }
    spawn("ingest".into(), vec!["ingest".into(), tx.display().to_string()], Some((tx.clone(), 0)));
    spawn("sweep".into(), vec!["sweep".into()], None);
    // The console's engine: a pass (ingest, detect, sweep) on its timer, in this process.
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let engine_failures = runtime.block_on(async {
        let overrides = skilldeck::workspace::Overrides {
            config: Some(tw.config()),
            db: Some(tw.db()),
            skills_dir: Some(tw.skills_dir()),
        };
        let ws = Workspace::open(&overrides).unwrap();
        let options = skilldeck::engine::EngineOptions {
            pass_on_start: true,
            pass_every: Some(Duration::from_millis(300)),
            ..skilldeck::engine::EngineOptions::quiet()
        };
        let mut engine = skilldeck::engine::spawn(ws, options).unwrap();
        let (mut passes, mut failures) = (0, Vec::new());
        let until = tokio::time::Instant::now() + Duration::from_secs(3);
        while let Ok(Some(update)) = tokio::time::timeout_at(until, engine.updates.recv()).await {
            match update {
                skilldeck::engine::Update::Busy(_) | skilldeck::engine::Update::Done(_) => {
                    passes += 1
                }
                skilldeck::engine::Update::Failed(e) => failures.push(e),
                _ => {}
            }
        }
        (passes, failures)
    });
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let figures = figures.lock().unwrap();
    eprintln!(
        "stress, 3 s: engine {} pass updates, {} failed",
        engine_failures.0,
        engine_failures.1.len()
    );
    for (label, runs, failed, locked) in figures.iter() {
        eprintln!("stress, 3 s: {label}: {runs} runs, {failed} failed, {locked} locked");
    }
    assert!(figures.iter().all(|f| f.3 == 0), "database is locked: {figures:?}");
    assert!(
        engine_failures.1.iter().all(|e| !e.contains("locked")),
        "engine: {:?}",
        engine_failures.1
    );
    assert!(figures.iter().all(|f| f.2 == 0), "failures: {figures:?}");
}
