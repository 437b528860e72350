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
use super::scan;
use super::shape::{TooDeep, shape_of_valid_json};
use super::turn::TurnBuilder;
use crate::detect::step;

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

// The structs are read by serde_json, or field by field by `fast_line`: both must agree.
#[derive(Deserialize, Default, Debug, PartialEq)]
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
    /// On the skill body Claude Code injects after a `Skill` tool call: that call's id.
    #[serde(borrow, rename = "sourceToolUseID")]
    source_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

#[derive(Debug, PartialEq)]
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Other,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    /// The input's JSON text, kept as bytes: only its shape and a Skill's name are read.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    input: Option<&'a [u8]>,
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

fn raw_json<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de [u8]>, D::Error> {
    Ok(Option::<&'de RawValue>::deserialize(d)?.map(|raw| raw.get().as_bytes()))
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
    let mut quotes = scan::Quotes::default();
    let result = for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        line(sink, &mut streams, bytes, &mut quotes, offset, line_no);
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
    quotes: &mut scan::Quotes,
    offset: u64,
    line_no: u64,
) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    quotes.index(bytes);
    let parsed = match fast_line(bytes, quotes) {
        Some(l) => l,
        None => match serde_json::from_slice::<Line>(bytes) {
            Ok(l) => l,
            Err(e) => return sink.bad(line_no, json_reason(bytes, &e)),
        },
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
        let shapes = match call_shapes(&message) {
            Ok(shapes) => shapes,
            Err(e) => return sink.bad(line_no, e.to_string()),
        };
        let turn =
            stream.get_or_insert_with(|| TurnBuilder::start(session, offset, "", at, sidechain));
        let api_error = parsed.is_api_error.unwrap_or(false);
        assistant(turn, &message, shapes, api_error, at, parsed.cwd.as_deref());
        return;
    }
    if parsed.is_meta == Some(true) {
        // The body of a skill the user called as `/name` (a `Skill` call's body names its call).
        if parsed.source_tool_use_id.is_none()
            && let Some(skill) = message.content.as_ref().and_then(slash_skill)
        {
            let id = parsed
                .uuid
                .as_deref()
                .map_or_else(|| format!("{}:{offset}", sink.path), str::to_string);
            // The person asked for the skill: that starts a turn, as a prompt would (the
            // `<command-name>` line before it starts none).
            if let Some(previous) = stream.take() {
                sink.close(previous);
            }
            let mut turn = TurnBuilder::start(session, offset, &format!("/{skill}"), at, sidechain);
            turn.add_use(&skill, format!("slash:{id}"), "slash", at);
            *stream = Some(turn);
        }
        return;
    }
    if parsed.is_compact_summary == Some(true) {
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

/// Reads a line with the structural scanner, stepping over the values no field needs (two
/// thirds of the bytes are tool results, repeated in `toolUseResult`) without decoding them.
/// `None` for anything it does not read exactly as serde_json would (escaped or repeated keys,
/// a field of an unexpected kind, broken structure): serde_json reads those lines instead.
fn fast_line<'a>(bytes: &'a [u8], quotes: &'a scan::Quotes) -> Option<Line<'a>> {
    let mut line = Line::default();
    let mut seen = Seen::default();
    scan::Value::top(bytes, quotes).whole(|v| {
        let end = v.members(|key, v| match key {
            b"type" => seen.read(0, &mut line.kind, v.opt_str()),
            b"sessionId" => seen.read(1, &mut line.session_id, v.opt_str()),
            b"isSidechain" => seen.read(2, &mut line.is_sidechain, v.opt_bool()),
            b"isMeta" => seen.read(3, &mut line.is_meta, v.opt_bool()),
            b"isCompactSummary" => seen.read(4, &mut line.is_compact_summary, v.opt_bool()),
            b"isApiErrorMessage" => seen.read(5, &mut line.is_api_error, v.opt_bool()),
            b"timestamp" => seen.read(6, &mut line.timestamp, v.opt_str()),
            b"cwd" => seen.read(7, &mut line.cwd, v.opt_str()),
            b"message" => seen.read(8, &mut line.message, fast_message(v)),
            b"sourceToolUseID" => seen.read(9, &mut line.source_tool_use_id, v.opt_str()),
            b"uuid" => seen.read(10, &mut line.uuid, v.opt_str()),
            k if k.contains(&b'\\') => None,
            _ => v.skip(),
        })?;
        Some(((), end))
    })?;
    Some(line)
}

fn fast_message(v: scan::Value<'_>) -> Option<(Option<Lenient<Message<'_>>>, usize)> {
    match v.kind()? {
        b'n' => return Some((None, v.skip()?)),
        b'{' => {}
        _ => return Some((Some(Lenient(None)), v.skip()?)),
    }
    let mut message = Message::default();
    let mut seen = Seen::default();
    let end = v.members(|key, v| match key {
        b"id" => seen.read(0, &mut message.id, v.opt_str()),
        b"stop_reason" => seen.read(1, &mut message.stop_reason, v.opt_str()),
        b"content" => seen.read(2, &mut message.content, fast_content(v)),
        k if k.contains(&b'\\') => None,
        _ => v.skip(),
    })?;
    Some((Some(Lenient(Some(message))), end))
}

fn fast_content(v: scan::Value<'_>) -> Option<(Option<Content<'_>>, usize)> {
    match v.kind()? {
        b'n' => Some((None, v.skip()?)),
        b'"' => {
            let (text, end) = v.opt_str()?;
            Some((text.map(Content::Text), end))
        }
        b'[' => {
            let mut blocks = Vec::new();
            let end = v.elements(|v| {
                if v.kind() != Some(b'{') {
                    return v.skip();
                }
                let (block, end) = fast_block(v)?;
                blocks.push(block);
                Some(end)
            })?;
            Some((Some(Content::Blocks(blocks)), end))
        }
        _ => Some((Some(Content::Other), v.skip()?)),
    }
}

fn fast_block(v: scan::Value<'_>) -> Option<(Block<'_>, usize)> {
    let mut block = Block::default();
    let mut seen = Seen::default();
    let end = v.members(|key, v| match key {
        b"type" => seen.read(0, &mut block.kind, v.opt_str()),
        b"id" => seen.read(1, &mut block.id, v.opt_str()),
        b"name" => seen.read(2, &mut block.name, v.opt_str()),
        b"input" => seen.read(3, &mut block.input, v.opt_raw()),
        b"tool_use_id" => seen.read(4, &mut block.tool_use_id, v.opt_str()),
        b"is_error" => seen.read(5, &mut block.is_error, v.opt_bool()),
        b"text" => seen.read(6, &mut block.text, v.opt_str()),
        k if k.contains(&b'\\') => None,
        _ => v.skip(),
    })?;
    Some((block, end))
}

/// The fields already read from one object: serde_json refuses a repeated field.
#[derive(Default)]
struct Seen(u16);

impl Seen {
    /// Stores a field's value read by the scanner (`read`: the value and the offset past it)
    /// in `slot`; `None` when the field was seen before or could not be read.
    fn read<T>(&mut self, field: u8, slot: &mut T, read: Option<(T, usize)>) -> Option<usize> {
        let bit = 1 << field;
        if self.0 & bit != 0 {
            return None;
        }
        self.0 |= bit;
        let (value, end) = read?;
        *slot = value;
        Some(end)
    }
}

fn mark_interruption(turn: &mut TurnBuilder, text: &str) {
    if text.trim_start().starts_with(CLAUDE_INTERRUPTION) {
        turn.open.interrupted = true;
    }
}

/// The input shape of each `tool_use` block, in order; `TooDeep` refuses the whole line.
fn call_shapes(message: &Message) -> Result<Vec<String>, TooDeep> {
    let Some(Content::Blocks(blocks)) = &message.content else {
        return Ok(Vec::new());
    };
    blocks
        .iter()
        .filter(|b| b.kind.as_deref() == Some("tool_use"))
        .map(|b| shape_of_valid_json(b.input.unwrap_or(b"null")))
        .collect()
}

fn assistant(
    turn: &mut TurnBuilder,
    message: &Message,
    shapes: Vec<String>,
    api_error: bool,
    at: Option<&str>,
    cwd: Option<&str>,
) {
    let mut shapes = shapes.into_iter();
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
                let input = b.input.unwrap_or(b"null");
                let skill = if name == "Skill" {
                    serde_json::from_slice::<SkillInput>(input)
                        .ok()
                        .and_then(|s| s.skill.map(|s| s.into_owned()))
                } else {
                    None
                };
                let shape = shapes.next().unwrap_or_default();
                let step = step::of_call(name, input, cwd);
                turn.add_call(b.id.as_deref(), name, shape, step, skill, at);
                if name == "Read"
                    && let Some(skill) = read_skill(input)
                {
                    let id = format!("read:{}", b.id.as_deref().unwrap_or(""));
                    turn.add_use(&skill, id, "read", at);
                }
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

/// What Claude Code writes first in a skill body it injects.
const SKILL_BODY_PREFIX: &str = "Base directory for this skill: ";

/// The skill a meta line's body belongs to: the last component of its base directory.
fn slash_skill(content: &Content) -> Option<String> {
    let text = match content {
        Content::Text(t) => t.as_ref(),
        Content::Blocks(blocks) => blocks.iter().find_map(|b| b.text.as_deref())?,
        Content::Other => return None,
    };
    let dir = text.strip_prefix(SKILL_BODY_PREFIX)?.lines().next()?.trim();
    super::skill_use::folder_name(dir.trim_end_matches(['/', '\\']))
}

/// The skill whose SKILL.md a `Read` call reads (`…/skills/<name>/SKILL.md`).
fn read_skill(input: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct ReadInput<'a> {
        #[serde(borrow)]
        file_path: Option<Cow<'a, str>>,
    }
    let path = serde_json::from_slice::<ReadInput>(input).ok()?.file_path?;
    super::skill_use::skill_of_skill_md(&path)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Both readers of a line agree: the fast one reads it exactly as serde_json does, or
    /// leaves it to serde_json. Returns whether the fast one read it.
    fn agree(line: &[u8]) -> bool {
        let slow = serde_json::from_slice::<Line>(line).ok();
        let mut quotes = scan::Quotes::default();
        quotes.index(line);
        match fast_line(line, &quotes) {
            Some(fast) => {
                assert_eq!(Some(&fast), slow.as_ref(), "{}", String::from_utf8_lossy(line));
                true
            }
            None => false,
        }
    }

    fn jsonl_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                jsonl_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_fast_reader_reads_every_real_line_as_serde_json_does() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/transcripts");
        if !root.exists() {
            eprintln!(
                "SKIP: {} is absent (the shared real-data folder is not beside this repo)",
                root.display()
            );
            return;
        }
        let mut files = Vec::new();
        jsonl_files(&root, &mut files);
        let (mut lines, mut fast, mut valid) = (0, 0, 0);
        for file in files.iter().filter(|f| !f.to_string_lossy().contains("codex")) {
            let bytes = std::fs::read(file).unwrap();
            for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                lines += 1;
                valid += usize::from(serde_json::from_slice::<Line>(line).is_ok());
                fast += usize::from(agree(line));
                // Every cut-off line is refused, or read as serde_json reads it.
                if lines % 7 == 0 {
                    for cut in (1..line.len()).step_by(line.len() / 50 + 1) {
                        agree(&line[..cut]);
                    }
                }
            }
        }
        assert!(lines > 3000, "{lines} lines");
        // Every line serde_json reads, the fast reader reads too: none goes the slow way.
        assert_eq!(fast, valid, "of {lines} lines");
    }

    #[test]
    fn odd_lines_go_to_serde_json_or_read_alike() {
        let read_fast = [
            r#"{"type":"user","message":{"content":"hi"}}"#,
            r#"{"type":"user","message":"text, not an object"}"#,
            r#"{"type":"user","message":null,"cwd":null}"#,
            r#"{"type":"user","message":{"content":{"odd":1}}}"#,
            r#"{"type":"user","message":{"content":[1,null,{"type":"text","text":"a\"b"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"x"}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","input":null}]}}"#,
            r#" {"type" : "user" , "isMeta" : true} "#,
            r#"{"type":"user","toolUseResult":{"deep":[[[{"a":"]}"}]]]}}"#,
        ];
        for line in read_fast {
            assert!(agree(line.as_bytes()), "{line}");
        }
        let left_to_serde = [
            r#"{"type":"user","type":"assistant"}"#,
            r#"{"typ\u0065":"user"}"#,
            r#"{"type":7}"#,
            r#"{"type":"user","isMeta":"yes"}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","is_error":1}]}}"#,
            r#"{"type":"user","message":{"id":1}}"#,
            r#"{"type":"user"} trailing"#,
            r#"{"type":"user","x":[1,}"#,
            r#"["type","user"]"#,
            "\"bare\"",
        ];
        for line in left_to_serde {
            assert!(!agree(line.as_bytes()), "{line}");
        }
    }
}
