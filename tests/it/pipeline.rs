//! The whole pipeline over the real transcripts: ingest, then detection and drafting.

use rusqlite::Connection;

use crate::support::{TestWorkspace, agentskills_validate, count, shared_data};

#[test]
fn real_transcripts_flow_through_detection_into_valid_drafts() {
    let Some(dir) = shared_data("transcripts") else { return };
    let ws = TestWorkspace::new();
    let report = ws.run_json(&["ingest", dir.to_str().unwrap()]);
    let detect = &report["pipeline"]["detect"];
    assert!(detect["turns_processed"].as_u64().unwrap() > 100, "{report:#}");

    let db = Connection::open(ws.db()).unwrap();
    // Every complete turn was consumed by detection; no open one was.
    assert_eq!(count(&db, "SELECT count(*) FROM pending_turns"), 0);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM pending_turns p JOIN turns t ON t.id = p.turn_id WHERE t.complete = 0"
        ),
        0
    );
    // Local slash commands (/clear and friends) are not a person's task: no streak from them.
    // (A sequence of Codex's `shell_command` tool is named after it; it is no streak.)
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM skill_candidates WHERE source = 'signature' AND name LIKE '%command%'"
        ),
        0,
        "a draft was made from slash-command lines"
    );

    // The real sessions repeat read-edit-bash work: recorded as evidence, never proposed; what
    // is proposed has a valid staged draft.
    let evidence = ws.run_json(&["candidates", "--evidence"]);
    assert!(!evidence.as_array().unwrap().is_empty(), "no evidence row from the real transcripts");
    let candidates = ws.run_json(&["candidates"]);
    let list = candidates.as_array().unwrap();
    for c in list {
        // Two sessions suffice when the work is specific enough (`detect.min_evidence`).
        assert!(c["occurrences"].as_i64().unwrap() >= 2, "{c}");
        agentskills_validate(std::path::Path::new(c["staged_path"].as_str().unwrap()));
    }

    // Running the same pipeline again changes nothing.
    let again = ws.run_json(&["ingest", dir.to_str().unwrap()]);
    assert_eq!(again["turns"], 0);
    assert_eq!(again["pipeline"]["detect"]["turns_processed"], 0);
    assert_eq!(ws.run_json(&["candidates"]), candidates);
}

/// A pass that read transcripts copies the write-ahead log into the database behind the steps
/// after ingest (which writes with automatic checkpoints off), and waits for the copy before it
/// ends: the database file then holds every page, with no commit after ingest to copy them.
#[test]
fn a_pass_that_read_transcripts_ends_with_its_log_copied_into_the_database() {
    use skilldeck::pipeline::{Detect, Pass, Read};
    use skilldeck::synth::transcripts::{self, Clock, Turn};

    let tw = TestWorkspace::new();
    let config = skilldeck::config::Config::load(&tw.config()).expect("config");
    let mut ws = crate::support::library_workspace(config, tw.root());
    let at = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 11, 1, 0, 0, 0).unwrap();
    let turns: Vec<Turn> = (0..200)
        .map(|t| Turn {
            prompt: format!("check the build of module {t} and report what failed"),
            calls: vec![transcripts::call("Bash", serde_json::json!({"command": "cargo build"}))],
            reply: "It builds.",
        })
        .collect();
    let text = transcripts::claude_session(&mut Clock::starting(at), "s1", "/work/p", &turns);
    let file = tw.root().join("feed/s1.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    let db = ws.store.path().expect("a database file").to_path_buf();
    let size = |conn: &Connection| -> u64 {
        let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        let page: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (pages * page) as u64
    };
    let before = std::fs::metadata(&db).unwrap().len();

    let read = Read { paths: vec![file], ..Read::default() };
    let pass = Pass { read: Some(read), detect: Detect::Off, judge: false, team: false };
    let report = skilldeck::pipeline::run(&mut ws, &pass, &mut |_| {}).expect("pass");
    assert_eq!(report.ingest.expect("ingested").turns, 200);

    let grown = size(ws.store.conn());
    assert!(grown > before, "ingest added pages: {before} -> {grown}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), grown, "the file holds every page");
}
