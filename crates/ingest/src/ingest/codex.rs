//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! A prompt is an `event_msg` `user_message`; tool calls are `response_item`s of type
//! `function_call` (its `arguments` is JSON inside a JSON string), `custom_tool_call` (raw text
//! input) and `web_search_call`. There is no error flag: a call failed when `exec_command_end`
//! reports a non-zero `exit_code`, its output opens with `Exit code: N` or says `Process exited
//! with code N` (N ≠ 0), carries `"exit_code": N` metadata, or says a patch failed verification.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parse::{Sink, for_each_line, json_reason};
use super::prompt::codex_prompt;
use super::shape::shape_of_json;
use super::turn::TurnBuilder;
use crate::step;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<Payload<'a>>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
    /// A custom tool call's raw input (`apply_patch`'s patch).
    #[serde(borrow)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    exit_code: Option<i64>,
    success: Option<bool>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    last_agent_message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    /// `turn_context`: the model the turns that follow run on.
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ContentItem<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

/// The command of a shell tool call's arguments (`cmd` string, or `command` string or argv).
#[derive(Deserialize)]
struct ShellArgs {
    cmd: Option<String>,
    command: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct OutputObject<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    success: Option<bool>,
}

/// Skill bodies Codex injected for the turn about to start: Codex writes them before the
/// `user_message` event that starts it, so they wait for it (or for the next tool call).
type Injected = Vec<(String, String, Option<String>)>;

pub fn parse(sink: &mut Sink, buf: &[u8], base: u64) -> (u64, u64) {
    let mut parser = Parser::new(sink);
    let lines_before = sink.lines_before;
    let result = for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        parser.line(sink, bytes, offset, line_no);
    });
    parser.finish(sink);
    result
}

/// The parse of one rollout's new bytes fed line by line: the open turn and the skill bodies
/// waiting for it, settled by [`Parser::finish`] after the last line.
pub struct Parser {
    turn: Option<TurnBuilder>,
    injected: Injected,
}

impl Parser {
    pub fn new(sink: &mut Sink) -> Parser {
        let turn =
            std::mem::take(&mut sink.out.state.open).into_iter().next().map(TurnBuilder::resume);
        Parser { turn, injected: Injected::new() }
    }

    pub fn line(&mut self, sink: &mut Sink, bytes: &[u8], offset: u64, line_no: u64) {
        line(sink, &mut self.turn, &mut self.injected, bytes, offset, line_no);
    }

    pub fn finish(mut self, sink: &mut Sink) {
        if let Some(mut t) = self.turn {
            take_injected(&mut t, &mut self.injected);
            sink.settle(t);
        }
    }
}

fn take_injected(turn: &mut TurnBuilder, injected: &mut Injected) {
    for (skill, id, at) in injected.drain(..) {
        turn.add_use(&skill, id, "injected", at.as_deref());
    }
}

fn line(
    sink: &mut Sink,
    turn: &mut Option<TurnBuilder>,
    injected: &mut Injected,
    bytes: &[u8],
    offset: u64,
    line_no: u64,
) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let parsed: Line = match serde_json::from_slice(bytes) {
        Ok(l) => l,
        Err(e) => return sink.bad(line_no, json_reason(bytes, &e)),
    };
    let Some(kind) = parsed.kind.as_deref() else {
        return sink.bad(line_no, "object without \"type\"");
    };
    let at = parsed.timestamp.as_deref();
    let Some(p) = parsed.payload else {
        return match kind {
            "session_meta" | "response_item" | "event_msg" => {
                sink.bad(line_no, format!("{kind} line without a payload"))
            }
            "turn_context" | "compacted" => {}
            other => sink.unknown(line_no, other),
        };
    };
    match kind {
        "session_meta" => {
            if let Some(id) = p.id.as_deref() {
                sink.out.state.session_key = Some(id.to_string());
            }
            if let Some(cwd) = p.cwd.as_deref() {
                sink.out.state.project = Some(cwd.to_string());
            }
            let key = session_key(sink);
            let project = sink.out.state.project.clone();
            sink.session(&key, project.as_deref(), at);
        }
        "response_item" => response_item(sink, turn, injected, &p, offset, at),
        "event_msg" => {
            event(sink, turn, &p, offset, at);
            if let Some(t) = turn.as_mut()
                && p.kind.as_deref() == Some("user_message")
            {
                take_injected(t, injected);
            }
        }
        "turn_context" => {
            if let Some(m) = p.model.as_deref() {
                super::parse::set_reusing(&mut sink.out.state.model, m);
            }
        }
        "compacted" => {}
        other => sink.unknown(line_no, other),
    }
    if let Some(t) = turn.as_mut()
        && t.open.model.is_none()
    {
        t.open.model.clone_from(&sink.out.state.model);
    }
}

