//! One plan for every door: `skilldeck ingest`, the agents' hook, the demo and the console's
//! engine all run `pipeline::run`, and each pass runs every step it asks for once, in the plan's
//! order (recover, ingest, register, detect, lessons, stage drafts, model drafting, auto-promote,
//! evolve, judge, team sync).

use skilldeck::pipeline::{self, Step};

use crate::support::{TestWorkspace, library_workspace};

/// The plan's order.
const ORDER: [&str; 11] = [
    "recover",
    "ingest",
    "register",
    "detect",
    "lessons",
    "stage_drafts",
    "model_drafting",
    "auto_promote",
    "evolve",
    "judge",
    "team_sync",
];

/// The steps read from a report's JSON, checked to be in the plan's order, each once.
fn steps_of(json: &serde_json::Value) -> Vec<String> {
    let steps: Vec<String> = json
        .as_array()
        .unwrap_or_else(|| panic!("no steps: {json}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let places: Vec<usize> = steps
        .iter()
        .map(|s| ORDER.iter().position(|o| o == s).unwrap_or_else(|| panic!("unknown step {s}")))
        .collect();
    assert!(places.windows(2).all(|w| w[0] < w[1]), "out of order or twice: {steps:?}");
    steps
}

/// The steps from recovery to evolution every door that reads and detects runs (auto-promotion
/// is off by default).
fn read_and_detect() -> Vec<&'static str> {
    ORDER.iter().copied().take_while(|s| *s != "judge").filter(|s| *s != "auto_promote").collect()
}

fn transcript(dir: &std::path::Path) -> std::path::PathBuf {
    let file = dir.join("projects/p/s1.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let lines = [
        r#"{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2025-01-01T00:00:00Z","cwd":"/p","message":{"role":"user","content":"run the tests"}}"#,
        r#"{"type":"assistant","sessionId":"s1","uuid":"a1","timestamp":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test"}}]}}"#,
        r#"{"type":"user","sessionId":"s1","uuid":"u2","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        r#"{"type":"assistant","sessionId":"s1","uuid":"a2","timestamp":"2025-01-01T00:00:03Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
        r#"{"type":"user","sessionId":"s1","uuid":"u3","timestamp":"2025-01-01T00:00:04Z","message":{"role":"user","content":"thanks"}}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

#[test]
fn the_cli_and_the_hook_run_the_same_steps_once() {
    let tw = TestWorkspace::new();
    let file = transcript(tw.root());
    let cli = tw.run_json(&["ingest", file.to_str().unwrap()]);
    assert_eq!(steps_of(&cli["steps"]), read_and_detect(), "{cli:#}");
    assert!(cli["turns"].as_u64().unwrap() >= 1, "{cli:#}");
    // Without detection the pass stops after reading.
    let read = tw.run_json(&["ingest", "--no-detect", file.to_str().unwrap()]);
    assert_eq!(steps_of(&read["steps"]), ["recover", "ingest"]);

    let tw = TestWorkspace::new();
    let file = transcript(tw.root());
    std::fs::write(
        tw.config(),
        format!("[[transcripts]]\npath = {:?}\n", tw.root().join("projects")),
    )
    .unwrap();
    let payload = serde_json::json!({
        "hook_event_name": "SessionEnd",
        "session_id": "s1",
        "transcript_path": file,
    });
    let out = tw
        .cmd()
        .args(["ingest", "--hook", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(payload.to_string().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let hook: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", crate::support::describe(&out)));
    assert_eq!(hook["result"], "ingested", "{hook:#}");
    let steps = &hook["ms"]["steps"];
    assert_eq!(steps_of(steps), read_and_detect(), "{hook:#}");
}

#[test]
fn the_demo_runs_each_step_once_a_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["demo", "--no-console", "--json", "--dir"])
        .arg(tmp.path().join("demo"))
        .env("HOME", tmp.path().join("home"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::support::describe(&out));
    let demo: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut first = read_and_detect();
    first.push("judge");
    assert_eq!(steps_of(&demo["first_pass"]["steps"]), first);
    first.push("team_sync");
    assert_eq!(steps_of(&demo["second_pass"]["steps"]), first);
}

/// A workspace whose configuration watches the transcript written under `dir`, as the console's.
fn watching_workspace(dir: &std::path::Path) -> skilldeck::workspace::Workspace {
    let mut config = skilldeck::config::Config::default();
    config.transcripts = vec![skilldeck::config::TranscriptRoot {
        path: dir.join("projects"),
        format: "auto".into(),
        agent: None,
    }];
    transcript(dir);
    library_workspace(config, dir)
}

#[test]
fn the_consoles_passes_run_each_step_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ws = watching_workspace(tmp.path());
    let timed = pipeline::run(&mut ws, &skilldeck::engine::plan(true, true), &mut |_| {}).unwrap();
    let mut all: Vec<Step> = vec![
        Step::Recover,
        Step::Ingest,
        Step::Register,
        Step::Detect,
        Step::Lessons,
        Step::StageDrafts,
        Step::ModelDrafting,
        Step::Evolve,
        Step::Judge,
    ];
    // The console syncs with the team beside its passes, on a connection of its own, so a
    // key press never waits on the network: its passes have no team step.
    assert_eq!(timed.steps, all);
    assert!(timed.ingest.as_ref().unwrap().turns >= 1);
    let on_change =
        pipeline::run(&mut ws, &skilldeck::engine::plan(true, false), &mut |_| {}).unwrap();
    all.truncate(8);
    assert_eq!(on_change.steps, all);
    // A sweep alone: evolution runs inside the upkeep, not as a detection step.
    let sweep = pipeline::run(&mut ws, &skilldeck::engine::plan(false, true), &mut |_| {}).unwrap();
    assert_eq!(sweep.steps, [Step::Recover, Step::Judge]);
}

#[test]
fn a_pass_gives_its_connection_back_as_it_found_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut ws = watching_workspace(tmp.path());
    // A cache smaller than the one detection and lessons are given, and SQLite's checkpoints.
    ws.store.conn().pragma_update(None, "cache_size", -500).unwrap();
    let pragma = |ws: &skilldeck::workspace::Workspace, name: &str| -> i64 {
        ws.store.conn().query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
    };
    let names = ["cache_size", "wal_autocheckpoint", "foreign_keys"];
    let before: Vec<i64> = names.iter().map(|n| pragma(&ws, n)).collect();
    assert_eq!(before, [-500, 1000, 1]);
    let pass = pipeline::run(&mut ws, &skilldeck::engine::plan(true, false), &mut |_| {}).unwrap();
    assert!(pass.steps.contains(&Step::Lessons), "{:?}", pass.steps);
    let after: Vec<i64> = names.iter().map(|n| pragma(&ws, n)).collect();
    assert_eq!(after, before);
}
