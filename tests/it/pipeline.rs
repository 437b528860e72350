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
