//! Every kind of skill use is an invocation, counted once per skill and turn, with the turn's
//! outcome: Claude Code's `Skill` tool (with the body it injects), a `/name` typed by the user, a
//! `Read` of a SKILL.md; Codex's injected `<skill>` bodies and shell reads of a SKILL.md.
//!
//! Real examples in ../shared/data: a `Skill` call followed by its injected body (Claude Code
//! 2.1.114) and shell reads of plugin SKILL.md files (Codex 0.125). None of a `/name` use, of a
//! Claude `Read` of a SKILL.md, or of a Codex `<skill>` injection exist there: those fixtures are
//! built from the real lines' shapes and, for Codex, the format codex-rs writes
//! (`<skill>\n<name>…</name>\n<path>…</path>\n…</skill>` as a user message).

use serde_json::{Value, json};
use skilldeck::store::rusqlite::Connection;

use crate::support::{TestWorkspace, shared_data};

const SUBAGENT: &str = "transcripts/handgemacht-ai__claude-code-log/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a52886dc180afb356.jsonl";

/// (skill, outcome, note) of every invocation, in id order.
fn invocations(ws: &TestWorkspace) -> Vec<(String, String, Option<String>)> {
    let db = Connection::open(ws.db()).unwrap();
    let mut stmt =
        db.prepare("SELECT skill_name, outcome, note FROM skill_invocations ORDER BY id").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn real_lines(rel: &str) -> Option<Vec<Value>> {
    let path = shared_data(rel)?;
    let text = std::fs::read_to_string(path).unwrap();
    Some(text.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
}

fn skip_or_fail() {
    assert!(std::env::var_os("CI").is_none(), "../shared/data is required under CI");
}

fn write_jsonl(path: &std::path::Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn ingest(ws: &TestWorkspace, path: &std::path::Path) {
    ws.run_json(&["ingest", "--no-detect", path.to_str().unwrap()]);
}

/// A plain prompt in the same stream after `like`, so the turn before it closes.
fn next_prompt(like: &Value, text: &str) -> Value {
    let mut l = like.clone();
    l["message"] = json!({"role": "user", "content": text});
    l["uuid"] = json!(uuid::Uuid::new_v4().to_string());
    for k in ["isMeta", "sourceToolUseID", "sourceToolAssistantUUID"] {
        l.as_object_mut().unwrap().remove(k);
    }
    l
}

#[test]
fn skill_tool_and_the_body_it_injects_are_one_use() {
    let Some(lines) = real_lines(SUBAGENT) else { return skip_or_fail() };
    let ws = TestWorkspace::new();
    let path = ws.root().join("t/agent.jsonl");
    let mut lines = lines;
    let closing = next_prompt(&lines[0], "thanks, next task");
    lines.push(closing);
    write_jsonl(&path, &lines);
    ingest(&ws, &path);
    assert_eq!(invocations(&ws), [("my-worktree-actors".into(), "success".into(), None)]);
}

#[test]
fn a_slash_use_with_its_body_line_is_one_use_that_starts_a_turn() {
    let Some(lines) = real_lines(SUBAGENT) else { return skip_or_fail() };
    let ws = TestWorkspace::new();
    // The real body line (line 7) without the `Skill` call it followed: what Claude Code writes
    // when the person types `/my-worktree-actors`, after its `<command-name>` line.
    let mut body = lines[6].clone();
    body.as_object_mut().unwrap().remove("sourceToolUseID");
    let mut command = next_prompt(&lines[0], "");
    command["message"]["content"] = json!(
        "<command-name>/my-worktree-actors</command-name>\n<command-message>my-worktree-actors</command-message>\n<command-args></command-args>"
    );
    let fixture = vec![
        lines[0].clone(),
        lines[1].clone(),
        lines[2].clone(),
        lines[3].clone(),
        command,
        body,
        lines[7].clone(),
        next_prompt(&lines[0], "now something else"),
    ];
    let path = ws.root().join("t/slash.jsonl");
    write_jsonl(&path, &fixture);
    ingest(&ws, &path);
    assert_eq!(
        invocations(&ws),
        [("my-worktree-actors".into(), "success".into(), Some("via slash".into()))]
    );
    let db = Connection::open(ws.db()).unwrap();
    let prompts: Vec<String> = db
        .prepare("SELECT user_input FROM turns ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(prompts.contains(&"/my-worktree-actors".to_string()), "{prompts:?}");
}

#[test]
fn reading_a_skill_md_is_a_use_once_per_turn_with_the_turn_outcome() {
    let Some(lines) = real_lines(SUBAGENT) else { return skip_or_fail() };
    let ws = TestWorkspace::new();
    // The real `Bash` call line (3) and its result (4), turned into a Read of a SKILL.md, twice.
    let read = |id: &str, file: &str| {
        let mut l = lines[2].clone();
        l["message"]["content"][0] = json!({"type": "tool_use", "id": id, "name": "Read",
            "input": {"file_path": file}});
        l
    };
    let result = |id: &str, is_error: bool| {
        let mut l = lines[3].clone();
        l["message"]["content"][0]["tool_use_id"] = json!(id);
        l["message"]["content"][0]["is_error"] = json!(is_error);
        l
    };
    let skill_md = "/home/cboos/.claude/skills/pdf-tools/SKILL.md";
    let fixture = vec![
        lines[0].clone(),
        read("toolu_r1", skill_md),
        result("toolu_r1", false),
        read("toolu_r2", skill_md),
        result("toolu_r2", false),
        read("toolu_r3", "/home/cboos/project/README.md"),
        result("toolu_r3", true),
        next_prompt(&lines[0], "next"),
    ];
    let path = ws.root().join("t/read.jsonl");
    write_jsonl(&path, &fixture);
    ingest(&ws, &path);
    // The turn ended on a failed call: the use takes the turn's outcome.
    assert_eq!(invocations(&ws), [("pdf-tools".into(), "failure".into(), Some("via read".into()))]);
}

#[test]
fn codex_shell_reads_of_skill_files_are_uses() {
    let Some(dir) = shared_data("transcripts/codemie-ai__codemie-code/codex") else {
        return skip_or_fail();
    };
    let ws = TestWorkspace::new();
    ingest(&ws, &dir);
    let got = invocations(&ws);
    let read = |s: &str| (s.to_string(), "success".to_string(), Some("via read".to_string()));
    // The turns whose end the rollouts show (the last turn of a rollout closes once the file has
    // been quiet long enough, which these copies may or may not be yet): each skill once per
    // turn, one call that read two files gives two.
    for expected in ["using-superpowers", "brainstorming", "test-driven-development"] {
        assert!(got.contains(&read(expected)), "{expected} missing from {got:?}");
    }
    assert!(got.iter().all(|g| g.1 == "success" && g.2.as_deref() == Some("via read")), "{got:?}");
    let db = Connection::open(ws.db()).unwrap();
    let twice = crate::support::count(
        &db,
        "SELECT count(*) FROM (SELECT turn_id, skill_name FROM skill_invocations
         GROUP BY turn_id, skill_name HAVING count(*) > 1)",
    );
    assert_eq!(twice, 0, "once per skill and turn");
}

#[test]
fn codex_injected_skill_body_is_a_use_of_the_turn_it_precedes() {
    let ws = TestWorkspace::new();
    let line = |kind: &str, payload: Value| json!({"timestamp": "2026-05-11T08:30:00.000Z", "type": kind, "payload": payload});
    let fixture = vec![
        line(
            "session_meta",
            json!({"id": "019e-fixture", "cwd": "/repo", "cli_version": "0.125.0"}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text",
            "text": "<skill>\n<name>release-notes</name>\n<path>/h/.codex/skills/release-notes/SKILL.md</path>\n---\nname: release-notes\n---\nWrite notes.\n</skill>"}]}),
        ),
        line("event_msg", json!({"type": "user_message", "message": "$release-notes for v2"})),
        line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command",
            "arguments": "{\"cmd\":\"git log --oneline\"}", "call_id": "call_1"}),
        ),
        line("event_msg", json!({"type": "exec_command_end", "call_id": "call_1", "exit_code": 0})),
        line("event_msg", json!({"type": "task_complete", "last_agent_message": "Done."})),
    ];
    let path = ws.root().join("sessions/rollout-2026-05-11T08-30-00-019e-fixture.jsonl");
    write_jsonl(&path, &fixture);
    ingest(&ws, &path);
    assert_eq!(
        invocations(&ws),
        [("release-notes".into(), "success".into(), Some("via injected".into()))]
    );
}
