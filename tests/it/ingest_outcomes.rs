//! Turn boundaries and outcomes as the README states them, on small hand-made transcripts.

use serde_json::{Value, json};
use skilldeck::store::rusqlite::Connection;

use crate::support::TestWorkspace;

fn claude(kind: &str, content: Value, extra: Value) -> Value {
    let mut line = json!({"type": kind, "sessionId": "s-1", "timestamp": "2026-01-01T10:00:00Z",
                          "message": {"role": kind, "content": content}});
    if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            if k == "message" {
                for (mk, mv) in v.as_object().unwrap() {
                    line["message"].as_object_mut().unwrap().insert(mk.clone(), mv.clone());
                }
            } else {
                line.insert(k.clone(), v.clone());
            }
        }
    }
    line
}

fn call(id: &str, name: &str) -> Value {
    claude(
        "assistant",
        json!([{"type": "tool_use", "id": id, "name": name, "input": {"x": 1}}]),
        json!({"message": {"id": format!("m-{id}"), "stop_reason": "tool_use"}}),
    )
}

fn result(id: &str, is_error: bool) -> Value {
    claude(
        "user",
        json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error}]),
        json!({}),
    )
}

fn done(text: &str) -> Value {
    claude(
        "assistant",
        json!([{"type": "text", "text": text}]),
        json!({"message": {"id": format!("m-{text}"), "stop_reason": "end_turn"}}),
    )
}

