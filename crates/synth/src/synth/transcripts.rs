//! Writers of synthetic transcripts in the on-disk formats skilldeck reads: Claude Code project
//! JSONL, Codex rollout JSONL and the native trajectory JSONL. Deterministic: ids and timestamps
//! come from counters and a fixed clock, so the same scenario gives the same bytes.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

/// One tool call of a scripted turn: name, input, whether its result is an error.
pub struct Call {
    pub name: &'static str,
    pub input: Value,
    pub error: bool,
}

pub fn call(name: &'static str, input: Value) -> Call {
    Call { name, input, error: false }
}

pub fn failing(name: &'static str, input: Value) -> Call {
    Call { name, input, error: true }
}

/// A scripted turn: the user's prompt, the tool calls made, the closing text.
pub struct Turn {
    pub prompt: String,
    pub calls: Vec<Call>,
    pub reply: &'static str,
}

/// Deterministic ids and a clock that advances a few seconds per line.
pub struct Clock {
    now: DateTime<Utc>,
    counter: u64,
    /// Start time in hex: keeps ids unique across files, as real tool-use ids are.
    tag: String,
}

impl Clock {
    pub fn starting(at: DateTime<Utc>) -> Clock {
        Clock { now: at, counter: 0, tag: format!("{:x}", at.timestamp()) }
    }

    fn tick(&mut self) -> String {
        self.now += Duration::seconds(7);
        self.now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    fn id(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    /// A prefixed id such as `toolu_demo<start>x<n>`, unique across the whole demo.
    fn token(&mut self, prefix: &str) -> String {
        let n = self.id();
        format!("{prefix}_demo{}x{n:04}", self.tag)
    }

    pub fn uuid(&mut self) -> String {
        let n = self.id();
        format!("{:08x}-0000-4000-8000-{:012x}", n >> 16, n)
    }
}

/// One `claude -p --output-format stream-json --verbose` run, as such logs append them one after
/// another: an `init` line, the assistant's tool calls and their results (the same message
/// objects as on disk, with `session_id` and `parent_tool_use_id`, no timestamps), a final text
/// and a `result` line. The prompt is not printed.
pub fn stream_json_run(clock: &mut Clock, session_id: &str, cwd: &str, turn: &Turn) -> String {
    let mut out = String::new();
    let mut push = |line: Value| {
        out.push_str(&line.to_string());
        out.push('\n');
    };
    push(json!({"type": "system", "subtype": "init", "session_id": session_id, "cwd": cwd,
        "model": "claude-demo", "claude_code_version": "2.1.14", "tools": ["Bash", "Read", "Edit"]}));
    for c in &turn.calls {
        let tool_id = clock.token("toolu");
        push(json!({"type": "assistant", "session_id": session_id, "parent_tool_use_id": null,
            "message": {"model": "claude-demo", "id": clock.token("msg"), "type": "message",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tool_id, "name": c.name, "input": c.input}],
                "stop_reason": null}}));
        let mut result = json!({"tool_use_id": tool_id, "type": "tool_result",
            "content": if c.error { "Error: command failed" } else { "ok" }});
        if c.error {
            result["is_error"] = json!(true);
        }
        push(json!({"type": "user", "session_id": session_id, "parent_tool_use_id": null,
            "message": {"role": "user", "content": [result]}}));
    }
    push(json!({"type": "assistant", "session_id": session_id, "parent_tool_use_id": null,
        "message": {"model": "claude-demo", "id": clock.token("msg"), "type": "message",
            "role": "assistant", "content": [{"type": "text", "text": turn.reply}],
            "stop_reason": null}}));
    push(json!({"type": "result", "subtype": "success", "is_error": false, "num_turns": 1,
        "duration_ms": 60_000, "total_cost_usd": 0.05, "result": turn.reply,
        "session_id": session_id, "usage": {"input_tokens": 10, "output_tokens": 20}}));
    out
}