fn session_key(sink: &Sink) -> String {
    sink.out.state.session_key.clone().unwrap_or_else(|| sink.path.to_string())
}

fn current<'t>(
    sink: &mut Sink,
    turn: &'t mut Option<TurnBuilder>,
    offset: u64,
    at: Option<&str>,
) -> &'t mut TurnBuilder {
    let key = session_key(sink);
    let project = sink.out.state.project.clone();
    sink.session(&key, project.as_deref(), at);
    let t = turn.get_or_insert_with(|| TurnBuilder::start(&key, offset, "", at, false));
    t.touch(at);
    t
}

fn response_item(
    sink: &mut Sink,
    turn: &mut Option<TurnBuilder>,
    injected: &mut Injected,
    p: &Payload,
    offset: u64,
    at: Option<&str>,
) {
    if !injected.is_empty()
        && matches!(p.kind.as_deref(), Some("function_call" | "custom_tool_call"))
    {
        take_injected(current(sink, turn, offset, at), injected);
    }
    match p.kind.as_deref() {
        Some("function_call") => {
            let arguments = p.arguments.as_deref().unwrap_or("null");
            let shape = shape_of_json(arguments);
            let name = p.name.as_deref().unwrap_or("");
            let step = step::of_call(name, arguments.as_bytes(), sink.out.state.project.as_deref());
            let t = current(sink, turn, offset, at);
            t.add_call(p.call_id.as_deref(), name, shape, step, None, at);
            for skill in skills_read(arguments) {
                let id = format!("read:{}:{skill}", p.call_id.as_deref().unwrap_or(""));
                t.add_use(&skill, id, "read", at);
            }
        }
        Some("message") if p.role.as_deref() == Some("user") => {
            if let Some((skill, _path)) = p.content.and_then(injected_skill) {
                let id = format!("injected:{}:{offset}", session_key(sink));
                injected.push((skill, id, at.map(str::to_string)));
            }
        }
        Some("custom_tool_call") => {
            let name = p.name.as_deref().unwrap_or("");
            let shape = "\"string\"".to_string();
            let input = p.input.as_deref().unwrap_or("");
            let step = step::of_call(name, input.as_bytes(), sink.out.state.project.as_deref());
            let id = p.call_id.as_deref();
            current(sink, turn, offset, at).add_call(id, name, shape, step, None, at);
        }
        Some("web_search_call") => {
            let shape = "{}".to_string();
            let id = p.call_id.as_deref();
            let step = step::CallStep { step: "tool:web_search".into(), detail: None };
            current(sink, turn, offset, at).add_call(id, "web_search", shape, step, None, at);
        }
        Some("function_call_output") | Some("custom_tool_call_output") => {
            let Some(id) = p.call_id.as_deref() else { return };
            let failed = p.success == Some(false) || p.output.is_some_and(output_failed);
            current(sink, turn, offset, at).resolve(id, failed);
        }
        _ => {}
    }
}

fn event(
    sink: &mut Sink,
    turn: &mut Option<TurnBuilder>,
    p: &Payload,
    offset: u64,
    at: Option<&str>,
) {
    match p.kind.as_deref() {
        Some("user_message") => {
            let Some(text) = codex_prompt(p.message.as_deref().unwrap_or("")) else { return };
            if let Some(previous) = turn.take() {
                sink.close(previous);
            }
            let key = session_key(sink);
            let project = sink.out.state.project.clone();
            sink.session(&key, project.as_deref(), at);
            *turn = Some(TurnBuilder::start(&key, offset, text, at, false));
        }
        Some("exec_command_end") => {
            let Some(id) = p.call_id.as_deref() else { return };
            let failed = p.exit_code.is_some_and(|c| c != 0);
            current(sink, turn, offset, at).resolve(id, failed);
        }
        Some("agent_message") => {
            if let Some(m) = p.message.as_deref() {
                current(sink, turn, offset, at).set_summary(m);
            }
        }
        Some("task_complete") => {
            let t = current(sink, turn, offset, at);
            if let Some(m) = p.last_agent_message.as_deref() {
                t.set_summary(m);
            }
            t.open.ended = true;
        }
        Some("turn_aborted") => {
            let t = current(sink, turn, offset, at);
            t.open.interrupted = true;
            t.open.ended = true;
        }
        Some("error") | Some("stream_error") => {
            current(sink, turn, offset, at).open.api_error = true
        }
        _ => {}
    }
}

