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

use super::lenient::{Lenient, lenient_bool, lenient_str};
use super::parse::{Sink, for_each_line, json_reason};
use super::prompt::{CLAUDE_INTERRUPTION, claude_prompt};
use super::scan;
use super::shape::{ShapeAndMembers, TooDeep, shape_and_members};
use super::turn::TurnBuilder;
use crate::step;

/// Longest model name kept; a longer one is not a model name.
const MAX_MODEL: usize = 200;

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
pub(super) struct Line<'a> {
    #[serde(rename = "type", default, deserialize_with = "lenient_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", default, deserialize_with = "lenient_str")]
    pub(super) session_id: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default, deserialize_with = "lenient_bool")]
    pub(super) is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default, deserialize_with = "lenient_bool")]
    pub(super) is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default, deserialize_with = "lenient_bool")]
    pub(super) is_compact_summary: Option<bool>,
    #[serde(rename = "isApiErrorMessage", default, deserialize_with = "lenient_bool")]
    pub(super) is_api_error: Option<bool>,
    #[serde(default, deserialize_with = "lenient_str")]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    pub(super) cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) message: Option<Lenient<Message<'a>>>,
    /// On the skill body Claude Code injects after a `Skill` tool call: that call's id.
    #[serde(rename = "sourceToolUseID", default, deserialize_with = "lenient_str")]
    pub(super) source_tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    pub(super) uuid: Option<Cow<'a, str>>,
    /// A `system` line's kind: `turn_duration` and `stop_hook_summary` close the turn.
    #[serde(default, deserialize_with = "lenient_str")]
    pub(super) subtype: Option<Cow<'a, str>>,
    /// An `ai-title` line's title of the session.
    #[serde(rename = "aiTitle", default, deserialize_with = "lenient_str")]
    pub(super) ai_title: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
pub(super) struct Message<'a> {
    #[serde(default, deserialize_with = "lenient_str")]
    id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(default, deserialize_with = "lenient_str")]
    model: Option<Cow<'a, str>>,
    /// The API's token counts, kept as JSON text: read only on assistant lines.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    usage: Option<&'a [u8]>,
}

#[derive(Debug, PartialEq)]
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Other,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
struct Block<'a> {
    #[serde(rename = "type", default, deserialize_with = "lenient_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    name: Option<Cow<'a, str>>,
    /// The input's JSON text, kept as bytes: only its shape and the members a step reads are.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    input: Option<&'a [u8]>,
    #[serde(default, deserialize_with = "lenient_str")]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_bool")]
    is_error: Option<bool>,
    #[serde(default, deserialize_with = "lenient_str")]
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
    let mut parser = Parser::new(sink);
    let lines_before = sink.lines_before;
    let result = for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        parser.line(sink, bytes, offset, line_no);
    });
    parser.finish(sink);
    result
}

/// The parse of one file's new bytes fed line by line (as a chunked read hands them on): the
/// turns still open between lines, settled by [`Parser::finish`] after the last.
pub struct Parser {
    streams: [Option<TurnBuilder>; 2],
    quotes: scan::Quotes,
}

impl Parser {
    pub fn new(sink: &mut Sink) -> Parser {
        Parser { streams: resume_streams(sink), quotes: scan::Quotes::default() }
    }

    pub fn line(&mut self, sink: &mut Sink, bytes: &[u8], offset: u64, line_no: u64) {
        let text = simdutf8::basic::from_utf8(bytes).ok();
        line(sink, &mut self.streams, bytes, text, &mut self.quotes, offset, line_no);
    }

    /// `line` for a line already read as text (the chunked reader checks each line's UTF-8).
    pub fn line_str(&mut self, sink: &mut Sink, text: &str, offset: u64, line_no: u64) {
        line(
            sink,
            &mut self.streams,
            text.as_bytes(),
            Some(text),
            &mut self.quotes,
            offset,
            line_no,
        );
    }