fn write(path: &std::path::Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

type Row = (String, String, Option<String>, bool, bool);

fn rows(ws: &TestWorkspace) -> Vec<Row> {
    let db = Connection::open(ws.db()).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT user_input, outcome, failure_reason, complete, is_sidechain FROM turns
             ORDER BY file_path, id",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn claude_outcomes_interruption_api_error_recovery_and_sidechains() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("p");
    std::fs::create_dir_all(dir.join("s-1/subagents")).unwrap();
    write(
        &dir.join("s-1.jsonl"),
        &[
            claude("user", json!("a: recovers from a tool error"), json!({})),
            call("t1", "Bash"),
            result("t1", true),
            call("t2", "Bash"),
            result("t2", false),
            done("fixed"),
            claude("user", json!("b: gets interrupted"), json!({})),
            call("t3", "Bash"),
            claude(
                "user",
                json!([{"type": "text", "text": "[Request interrupted by user]"}]),
                json!({}),
            ),
            claude("user", json!("c: hits an API error"), json!({})),
            claude(
                "assistant",
                json!([{"type": "text", "text": "API Error: 529"}]),
                json!({"isApiErrorMessage": true, "message": {"id": "m-e"}}),
            ),
            claude("user", json!("<local-command-stdout>ok</local-command-stdout>"), json!({})),
            claude("user", json!("ignored meta"), json!({"isMeta": true})),
            claude("user", json!("d: leaves a tool error"), json!({})),
            call("t4", "Read"),
            result("t4", true),
            done("could not read it"),
        ],
    );
    write(
        &dir.join("s-1/subagents/agent-a1.jsonl"),
        &[
            claude("user", json!("find the config"), json!({"isSidechain": true})),
            claude(
                "assistant",
                json!([{"type": "tool_use", "id": "t9", "name": "Glob", "input": {"pattern": "*"}}]),
                json!({"isSidechain": true, "message": {"id": "m9"}}),
            ),
        ],
    );
    let r = ws.run_json(&["ingest", dir.to_str().unwrap()]);
    assert_eq!((r["sessions"].as_u64(), r["turns"].as_u64()), (Some(1), Some(5)), "{r:#}");
    assert_eq!((r["tool_calls"].as_u64(), r["tool_errors"].as_u64()), (Some(5), Some(2)));
    let got = rows(&ws);
    let expect = |input: &str, outcome: &str, reason: Option<&str>, complete: bool, side: bool| {
        (input.to_string(), outcome.to_string(), reason.map(str::to_string), complete, side)
    };
    assert_eq!(
        got,
        vec![
            expect("a: recovers from a tool error", "success", None, true, false),
            expect("b: gets interrupted", "failure", Some("interrupted"), true, false),
            expect("c: hits an API error", "failure", Some("api_error"), true, false),
            expect("d: leaves a tool error", "failure", Some("tool_error"), true, false),
            // The subagent's turn: its end is not shown and its file is fresh, so it stays open.
            expect("find the config", "success", None, false, true),
        ]
    );
}

#[test]
fn codex_turns_end_with_task_complete_or_abort() {
    let ws = TestWorkspace::new();
    let file = ws.root().join("rollout-2026-01-01T10-00-00-abc.jsonl");
    let ev = |payload: Value| json!({"timestamp": "2026-01-01T10:00:00Z", "type": "event_msg", "payload": payload});
    let item = |payload: Value| json!({"timestamp": "2026-01-01T10:00:00Z", "type": "response_item", "payload": payload});
    write(
        &file,
        &[
            json!({"timestamp": "2026-01-01T10:00:00Z", "type": "session_meta",
                   "payload": {"id": "codex-1", "cwd": "/w"}}),
            ev(json!({"type": "user_message", "message": "run the build"})),
            item(json!({"type": "function_call", "name": "exec_command", "call_id": "c1",
                        "arguments": "{\"cmd\":\"make\",\"yield_time_ms\":1000}"})),
            item(json!({"type": "function_call_output", "call_id": "c1",
                        "output": "Chunk ID: 1\nProcess exited with code 2\nOutput:\nerror"})),
            ev(json!({"type": "task_complete", "last_agent_message": "The build fails."})),
            ev(json!({"type": "user_message", "message": "try again"})),
            ev(json!({"type": "turn_aborted", "reason": "interrupted"})),
        ],
    );
    let r = ws.run_json(&["ingest", file.to_str().unwrap()]);
    assert_eq!((r["turns"].as_u64(), r["tool_errors"].as_u64()), (Some(2), Some(1)), "{r:#}");
    let db = Connection::open(ws.db()).unwrap();
    let shape: String =
        db.query_row("SELECT input_shape FROM tool_calls", [], |r| r.get(0)).unwrap();
    assert_eq!(shape, r#"{"cmd":"string","yield_time_ms":"number"}"#);
    let got = rows(&ws);
    assert_eq!(got[0].1, "failure");
    assert_eq!((got[0].2.as_deref(), got[0].3), (Some("tool_error"), true));
    assert_eq!((got[1].2.as_deref(), got[1].3), (Some("interrupted"), true));
    let session: String =
        db.query_row("SELECT session_key FROM sessions", [], |r| r.get(0)).unwrap();
    assert_eq!(session, "codex-1");
}

fn says(text: &str) -> Value {
    claude("user", json!(text), json!({}))
}

fn meta(text: &str) -> Value {
    claude("user", json!(text), json!({"isMeta": true}))
}

const CAVEAT: &str = "Caveat: The messages below were generated by the user while running local \
                      commands. DO NOT respond to these messages or otherwise consider them in \
                      your response unless the user explicitly asks you to.";

fn slash(command: &str) -> Value {
    says(&format!(
        "<command-name>/{command}</command-name>\n            <command-message>{command}\
         </command-message>\n            <command-args></command-args>"
    ))
}

fn call_names(ws: &TestWorkspace) -> Vec<(String, String)> {
    let db = Connection::open(ws.db()).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT t.user_input, c.name FROM tool_calls c JOIN turns t ON t.id = c.turn_id
             ORDER BY c.id",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn claude_harness_lines_start_no_turn_and_their_calls_join_the_surrounding_turn() {
    let ws = TestWorkspace::new();
    let file = ws.root().join("s-1.jsonl");
    write(
        &file,
        &[
            meta(CAVEAT),
            slash("clear"),
            says("<local-command-stdout></local-command-stdout>"),
            claude(
                "user",
                json!([
                    {"type": "text", "text": "<ide_opened_file>The user opened the file /w/a.py in \
                      the IDE. This may or may not be related to the current task.</ide_opened_file>"},
                    {"type": "text", "text": "rename the helper"},
                ]),
                json!({}),
            ),
            call("t1", "Edit"),
            result("t1", false),
            meta("Stop hook feedback:\n[hooks/stop.sh]: # Task Completion Check\nRun the tests."),
            call("t2", "Bash"),
            result("t2", false),
            done("renamed"),
            says("<bash-input>ls</bash-input>"),
            says("<bash-stdout>a.py</bash-stdout><bash-stderr></bash-stderr>"),
            says(CAVEAT),
            slash("model"),
            says("<local-command-stdout>Set model to opus</local-command-stdout>"),
            says("add a test for the helper"),
            call("t3", "Write"),
            claude(
                "user",
                json!(
                    "This session is being continued from a previous conversation that ran out \
                       of context. Summary: the person asked for a test."
                ),
                json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true}),
            ),
            call("t4", "Bash"),
            result("t3", false),
            result("t4", false),
            done("added"),
        ],
    );
    let r = ws.run_json(&["ingest", "--no-detect", file.to_str().unwrap()]);
    assert_eq!((r["turns"].as_u64(), r["tool_calls"].as_u64()), (Some(2), Some(4)), "{r:#}");
    let inputs: Vec<String> = rows(&ws).into_iter().map(|row| row.0).collect();
    assert_eq!(inputs, ["rename the helper", "add a test for the helper"]);
    let calls = call_names(&ws);
    let of = |input: &str| -> Vec<&str> {
        calls.iter().filter(|c| c.0 == input).map(|c| c.1.as_str()).collect()
    };
    assert_eq!(of("rename the helper"), ["Edit", "Bash"]);
    assert_eq!(of("add a test for the helper"), ["Write", "Bash"]);
}