/// Skills whose SKILL.md a shell call reads.
fn skills_read(arguments: &str) -> Vec<String> {
    if memchr::memmem::find(arguments.as_bytes(), b"SKILL.md").is_none() {
        return Vec::new();
    }
    let Ok(args) = serde_json::from_str::<ShellArgs>(arguments) else { return Vec::new() };
    let command = match (args.cmd, args.command) {
        (Some(cmd), _) => cmd,
        (None, Some(serde_json::Value::String(s))) => s,
        (None, Some(serde_json::Value::Array(argv))) => {
            // `["bash", "-lc", "cat …"]`: the script is the last word.
            argv.last().and_then(|v| v.as_str()).unwrap_or("").to_string()
        }
        _ => return Vec::new(),
    };
    super::skill_use::skills_read_by_command(&command)
}

/// A skill body Codex injected as a user message:
/// `<skill>\n<name>NAME</name>\n<path>PATH</path>\n…</skill>`.
fn injected_skill(content: &RawValue) -> Option<(String, String)> {
    memchr::memmem::find(content.get().as_bytes(), b"<skill>")?;
    let items: Vec<ContentItem> = serde_json::from_str(content.get()).ok()?;
    let text = items.iter().find_map(|i| i.text.as_deref())?.trim_start();
    let rest = text.strip_prefix("<skill>")?.trim_start();
    let name = rest.strip_prefix("<name>")?.split_once("</name>")?.0.trim();
    let path = rest
        .split_once("<path>")
        .and_then(|(_, r)| r.split_once("</path>"))
        .map_or("", |(p, _)| p.trim());
    let name = super::skill_use::folder_name(name)?;
    Some((name, path.to_string()))
}

/// Whether a tool output says its process failed.
fn output_failed(raw: &RawValue) -> bool {
    let text = raw.get();
    if text.starts_with('{') {
        return match serde_json::from_str::<OutputObject>(text) {
            Ok(o) => o.success == Some(false) || o.content.as_deref().is_some_and(text_failed),
            Err(_) => false,
        };
    }
    match serde_json::from_str::<Cow<str>>(text) {
        Ok(s) => text_failed(&s),
        Err(_) => false,
    }
}

/// Exit code in the head of an output text: `Exit code: N` opening it (`shell_command`, Codex
/// 0.92 on), `Process exited with code N` or `"exit_code":N`; or a patch Codex refused to apply.
fn text_failed(text: &str) -> bool {
    if let Some(rest) = text.strip_prefix("Exit code: ") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        if let Ok(code) = digits.parse::<i64>() {
            return code != 0;
        }
    }
    if text.starts_with("apply_patch verification failed") {
        return true;
    }
    let head = &text.as_bytes()[..text.len().min(600)];
    for marker in [&b"Process exited with code "[..], &b"\"exit_code\":"[..]] {
        if let Some(pos) = memchr::memmem::find(head, marker) {
            let digits: String = head[pos + marker.len()..]
                .iter()
                .skip_while(|b| **b == b' ')
                .take_while(|b| b.is_ascii_digit() || **b == b'-')
                .map(|b| *b as char)
                .collect();
            if let Ok(code) = digits.parse::<i64>() {
                return code != 0;
            }
        }
    }
    // An apply_patch output is JSON text whose metadata sits at its end.
    if !text.starts_with("{\"output\"") {
        return false;
    }
    if let Some(pos) = memchr::memmem::rfind(text.as_bytes(), b"\"exit_code\":") {
        let rest = &text[pos + 12..];
        let digits: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
        return digits.parse::<i64>().is_ok_and(|c| c != 0);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_skill_bodies_name_their_skill() {
        let raw = serde_json::value::to_raw_value(&serde_json::json!([{"type": "input_text",
            "text": "<skill>\n<name>demo-skill</name>\n<path>/h/.codex/skills/demo/SKILL.md</path>\nbody\n</skill>"}]))
        .unwrap();
        let (name, path) = injected_skill(&raw).unwrap();
        assert_eq!(
            (name.as_str(), path.as_str()),
            ("demo-skill", "/h/.codex/skills/demo/SKILL.md")
        );
        let plain = serde_json::value::to_raw_value(
            &serde_json::json!([{"type": "input_text", "text": "hi"}]),
        )
        .unwrap();
        assert!(injected_skill(&plain).is_none());
    }

    #[test]
    fn exit_codes_in_output_text() {
        assert!(text_failed("Chunk ID: 1\nProcess exited with code 2\nOutput:"));
        assert!(!text_failed("Chunk ID: 1\nProcess exited with code 0\nOutput: code 1"));
        assert!(text_failed(r#"{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1}}"#));
        assert!(!text_failed("plain output"));
        assert!(text_failed("Exit code: 127\nWall time: 0 seconds\nOutput:\nbash: bd: not found"));
        assert!(!text_failed("Exit code: 0\nWall time: 1 seconds\nOutput:\nExit code: 1"));
        assert!(text_failed(
            "apply_patch verification failed: Failed to find expected lines in a.md"
        ));
        assert!(!text_failed("Output:\nExit code: 3"));
    }
}