    pub fn finish(self, sink: &mut Sink) {
        for turn in self.streams.into_iter().flatten() {
            sink.settle(turn);
        }
    }
}

/// The turns an earlier run left open: stream 0 is the main conversation, stream 1 the
/// sidechain (subagent) lines.
pub(super) fn resume_streams(sink: &mut Sink) -> [Option<TurnBuilder>; 2] {
    let mut streams: [Option<TurnBuilder>; 2] = [None, None];
    for open in std::mem::take(&mut sink.out.state.open) {
        let slot = usize::from(open.is_sidechain);
        streams[slot] = Some(TurnBuilder::resume(open));
    }
    streams
}

fn line(
    sink: &mut Sink,
    streams: &mut [Option<TurnBuilder>; 2],
    bytes: &[u8],
    text: Option<&str>,
    quotes: &mut scan::Quotes,
    offset: u64,
    line_no: u64,
) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    quotes.index(bytes);
    let mut repaired = Vec::new();
    let parsed = match read_line(bytes, text, quotes, &mut repaired) {
        Ok(l) => l,
        Err(reason) => return sink.bad(line_no, reason),
    };
    apply(sink, streams, parsed, offset, line_no);
}

/// Applies one read line (a Claude Code line, or a stream-json line in the same terms) to the
/// file's turn streams.
pub(super) fn apply(
    sink: &mut Sink,
    streams: &mut [Option<TurnBuilder>; 2],
    parsed: Line,
    offset: u64,
    line_no: u64,
) {
    let Some(kind) = parsed.kind.as_deref() else {
        return sink.bad(line_no, "object without \"type\"");
    };
    match kind {
        "user" | "assistant" => {}
        // Claude Code notes the end of a turn (its duration, the Stop hooks run): the turn is
        // complete even while the file is still fresh.
        "system"
            if matches!(parsed.subtype.as_deref(), Some("turn_duration" | "stop_hook_summary")) =>
        {
            if let Some(turn) = streams[0].as_mut() {
                turn.open.ended = true;
            }
            return;
        }
        // Claude Code's own title of the session, a model's summary of what was asked: evidence
        // of the work, in words even when the prompts are menu codes or another language.
        "ai-title" => {
            if let (Some(session), Some(title)) = (parsed.session_id.as_deref(), parsed.ai_title) {
                sink.title(session, &title);
            }
            return;
        }
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

/// Reads a line as a JSON object is read whole (serde_json's `Value`): the structural scanner
/// first, serde_json for what it refuses. Only objects are lines (a struct would also be read
/// from an array of its values). A repeated key counts once, with its last value, and a lone
/// surrogate escape is read as U+FFFD: those lines are rewritten into `repaired` and read again.
fn read_line<'a>(
    bytes: &'a [u8],
    text: Option<&'a str>,
    quotes: &'a scan::Quotes,
    repaired: &'a mut Vec<u8>,
) -> Result<Line<'a>, String> {
    let top = match text {
        Some(text) => scan::Value::top_str(text, quotes),
        None => scan::Value::top(bytes, quotes),
    };
    if let Some(line) = fast_line(top) {
        return Ok(line);
    }
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(
            match serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(bytes) {
                Err(e) => json_reason(bytes, &e),
                Ok(_) => "not a JSON object".to_string(),
            },
        );
    }
    let e = match serde_json::from_slice::<Line>(bytes) {
        Ok(line) => return Ok(line),
        Err(e) => e,
    };
    let Some(normal) = normalized(bytes) else { return Err(json_reason(bytes, &e)) };
    *repaired = normal;
    let repaired: &'a Vec<u8> = repaired;
    serde_json::from_slice::<Line>(repaired).map_err(|_| json_reason(bytes, &e))
}

/// The line as a JSON object read whole and written again (one value per key, the last; lone
/// surrogate escapes as U+FFFD), or `None` when it is not a JSON object.
fn normalized(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = super::parse::without_lone_surrogates(bytes);
    let value: serde_json::Value = serde_json::from_slice(text.as_deref().unwrap_or(bytes)).ok()?;
    value.is_object().then(|| serde_json::to_vec(&value).ok()).flatten()
}

