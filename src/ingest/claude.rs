//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl` and subagent files).
//!
//! One API message is spread over several lines sharing `message.id`; each line carries one
//! content block. Tool calls are the `tool_use` blocks of `assistant` lines; `progress` lines
//! embed subagent messages and are not scanned (that would count them twice).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::lenient::Lenient;
use super::parse::{Sink, for_each_line, json_reason};
use super::prompt::{CLAUDE_INTERRUPTION, claude_prompt};
use super::shape::shape_of_valid_json;
use super::skip::without_tool_use_result;
use super::turn::TurnBuilder;

/// Line types Claude Code writes that carry nothing for turns.
const IGNORED_TYPES: &[&str] = &[
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "attachment",
    "last-prompt",
    "custom-title",
    "agent-name",
    "tag",
];

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "sessionId")]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error: Option<bool>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Lenient<Message<'a>>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Other,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    is_error: Option<bool>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct SkillInput<'a> {
    #[serde(borrow)]
    skill: Option<Cow<'a, str>>,
}

/// Parses the new bytes of a Claude Code file into `sink`; returns (next offset, lines read).
pub fn parse(sink: &mut Sink, buf: &[u8], base: u64) -> (u64, u64) {
    // Stream 0: the main conversation; stream 1: sidechain (subagent) lines.
    let mut streams: [Option<TurnBuilder>; 2] = [None, None];
    for open in std::mem::take(&mut sink.out.state.open) {
        let slot = usize::from(open.is_sidechain);
        streams[slot] = Some(TurnBuilder::resume(open));
    }
    let lines_before = sink.lines_before;
    let mut scratch = Vec::new();
    let result = for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        line(sink, &mut streams, bytes, &mut scratch, offset, line_no);
    });
    for turn in streams.into_iter().flatten() {
        sink.settle(turn);
    }
    result
}

fn line(
    sink: &mut Sink,
    streams: &mut [Option<TurnBuilder>; 2],
    bytes: &[u8],
    scratch: &mut Vec<u8>,
    offset: u64,
    line_no: u64,
) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let parsed: Line = match serde_json::from_slice(without_tool_use_result(bytes, scratch)) {
        Ok(l) => l,
        Err(e) => return sink.bad(line_no, json_reason(bytes, &e)),
    };
    let Some(kind) = parsed.kind.as_deref() else {
        return sink.bad(line_no, "object without \"type\"");
    };
    match kind {
        "user" | "assistant" => {}
        k if IGNORED_TYPES.contains(&k) => return,
        k => return sink.unknown(line_no, k),
    }
    let Some(Lenient(Some(message))) = parsed.message else {
        return sink.bad(line_no, format!("{kind} line without a message object"));
    };
    let session = parsed.session_id.as_deref().unwrap_or(sink.path);
    let at = parsed.timestamp.as_deref();
    sink.session(session, parsed.cwd.as_deref(), at);
    let sidechain = parsed.is_sidechain.unwrap_or(false);
    let stream = &mut streams[usize::from(sidechain)];
    if kind == "assistant" {
        let turn =
            stream.get_or_insert_with(|| TurnBuilder::start(session, offset, "", at, sidechain));
        assistant(turn, &message, parsed.is_api_error.unwrap_or(false), at);
        return;
    }
    if parsed.is_meta == Some(true) || parsed.is_compact_summary == Some(true) {
        return;
    }
    let mut text: Option<String> = None;
    let mut has_image = false;
    let mut results: Vec<(&str, bool)> = Vec::new();
    match &message.content {
        Some(Content::Text(t)) => text = Some(t.to_string()),
        Some(Content::Blocks(blocks)) => {
            for b in blocks {
                match b.kind.as_deref() {
                    Some("tool_result") => {
                        if let Some(id) = b.tool_use_id.as_deref() {
                            results.push((id, b.is_error == Some(true)));
                        }
                    }
                    Some("text") => {
                        if let Some(t) = b.text.as_deref() {
                            let p = text.get_or_insert_with(String::new);
                            if !p.is_empty() {
                                p.push('\n');
                            }
                            p.push_str(t);
                        }
                    }
                    Some("image") | Some("document") => has_image = true,
                    _ => {}
                }
            }
        }
        Some(Content::Other) | None => {}
    }
    if !results.is_empty() {
        let turn =
            stream.get_or_insert_with(|| TurnBuilder::start(session, offset, "", at, sidechain));
        for (id, is_error) in results {
            turn.resolve(id, is_error);
        }
        turn.touch(at);
        if let Some(text) = text.as_deref() {
            mark_interruption(turn, text);
        }
        return;
    }
    let text = text.unwrap_or_default();
    if text.trim_start().starts_with(CLAUDE_INTERRUPTION) {
        if let Some(turn) = stream {
            mark_interruption(turn, &text);
            turn.touch(at);
        }
        return;
    }
    // An image pasted without words is still the person asking.
    let Some(prompt) = claude_prompt(&text).or_else(|| has_image.then(String::new)) else {
        return;
    };
    if let Some(previous) = stream.take() {
        sink.close(previous);
    }
    *stream = Some(TurnBuilder::start(session, offset, &prompt, at, sidechain));
}

fn mark_interruption(turn: &mut TurnBuilder, text: &str) {
    if text.trim_start().starts_with(CLAUDE_INTERRUPTION) {
        turn.open.interrupted = true;
    }
}

fn assistant(turn: &mut TurnBuilder, message: &Message, api_error: bool, at: Option<&str>) {
    turn.touch(at);
    if api_error {
        turn.open.api_error = true;
    }
    let id = message.id.as_deref();
    if id.is_none() || turn.open.last_message_id.as_deref() != id {
        turn.open.last_message_id = id.map(str::to_string);
        turn.open.last_stop = None;
    }
    let Some(Content::Blocks(blocks)) = &message.content else {
        if let Some(Content::Text(text)) = &message.content {
            turn.set_summary(text);
        }
        return set_stop(turn, message);
    };
    for b in blocks {
        match b.kind.as_deref() {
            Some("tool_use") => {
                let name = b.name.as_deref().unwrap_or("");
                let input = b.input.map(RawValue::get).unwrap_or("null");
                let skill = if name == "Skill" {
                    serde_json::from_str::<SkillInput>(input)
                        .ok()
                        .and_then(|s| s.skill.map(|s| s.into_owned()))
                } else {
                    None
                };
                turn.add_call(b.id.as_deref(), name, shape_of_valid_json(input), skill, at);
            }
            Some("text") => {
                if let Some(t) = b.text.as_deref() {
                    turn.set_summary(t);
                }
            }
            _ => {}
        }
    }
    set_stop(turn, message);
}

fn set_stop(turn: &mut TurnBuilder, message: &Message) {
    if let Some(stop) = message.stop_reason.as_deref() {
        turn.open.last_stop = Some(stop.to_string());
        if stop == "max_tokens" {
            turn.open.limit_stop = Some("max_tokens".to_string());
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Lenient<Block>>()? {
                    if let Some(b) = b.0 {
                        blocks.push(b);
                    }
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}