/// A Claude Code session file: one content block per line, `message.id` shared by the lines of
/// one API message, tool results in user lines, and a `summary` line the parser must skip.
pub fn claude_session(clock: &mut Clock, session_id: &str, cwd: &str, turns: &[Turn]) -> String {
    let mut out = String::new();
    let mut parent: Option<String> = None;
    let push = |line: Value, out: &mut String| {
        out.push_str(&line.to_string());
        out.push('\n');
    };
    push(json!({"type": "summary", "summary": "Demo session", "leafUuid": clock.uuid()}), &mut out);
    for turn in turns {
        let uuid = clock.uuid();
        push(
            json!({
                "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
                "sessionId": session_id, "version": "2.1.14", "type": "user",
                "message": {"role": "user", "content": turn.prompt},
                "uuid": uuid, "timestamp": clock.tick()
            }),
            &mut out,
        );
        parent = Some(uuid);
        for c in &turn.calls {
            let msg_id = clock.token("msg");
            let tool_id = clock.token("toolu");
            let uuid = clock.uuid();
            push(
                json!({
                    "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
                    "sessionId": session_id, "version": "2.1.14", "type": "assistant",
                    "message": {"model": "claude-demo", "id": msg_id, "type": "message",
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": tool_id, "name": c.name, "input": c.input}],
                        "stop_reason": "tool_use"},
                    "uuid": uuid, "timestamp": clock.tick()
                }),
                &mut out,
            );
            parent = Some(uuid);
            let uuid = clock.uuid();
            let mut result = json!({"tool_use_id": tool_id, "type": "tool_result",
                "content": if c.error { "Error: command failed" } else { "ok" }});
            if c.error {
                result["is_error"] = json!(true);
            }
            push(
                json!({
                    "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
                    "sessionId": session_id, "version": "2.1.14", "type": "user",
                    "message": {"role": "user", "content": [result]},
                    "uuid": uuid, "timestamp": clock.tick()
                }),
                &mut out,
            );
            parent = Some(uuid);
        }
        let uuid = clock.uuid();
        push(
            json!({
                "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": cwd,
                "sessionId": session_id, "version": "2.1.14", "type": "assistant",
                "message": {"model": "claude-demo", "id": clock.token("msg"),
                    "type": "message", "role": "assistant",
                    "content": [{"type": "text", "text": turn.reply}], "stop_reason": "end_turn"},
                "uuid": uuid, "timestamp": clock.tick()
            }),
            &mut out,
        );
        parent = Some(uuid);
    }
    out
}

/// A Codex CLI rollout: `session_meta`, then per turn a user message, `function_call`s whose
/// `arguments` is JSON inside a string, `custom_tool_call` for apply_patch, outputs matched by
/// `call_id`, exit codes in `exec_command_end`, and `task_complete`.
pub fn codex_rollout(clock: &mut Clock, session_id: &str, cwd: &str, turns: &[Turn]) -> String {
    let mut out = String::new();
    let push = |ts: String, kind: &str, payload: Value, out: &mut String| {
        out.push_str(&json!({"timestamp": ts, "type": kind, "payload": payload}).to_string());
        out.push('\n');
    };
    push(
        clock.tick(),
        "session_meta",
        json!({"id": session_id, "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0",
            "source": "cli", "model_provider": "openai"}),
        &mut out,
    );
    for turn in turns {
        let turn_id = clock.uuid();
        push(
            clock.tick(),
            "event_msg",
            json!({"type": "task_started", "turn_id": turn_id}),
            &mut out,
        );
        push(
            clock.tick(),
            "turn_context",
            json!({"turn_id": turn_id, "cwd": cwd, "approval_policy": "on-request"}),
            &mut out,
        );
        push(
            clock.tick(),
            "event_msg",
            json!({"type": "user_message", "message": turn.prompt, "images": []}),
            &mut out,
        );
        push(
            clock.tick(),
            "response_item",
            json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": turn.prompt}]}),
            &mut out,
        );
        for c in &turn.calls {
            let call_id = clock.token("call");
            let code = if c.error { 1 } else { 0 };
            if c.name == "apply_patch" {
                let patch = c.input.as_str().unwrap_or("*** Begin Patch\n*** End Patch\n");
                push(
                    clock.tick(),
                    "response_item",
                    json!({"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                        "name": "apply_patch", "input": patch}),
                    &mut out,
                );
                push(
                    clock.tick(),
                    "response_item",
                    json!({"type": "custom_tool_call_output", "call_id": call_id,
                        "output": json!({"output": "Success.", "metadata": {"exit_code": code}}).to_string()}),
                    &mut out,
                );
                continue;
            }
            push(
                clock.tick(),
                "response_item",
                json!({"type": "function_call", "name": c.name,
                    "arguments": c.input.to_string(), "call_id": call_id}),
                &mut out,
            );
            push(
                clock.tick(),
                "event_msg",
                json!({"type": "exec_command_end", "call_id": call_id, "turn_id": turn_id,
                    "exit_code": code, "stdout": "", "stderr": ""}),
                &mut out,
            );
            push(
                clock.tick(),
                "response_item",
                json!({"type": "function_call_output", "call_id": call_id,
                    "output": format!("Process exited with code {code}\nOutput:\n")}),
                &mut out,
            );
        }
        push(
            clock.tick(),
            "response_item",
            json!({"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": turn.reply}]}),
            &mut out,
        );
        push(
            clock.tick(),
            "event_msg",
            json!({"type": "task_complete", "turn_id": turn_id, "last_agent_message": turn.reply}),
            &mut out,
        );
    }
    out
}

/// One native trajectory line: the `TurnTrajectory` fields.
pub fn native_line(
    clock: &mut Clock,
    user_input: &str,
    picked_skill: Option<&str>,
    success: bool,
    summary: &str,
) -> String {
    let mut line = json!({
        "user_input": user_input,
        "picked_skill": picked_skill,
        "outcome": if success { "success" } else { "failure" },
        "summary": summary,
        "timestamp": clock.tick(),
    })
    .to_string();
    line.push('\n');
    line
}