#[test]
fn repeated_slash_commands_draft_no_skill() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("p");
    std::fs::create_dir_all(&dir).unwrap();
    let tasks = ["sort the imports", "update the changelog", "bump the version"];
    for (n, task) in tasks.iter().enumerate() {
        let session = |mut line: Value| {
            line["sessionId"] = json!(format!("s-{n}"));
            line["timestamp"] = json!(format!("2026-01-0{}T10:00:00Z", n + 1));
            line
        };
        let lines: Vec<Value> = [
            meta(CAVEAT),
            slash("clear"),
            says("<local-command-stdout></local-command-stdout>"),
            says(task),
            call(&format!("t{n}"), "Edit"),
            result(&format!("t{n}"), false),
            done("done"),
        ]
        .into_iter()
        .map(session)
        .collect();
        write(&dir.join(format!("s-{n}.jsonl")), &lines);
    }
    let r = ws.run_json(&["ingest", dir.to_str().unwrap()]);
    assert_eq!(r["turns"].as_u64(), Some(3), "{r:#}");
    let mut inputs: Vec<String> = rows(&ws).into_iter().map(|row| row.0).collect();
    inputs.sort();
    assert_eq!(inputs, ["bump the version", "sort the imports", "update the changelog"]);
    let candidates = ws.run_json(&["candidates"]);
    assert_eq!(candidates, json!([]), "{candidates:#}");
}

#[test]
fn codex_context_injections_are_not_prompts() {
    let ws = TestWorkspace::new();
    let file = ws.root().join("rollout-2026-01-01T10-00-00-abc.jsonl");
    let ev = |payload: Value| json!({"timestamp": "2026-01-01T10:00:00Z", "type": "event_msg", "payload": payload});
    let item = |payload: Value| json!({"timestamp": "2026-01-01T10:00:00Z", "type": "response_item", "payload": payload});
    let user = |text: &str| ev(json!({"type": "user_message", "message": text}));
    write(
        &file,
        &[
            json!({"timestamp": "2026-01-01T10:00:00Z", "type": "session_meta",
                   "payload": {"id": "codex-1", "cwd": "/w"}}),
            user("<user_instructions>\nBe terse.\n</user_instructions>"),
            user("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nRun make.\n</INSTRUCTIONS>"),
            user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
            user(
                "\n# Files mentioned by the user:\n\n## notes.txt: /w/notes.txt\n\n\
                  ## My request for Codex:\nsummarise the notes\n",
            ),
            item(json!({"type": "function_call", "name": "exec_command", "call_id": "c1",
                        "arguments": "{\"cmd\":\"cat notes.txt\"}"})),
            user("<environment_context>\n  <cwd>/w/sub</cwd>\n</environment_context>"),
            item(json!({"type": "function_call", "name": "exec_command", "call_id": "c2",
                        "arguments": "{\"cmd\":\"wc notes.txt\"}"})),
            ev(json!({"type": "task_complete", "last_agent_message": "Three points."})),
        ],
    );
    let r = ws.run_json(&["ingest", "--no-detect", file.to_str().unwrap()]);
    assert_eq!((r["turns"].as_u64(), r["tool_calls"].as_u64()), (Some(1), Some(2)), "{r:#}");
    let got = rows(&ws);
    assert_eq!((got[0].0.as_str(), got[0].3), ("summarise the notes", true));
}
