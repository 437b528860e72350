//! Ingestion over the real transcripts in ../shared/data (the exact counts of SOURCES.md), and
//! over generated sessions for what needs no real data (concurrent runs, connection settings).

use serde_json::Value;
use skilldeck::store::rusqlite::Connection;

use crate::support::{TestWorkspace, count, shared_data};

/// Ingest alone: detection (which `ingest` runs after reading unless told not to) fills
/// signatures, and these tests check what reading stores.
fn ingest(ws: &TestWorkspace, dir: &std::path::Path) -> Value {
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()])
}

#[test]
fn claude_code_real_projects_match_sources_counts_and_reingest_adds_nothing() {
    let Some(dir) = shared_data("transcripts/handgemacht-ai__claude-code-log/real_projects") else {
        return;
    };
    let ws = TestWorkspace::new();
    let first = ingest(&ws, &dir);
    assert_eq!(first["files"], 97, "{first:#}");
    assert_eq!(first["empty_files"], 17);
    assert_eq!(first["lines"], 2949);
    assert_eq!(first["sessions"], 42);
    assert_eq!(first["tool_calls"], 889);
    assert_eq!(first["tool_errors"], 77);
    assert_eq!(first["bad_lines"], 0);
    assert_eq!(first["skill_invocations"], 1);
    // Prompts by the README's rule (slash commands, their output, caveats, shell mode and meta
    // lines start none), plus one turn per stream for work before its first prompt.
    assert_eq!(first["turns"], 119);

    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), 889);
    assert_eq!(count(&db, "SELECT sum(is_error) FROM tool_calls"), 77);
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE source = 'claude'"), 42);
    // `--no-detect`: every turn is stored with its signature, and every complete one waits in
    // detection's queue.
    assert_eq!(count(&db, "SELECT count(*) FROM turns WHERE signature IS NULL"), 0);
    let queued = "SELECT count(*) FROM turns t JOIN pending_turns p ON p.turn_id = t.id";
    assert_eq!(count(&db, queued), count(&db, "SELECT count(*) FROM turns WHERE complete = 1"));
    assert!(count(&db, "SELECT count(*) FROM turns WHERE is_sidechain = 1") > 0);
    // Only the last turn of a file's stream may stay open (its end not shown, the file not quiet).
    assert!(count(&db, "SELECT count(*) FROM turns WHERE complete = 1") > 80);
    let open_before_last = "SELECT count(*) FROM turns t WHERE complete = 0 AND EXISTS (
        SELECT 1 FROM turns u WHERE u.file_path = t.file_path
                                AND u.is_sidechain = t.is_sidechain AND u.id > t.id)";
    assert_eq!(count(&db, open_before_last), 0);
    // Shapes keep keys and types, never values.
    let shape: String = db
        .query_row(
            "SELECT input_shape FROM tool_calls WHERE name = 'Bash' ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(shape.starts_with("{\"command\":\"string\""), "{shape}");
    assert_eq!(count(&db, "SELECT count(*) FROM skill_invocations WHERE source = 'transcript'"), 1);

    let again = ingest(&ws, &dir);
    assert_eq!(again["files"], 97);
    for key in ["files_read", "bytes_read", "sessions", "turns", "tool_calls", "tool_errors"] {
        assert_eq!(again[key], 0, "{key} on re-run: {again:#}");
    }
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), 889);
}

#[test]
fn codex_rollouts_count_every_tool_call_kind() {
    let Some(dir) = shared_data("transcripts/codemie-ai__codemie-code/codex") else { return };
    let ws = TestWorkspace::new();
    let r = ingest(&ws, &dir);
    assert_eq!((r["sessions"].as_u64(), r["tool_calls"].as_u64()), (Some(2), Some(143)), "{r:#}");
    // 8 + 1 calls exit non-zero (exec_command_end, or the output text), each counted once.
    assert_eq!(r["tool_errors"], 9);
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE source = 'codex'"), 2);
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls WHERE name = 'web_search'"), 3);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM tool_calls WHERE name = 'apply_patch' AND input_shape = '\"string\"'"
        ),
        3
    );
    let shape: String = db
        .query_row(
            "SELECT input_shape FROM tool_calls WHERE name = 'exec_command' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(shape.contains("\"cmd\":\"string\""), "{shape}");
    assert!(count(&db, "SELECT count(*) FROM turns WHERE user_input LIKE '%demo%'") > 0);
}

#[test]
fn drmaciver_sessions() {
    let Some(dir) = shared_data("transcripts/DRMacIver__claude-reliability") else { return };
    let ws = TestWorkspace::new();
    let r = ingest(&ws, &dir);
    assert_eq!((r["sessions"].as_u64(), r["tool_calls"].as_u64()), (Some(7), Some(61)), "{r:#}");
    assert_eq!(r["bad_lines"], 0);
}

