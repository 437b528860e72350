//! No input overflows the stack: deep nesting in a transcript line or in SKILL.md frontmatter is
//! refused with a reason, and everything else is still read.

use skilldeck::engine::{self, EngineOptions};

use super::console_fixture::{tempdir, workspace};
use crate::support::TestWorkspace;

/// A session whose second assistant line holds a tool input nested `depth` arrays deep.
fn transcript_with_deep_input(depth: usize) -> String {
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let user = r#"{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"list the files"}}"#;
    let ok = r#"{"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
    let bad = format!(
        r#"{{"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:02Z","message":{{"id":"m2","content":[{{"type":"tool_use","id":"t2","name":"Bash","input":{{"a":{deep}}}}}]}}}}"#
    );
    format!("{user}\n{ok}\n{bad}\n")
}

#[test]
fn a_tool_input_nested_8000_deep_is_a_bad_line_and_the_rest_is_stored() {
    let ws = TestWorkspace::new();
    let tx = ws.root().join("tx");
    std::fs::create_dir_all(&tx).unwrap();
    std::fs::write(tx.join("deep.jsonl"), transcript_with_deep_input(8000)).unwrap();
    let first = ws.run_json(&["ingest", "--no-detect", tx.to_str().unwrap()]);
    assert_eq!(first["bad_lines"], 1, "{first:#}");
    assert!(first["problems"].to_string().contains("nested deeper than 128 levels"), "{first:#}");
    // A re-run (the file unchanged) and the full pipeline run without aborting either.
    let again = ws.run_json(&["ingest", tx.to_str().unwrap()]);
    assert_eq!(again["tool_calls"], 0, "{again:#}");
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    assert_eq!(crate::support::count(&db, "SELECT count(*) FROM tool_calls"), 1);
    assert_eq!(crate::support::count(&db, "SELECT sum(bad_lines) FROM ingested_files"), 1);
}

#[test]
fn frontmatter_nested_100000_deep_is_an_error_not_a_crash() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("deep");
    std::fs::create_dir_all(&dir).unwrap();
    let text =
        format!("---\nname: deep\ndescription: x\nx:\n  {}y\n---\nbody\n", "- ".repeat(100_000));
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    let out = ws.run(&["validate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::support::describe(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("nested deeper than"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_starts_over_a_transcript_nested_8000_deep() {
    let dir = tempdir();
    let ws = workspace(dir.path());
    let transcripts = dir.path().join("transcripts");
    std::fs::write(transcripts.join("deep.jsonl"), transcript_with_deep_input(8000)).unwrap();
    let options = EngineOptions { pass_on_start: true, ..EngineOptions::quiet() };
    let mut engine = engine::spawn(ws, options).unwrap();
    // The start pass is background work: it reports as a note.
    let finished = crate::support::first_result(&mut engine).await;
    assert!(finished.is_ok(), "{finished:?}");
}