/// Reads a line with the structural scanner, stepping over the values no field needs (two
/// thirds of the bytes are tool results, repeated in `toolUseResult`) without decoding them.
/// `None` for anything it does not read exactly as serde_json would (escaped or repeated keys,
/// a field of an unexpected kind, broken structure): serde_json reads those lines instead.
fn fast_line(top: scan::Value<'_>) -> Option<Line<'_>> {
    let mut line = Line::default();
    let mut seen = Seen::default();
    top.whole(|v| {
        let end = v.members(|key, v| match key {
            b"type" => seen.read(0, &mut line.kind, v.lenient_str()),
            b"sessionId" => seen.read(1, &mut line.session_id, v.lenient_str()),
            b"isSidechain" => seen.read(2, &mut line.is_sidechain, v.lenient_bool()),
            b"isMeta" => seen.read(3, &mut line.is_meta, v.lenient_bool()),
            b"isCompactSummary" => seen.read(4, &mut line.is_compact_summary, v.lenient_bool()),
            b"isApiErrorMessage" => seen.read(5, &mut line.is_api_error, v.lenient_bool()),
            b"timestamp" => seen.read(6, &mut line.timestamp, v.lenient_str()),
            b"cwd" => seen.read(7, &mut line.cwd, v.lenient_str()),
            b"message" => seen.read(8, &mut line.message, fast_message(v)),
            b"sourceToolUseID" => seen.read(9, &mut line.source_tool_use_id, v.lenient_str()),
            b"uuid" => seen.read(10, &mut line.uuid, v.lenient_str()),
            b"subtype" => seen.read(11, &mut line.subtype, v.lenient_str()),
            b"aiTitle" => seen.read(12, &mut line.ai_title, v.lenient_str()),
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
        b"id" => seen.read(0, &mut message.id, v.lenient_str()),
        b"stop_reason" => seen.read(1, &mut message.stop_reason, v.lenient_str()),
        b"content" => seen.read(2, &mut message.content, fast_content(v)),
        b"model" => seen.read(3, &mut message.model, v.lenient_str()),
        b"usage" => seen.read(4, &mut message.usage, v.opt_raw()),
        k if k.contains(&b'\\') => None,
        _ => v.skip(),
    })?;
    Some((Some(Lenient(Some(message))), end))
}

fn fast_content(v: scan::Value<'_>) -> Option<(Option<Content<'_>>, usize)> {
    match v.kind()? {
        b'n' => Some((None, v.skip()?)),
        b'"' => {
            let (text, end) = v.lenient_str()?;
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
        b"type" => seen.read(0, &mut block.kind, v.lenient_str()),
        b"id" => seen.read(1, &mut block.id, v.lenient_str()),
        b"name" => seen.read(2, &mut block.name, v.lenient_str()),
        b"input" => seen.read(3, &mut block.input, v.opt_raw()),
        b"tool_use_id" => seen.read(4, &mut block.tool_use_id, v.lenient_str()),
        b"is_error" => seen.read(5, &mut block.is_error, v.lenient_bool()),
        b"text" => seen.read(6, &mut block.text, v.lenient_str()),
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

/// The input shape of each `tool_use` block, in order, with the members of its input a step
/// reads (see `shape_and_members`); `TooDeep` refuses the whole line.
fn call_shapes(message: &Message) -> Result<Vec<ShapeAndMembers>, TooDeep> {
    let Some(Content::Blocks(blocks)) = &message.content else {
        return Ok(Vec::new());
    };
    blocks
        .iter()
        .filter(|b| b.kind.as_deref() == Some("tool_use"))
        .map(|b| shape_and_members(b.input.unwrap_or(b"null"), step::INPUT_FIELDS))
        .collect()
}

fn assistant(
    turn: &mut TurnBuilder,
    message: &Message,
    shapes: Vec<ShapeAndMembers>,
    api_error: bool,
    at: Option<&str>,
    cwd: Option<&str>,
) {
    let mut shapes = shapes.into_iter();
    turn.touch(at);
    // The agent went on after a Stop hook: the turn is not over after all.
    turn.open.ended = false;
    if api_error {
        turn.open.api_error = true;
    }
    let id = message.id.as_deref();
    let same_message = id.is_some() && turn.open.last_message_id.as_deref() == id;
    if !same_message {
        turn.open.last_message_id = id.map(str::to_string);
        turn.open.last_stop = None;
    }
    if let Some(model) = message.model.as_deref().filter(|m| m.len() <= MAX_MODEL) {
        super::parse::set_reusing(&mut turn.open.model, model);
    }
    if let Some(usage) = message.usage {
        turn.count_tokens(super::usage::tokens_of(usage), same_message);
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
                let (shape, members) = shapes.next().unwrap_or_default();
                // What the step reads, parsed once; a patch's text is read whole.
                let input = match members.as_deref() {
                    Some(members) if name != "apply_patch" => members,
                    _ => b.input.unwrap_or(b"null"),
                };
                let skill = if name == "Skill" {
                    serde_json::from_slice::<SkillInput>(input)
                        .ok()
                        .and_then(|s| s.skill.map(|s| s.into_owned()))
                } else {
                    None
                };
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
        let fast = fast_line(scan::Value::top(line, &quotes));
        // Read as text already checked, the line reads the same.
        if let Ok(text) = std::str::from_utf8(line) {
            let from_text = fast_line(scan::Value::top_str(text, &quotes));
            assert_eq!(from_text, fast, "{}", String::from_utf8_lossy(line));
        }
        match fast {
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
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/transcripts");
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
                // Only objects are lines (serde_json would read a struct from an array too).
                let object = line.trim_ascii_start().starts_with(b"{");
                valid += usize::from(object && serde_json::from_slice::<Line>(line).is_ok());
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
            r#"{"type":"user","message":{"id":1}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","is_error":1}]}}"#,
            r#"{"type":"user","isMeta":"yes"}"#,
            r#"{"type":7}"#,
        ];
        for line in read_fast {
            assert!(agree(line.as_bytes()), "{line}");
        }
        let left_to_serde = [
            r#"{"type":"user","type":"assistant"}"#,
            r#"{"typ\u0065":"user"}"#,
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

/// The property test of the line reader (fuzzing kept in the repo as a test): lines shaped
/// like Claude Code's, with fields of unexpected types, repeated keys and random byte edits.
/// On every line that is valid JSON the reader agrees with serde_json's `Value`: an object is
/// read with the fields `Value` holds (a field of another type as absent), anything else is
/// refused.
#[cfg(test)]
mod property {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::*;

    fn text(v: Option<&Value>) -> Value {
        v.and_then(Value::as_str).map_or(Value::Null, |s| json!(s))
    }

    fn flag(v: Option<&Value>) -> Value {
        v.and_then(Value::as_bool).map_or(Value::Null, |b| json!(b))
    }

    fn want_block(b: &Map<String, Value>) -> Value {
        let input = match b.get("input") {
            None | Some(Value::Null) => Value::Null,
            Some(v) => v.clone(),
        };
        json!([
            text(b.get("type")),
            text(b.get("id")),
            text(b.get("name")),
            input,
            text(b.get("tool_use_id")),
            flag(b.get("is_error")),
            text(b.get("text"))
        ])
    }

    fn want(o: &Map<String, Value>) -> Value {
        let message = match o.get("message") {
            None | Some(Value::Null) => json!("absent"),
            Some(Value::Object(m)) => {
                let content = match m.get("content") {
                    None | Some(Value::Null) => json!("absent"),
                    Some(Value::String(s)) => json!({ "text": s }),
                    Some(Value::Array(items)) => Value::Array(
                        items.iter().filter_map(Value::as_object).map(want_block).collect(),
                    ),
                    Some(_) => json!("other"),
                };
                json!([text(m.get("id")), text(m.get("stop_reason")), content])
            }
            Some(_) => json!("not an object"),
        };
        json!([
            text(o.get("type")),
            text(o.get("sessionId")),
            flag(o.get("isSidechain")),
            flag(o.get("isMeta")),
            flag(o.get("isCompactSummary")),
            flag(o.get("isApiErrorMessage")),
            text(o.get("timestamp")),
            text(o.get("cwd")),
            message,
            text(o.get("sourceToolUseID")),
            text(o.get("uuid"))
        ])
    }

    fn got_block(b: &Block) -> Value {
        let input = b.input.map_or(Value::Null, |raw| serde_json::from_slice(raw).unwrap());
        let s = |v: &Option<Cow<str>>| v.as_deref().map_or(Value::Null, |s| json!(s));
        json!([
            s(&b.kind),
            s(&b.id),
            s(&b.name),
            input,
            s(&b.tool_use_id),
            b.is_error.map_or(Value::Null, |v| json!(v)),
            s(&b.text)
        ])
    }

    fn got(l: &Line) -> Value {
        let s = |v: &Option<Cow<str>>| v.as_deref().map_or(Value::Null, |s| json!(s));
        let f = |v: Option<bool>| v.map_or(Value::Null, |b| json!(b));
        let message = match &l.message {
            None => json!("absent"),
            Some(Lenient(None)) => json!("not an object"),
            Some(Lenient(Some(m))) => {
                let content = match &m.content {
                    None => json!("absent"),
                    Some(Content::Text(t)) => json!({ "text": t }),
                    Some(Content::Blocks(blocks)) => {
                        Value::Array(blocks.iter().map(got_block).collect())
                    }
                    Some(Content::Other) => json!("other"),
                };
                json!([s(&m.id), s(&m.stop_reason), content])
            }
        };
        json!([
            s(&l.kind),
            s(&l.session_id),
            f(l.is_sidechain),
            f(l.is_meta),
            f(l.is_compact_summary),
            f(l.is_api_error),
            s(&l.timestamp),
            s(&l.cwd),
            message,
            s(&l.source_tool_use_id),
            s(&l.uuid)
        ])
    }

    /// A value of the expected kind most of the time, of another kind otherwise.
    fn odd(expected: Value) -> impl Strategy<Value = Value> {
        prop_oneof![
            6 => Just(expected),
            1 => Just(json!(12)),
            1 => Just(json!("yes")),
            1 => Just(json!(null)),
            1 => Just(json!([1, "a"])),
            1 => Just(json!({"k": true})),
        ]
    }

    fn input() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!({"command": "ls -la \"dir\"\\n", "timeout": 5})),
            Just(json!({"file_path": "/a/b.rs", "old_string": "x", "new_string": "y\u{1b}"})),
            Just(json!({"skill": "tidy", "args": [1, {"a": null}]})),
            Just(json!("raw text")),
            Just(json!(null)),
        ]
    }

    fn block() -> impl Strategy<Value = Value> {
        (
            odd(json!("tool_use")),
            odd(json!("toolu_01")),
            odd(json!("Bash")),
            input(),
            odd(json!(false)),
            odd(json!("some text \u{e9} \\ \"q\"")),
        )
            .prop_map(|(kind, id, name, input, is_error, text)| {
                json!({"type": kind, "id": id, "name": name, "input": input,
                    "tool_use_id": "toolu_00", "is_error": is_error, "text": text})
            })
    }

    fn line() -> impl Strategy<Value = Value> {
        (
            odd(json!("assistant")),
            odd(json!("2026-01-01T00:00:00Z")),
            odd(json!(true)),
            odd(json!("msg_01")),
            prop_oneof![
                Just(json!("hello")),
                prop::collection::vec(block(), 0..3).prop_map(Value::Array),
                Just(json!(7)),
            ],
            odd(json!("s-1")),
        )
            .prop_map(|(kind, at, meta, id, content, session)| {
                json!({"type": kind, "sessionId": session, "timestamp": at, "isMeta": meta,
                    "cwd": "/w", "toolUseResult": {"stdout": "x]}\"", "deep": [[[{}]]]},
                    "message": {"id": id, "role": "assistant", "content": content,
                        "stop_reason": "end_turn"}})
            })
    }

    /// Byte edits: cut, insert a structural or escape byte, or repeat a key at the end.
    fn edit() -> impl Strategy<Value = (u8, usize, u8)> {
        (0u8..4, any::<usize>(), prop::sample::select(b"\"\\{}[],:1 nt-u".to_vec()))
    }

    fn apply(text: &mut Vec<u8>, (op, at, byte): (u8, usize, u8)) {
        let at = at % (text.len() + 1);
        match op {
            0 if at < text.len() => {
                text.remove(at);
            }
            1 | 0 => text.insert(at, byte),
            2 if text.ends_with(b"}") => {
                let dup: &[u8] =
                    if byte % 2 == 0 { br#","type":"user""# } else { br#","isMeta":"no""# };
                text.splice(text.len() - 1..text.len() - 1, dup.iter().copied());
            }
            _ => {}
        }
    }

    fn check(bytes: &[u8]) {
        let mut quotes = scan::Quotes::default();
        quotes.index(bytes);
        let mut repaired = Vec::new();
        let read = read_line(bytes, None, &quotes, &mut repaired);
        if let Ok(text) = std::str::from_utf8(bytes) {
            let mut again = Vec::new();
            let from_text = read_line(bytes, Some(text), &quotes, &mut again);
            assert_eq!(from_text, read, "{}", String::from_utf8_lossy(bytes));
        }
        let fixed = super::super::parse::without_lone_surrogates(bytes);
        match serde_json::from_slice::<Value>(fixed.as_deref().unwrap_or(bytes)) {
            Ok(Value::Object(o)) => {
                let line = read.unwrap_or_else(|e| {
                    panic!("{e}: a valid object refused: {}", String::from_utf8_lossy(bytes))
                });
                assert_eq!(got(&line), want(&o), "{}", String::from_utf8_lossy(bytes));
            }
            Ok(_) => {
                assert!(read.is_err(), "not an object, read: {}", String::from_utf8_lossy(bytes))
            }
            Err(_) => {}
        }
    }

    proptest! {
        // A few seconds in a debug build: enough edits to find a disagreement, bounded for CI.
        #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn the_reader_agrees_with_serde_json_on_valid_lines(
            line in line(),
            edits in prop::collection::vec(edit(), 0..3),
        ) {
            let mut text = serde_json::to_vec(&line).unwrap();
            for e in edits {
                apply(&mut text, e);
            }
            check(&text);
        }
    }

    #[test]
    fn lines_fuzzing_found() {
        for line in [
            r#"{"type":"user","timestamp":12,"message":{"content":"hi"}}"#,
            r#"{"type":"user","isMeta":"yes","message":{"content":"hi"}}"#,
            r#"{"type":"assistant","message":{"id":7,"content":[]}}"#,
            r#"{"type":"user","type":"assistant","message":{"content":"hi"}}"#,
            r#"{"type":"user","message":{"content":"a \ud800 b"}}"#,
            r#"["user",null,false,false,false,false,null,null,null,null,null]"#,
            r#""bare""#,
        ] {
            check(line.as_bytes());
        }
        let mut quotes = scan::Quotes::default();
        let lone = br#"{"type":"user","message":{"content":"a \ud800 b"}}"#;
        quotes.index(lone);
        let mut repaired = Vec::new();
        let read = read_line(lone, None, &quotes, &mut repaired).unwrap();
        assert_eq!(
            read.message,
            Some(Lenient(Some(Message {
                content: Some(Content::Text("a \u{fffd} b".into())),
                ..Message::default()
            })))
        );
    }
}