#[test]
fn synthetic_edge_cases_ingest_and_report_bad_lines_by_file_and_line() {
    let Some(dir) = shared_data("transcripts/handgemacht-ai__claude-code-log/synthetic_edge_cases")
    else {
        return;
    };
    let ws = TestWorkspace::new();
    let r = ingest(&ws, &dir);
    assert_eq!(r["files"], 13, "{r:#}");
    assert!(r["bad_lines"].as_u64().unwrap() >= 4, "{r:#}");
    let problems = r["problems"].as_array().unwrap();
    let has = |line: u64, needle: &str| {
        problems.iter().any(|p| {
            p["path"].as_str().unwrap().ends_with("edge_cases.jsonl")
                && p["line"] == line
                && p["reason"].as_str().unwrap().contains(needle)
        })
    };
    assert!(has(13, "bare JSON string"), "{problems:#?}");
    assert!(has(14, "without \"type\""), "{problems:#?}");
    assert!(has(15, "bare number"), "{problems:#?}");
    // The human summary names file, line and reason too.
    let fresh = TestWorkspace::new();
    let text = fresh.run_ok(&["ingest", dir.to_str().unwrap(), "--agent", "other"]);
    assert!(text.contains("13 files"), "{text}");
    assert!(text.contains("edge_cases.jsonl:13: a bare JSON string, not an object"), "{text}");
}

/// Generated Claude Code sessions under `dir`: `sessions` files of `turns` turns, each turn with
/// three tool calls (one failing). Returns (sessions, turns, tool calls) written.
fn generated_sessions(dir: &std::path::Path, sessions: usize, turns: usize) -> (i64, i64, i64) {
    use skilldeck::synth::transcripts::{Clock, Turn, call, claude_session, failing};
    let start = chrono::DateTime::parse_from_rfc3339("2026-01-05T09:00:00Z").unwrap().to_utc();
    std::fs::create_dir_all(dir).unwrap();
    for s in 0..sessions {
        let mut clock = Clock::starting(start + chrono::Duration::hours(s as i64));
        let script: Vec<Turn> = (0..turns)
            .map(|t| Turn {
                prompt: format!("task {t} of session {s}: tidy module m{t}"),
                calls: vec![
                    call("Read", serde_json::json!({"file_path": format!("/p/m{t}.rs")})),
                    failing("Bash", serde_json::json!({"command": "cargo test"})),
                    call("Edit", serde_json::json!({"file_path": format!("/p/m{t}.rs")})),
                ],
                reply: "done",
            })
            .collect();
        let id = format!("00000000-0000-4000-8000-{s:012}");
        let text = claude_session(&mut clock, &id, "/p", &script);
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
    let (sessions, turns) = (sessions as i64, (sessions * turns) as i64);
    (sessions, turns, turns * 3)
}

#[test]
fn two_ingest_runs_at_once_store_each_row_once() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("projects/p");
    let (sessions, turns, calls) = generated_sessions(&dir, 40, 6);
    let empty = ws.root().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    ws.run_ok(&["ingest", empty.to_str().unwrap()]); // creates the database
    let spawn = || {
        let mut cmd = ws.cmd();
        // Reading only: two detection passes at once can fail with "database is locked"
        // (detection's deferred transaction upgrading to a write lock), which is not ingest's.
        cmd.args(["ingest", "--no-detect", "--json", dir.to_str().unwrap()]);
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", crate::support::describe(&out));
    }
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), calls);
    assert_eq!(count(&db, "SELECT count(*) FROM sessions"), sessions);
    assert_eq!(count(&db, "SELECT count(*) FROM turns"), turns);
    assert_eq!(
        count(&db, "SELECT count(DISTINCT file_path || ':' || start_offset) FROM turns"),
        count(&db, "SELECT count(*) FROM turns")
    );
}

#[test]
fn a_run_leaves_its_connection_as_it_found_it_and_its_rows_committed() {
    let tmp = TestWorkspace::new();
    let dir = tmp.root().join("projects/p");
    let (_, _, calls) = generated_sessions(&dir, 5, 4);
    let mut ws =
        crate::support::library_workspace(skilldeck::config::Config::default(), tmp.root());
    let pragma = |ws: &skilldeck::workspace::Workspace, name: &str| -> i64 {
        ws.store.conn().query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
    };
    let names = ["cache_size", "foreign_keys", "wal_autocheckpoint"];
    let before: Vec<i64> = names.iter().map(|n| pragma(&ws, n)).collect();
    let report = skilldeck::ingest::run(&mut ws, &[dir], &mut |_| {}).unwrap();
    assert_eq!(report.tool_calls as i64, calls);
    // The big page cache, no foreign-key checks and no automatic checkpoint are for the run only.
    let after: Vec<i64> = names.iter().map(|n| pragma(&ws, n)).collect();
    assert_eq!(after, before);
    assert_eq!(before, [-2000, 1, 1000]);
    let other = Connection::open(ws.paths.db.clone()).unwrap();
    assert_eq!(count(&other, "SELECT count(*) FROM tool_calls"), calls);
}
