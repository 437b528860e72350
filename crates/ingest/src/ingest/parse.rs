//! What every format parser shares: line splitting, the per-file output and its problem log.

use std::collections::HashMap;

use serde::Serialize;

pub use super::turn::set_reusing;
use super::turn::{FileState, TurnBuilder, TurnRec};
use crate::text::redact;

/// Problems kept per file in the report (all are counted).
pub const MAX_PROBLEMS_PER_FILE: usize = 20;

/// A line that could not be used, by file and 1-based line number.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Problem {
    pub path: String,
    pub line: u64,
    pub reason: String,
}

/// A session seen in a file, with the span of times its lines carry.
#[derive(Debug, Clone, Default)]
pub struct SessionRec {
    pub project: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    /// The agent's title of the session (Claude Code's `ai-title`), redacted; the latest wins.
    pub title: Option<String>,
}

impl SessionRec {
    fn see(&mut self, project: Option<&str>, at: Option<&str>) {
        if self.project.is_none() {
            self.project = project.map(str::to_string);
        }
        if let Some(at) = at {
            if self.started_at.as_deref().is_none_or(|s| at < s) {
                self.started_at = Some(at.to_string());
            }
            if self.ended_at.as_deref().is_none_or(|e| at > e) {
                set_reusing(&mut self.ended_at, at);
            }
        }
    }
}

/// Characters of a session title kept.
const TITLE_CHARS: usize = 200;

/// Everything one file's new bytes produced.
#[derive(Debug, Default)]
pub struct FileOutput {
    pub turns: Vec<TurnRec>,
    pub sessions: HashMap<String, SessionRec>,
    pub state: FileState,
    pub lines_read: u64,
    pub bad_lines: u64,
    pub unknown_lines: u64,
    pub problems: Vec<Problem>,
}

/// The context a parser reports into.
pub struct Sink<'a> {
    pub path: &'a str,
    /// Lines already read from this file by earlier runs.
    pub lines_before: u64,
    /// Close turns still open at the end of the new bytes (the file has gone quiet).
    pub idle: bool,
    pub out: FileOutput,
}

impl<'a> Sink<'a> {
    pub fn new(path: &'a str, lines_before: u64, idle: bool, state: FileState) -> Sink<'a> {
        Sink { path, lines_before, idle, out: FileOutput { state, ..FileOutput::default() } }
    }

    pub fn bad(&mut self, line: u64, reason: impl Into<String>) {
        self.out.bad_lines += 1;
        self.problem(line, reason.into());
    }

    pub fn unknown(&mut self, line: u64, kind: &str) {
        self.out.unknown_lines += 1;
        self.problem(line, format!("unknown line type {kind:?} skipped"));
    }

    /// A problem with a line that was still read (mended).
    pub fn note(&mut self, line: u64, reason: impl Into<String>) {
        self.problem(line, reason.into());
    }

    fn problem(&mut self, line: u64, reason: String) {
        if self.out.problems.len() < MAX_PROBLEMS_PER_FILE {
            self.out.problems.push(Problem { path: self.path.to_string(), line, reason });
        }
    }

    pub fn session(&mut self, key: &str, project: Option<&str>, at: Option<&str>) {
        match self.out.sessions.get_mut(key) {
            Some(rec) => rec.see(project, at),
            None => {
                let mut rec = SessionRec::default();
                rec.see(project, at);
                self.out.sessions.insert(key.to_string(), rec);
            }
        }
    }

    /// The session's title, as the agent wrote it: clipped and redacted like a prompt.
    pub fn title(&mut self, key: &str, title: &str) {
        let title: String = title.trim().chars().take(TITLE_CHARS).collect();
        if title.is_empty() {
            return;
        }
        let title = redact::secrets(&title).into_owned();
        self.out.sessions.entry(key.to_string()).or_default().title = Some(title);
    }

    /// Closes a turn because a next prompt started.
    pub fn close(&mut self, turn: TurnBuilder) {
        let (rec, _) = turn.finish(true);
        self.out.turns.push(rec);
    }

    /// At the end of the new bytes: a turn is complete if the transcript shows its end or the
    /// file has gone quiet; otherwise it stays open and is carried to the next run.
    pub fn settle(&mut self, turn: TurnBuilder) {
        let complete = self.idle || turn.shows_end();
        let (mut rec, open) = turn.finish(complete);
        if let Some(open) = open {
            rec.open_slot = Some(self.out.state.open.len());
            self.out.state.open.push(open);
        }
        self.out.turns.push(rec);
    }

    pub fn into_output(self) -> FileOutput {
        self.out
    }
}

/// Calls `f(line, byte_offset, line_number)` for each complete line of `buf` (which starts at
/// `base` in the file); returns the offset just after the last complete line. A last line
/// without its newline is left for the next run.
pub fn for_each_line(
    buf: &[u8],
    base: u64,
    lines_before: u64,
    mut f: impl FnMut(&[u8], u64, u64),
) -> (u64, u64) {
    let mut start = 0usize;
    let mut count = 0u64;
    for end in memchr::memchr_iter(b'\n', buf) {
        let mut line = &buf[start..end];
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        count += 1;
        f(line, base + start as u64, lines_before + count);
        start = end + 1;
    }
    (base + start as u64, count)
}

/// `line` with each lone surrogate escape (`\\uD800`–`\\uDFFF` not in a pair) written as
/// `\\uFFFD`, which every JSON reader decodes; `None` when it has none.
pub fn without_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let hex = |at: usize| -> Option<u32> {
        let digits = std::str::from_utf8(line.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let escape_at = |at: usize| line.get(at) == Some(&b'\\') && line.get(at + 1) == Some(&b'u');
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < line.len() {
        match line[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let code = if escape_at(i) { hex(i + 2) } else { None };
                let lone = match code {
                    Some(0xD800..=0xDBFF) => {
                        let pair = escape_at(i + 6) && matches!(hex(i + 8), Some(0xDC00..=0xDFFF));
                        if pair {
                            i += 12;
                            continue;
                        }
                        true
                    }
                    Some(0xDC00..=0xDFFF) => true,
                    _ => false,
                };
                if lone {
                    let buf = out.get_or_insert_with(Vec::new);
                    buf.extend_from_slice(&line[copied..i]);
                    buf.extend_from_slice(b"\\uFFFD");
                    i += 6;
                    copied = i;
                    continue;
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.map(|mut buf| {
        buf.extend_from_slice(&line[copied..]);
        buf
    })
}

/// Why a line is not a usable JSON object: its kind of bare value, or the parse error.
pub fn json_reason(line: &[u8], e: &serde_json::Error) -> String {
    let first = line.iter().find(|b| !b.is_ascii_whitespace()).copied().unwrap_or(b' ');
    let bare = match first {
        b'"' => "a bare JSON string",
        b'[' => "a JSON array",
        b'-' | b'0'..=b'9' => "a bare number",
        b't' | b'f' | b'n' => "a bare literal",
        _ => "",
    };
    if !bare.is_empty() && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() {
        return format!("{bare}, not an object");
    }
    format!("unparseable JSON: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fix =
            |s: &str| without_lone_surrogates(s.as_bytes()).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(fix(r#"{"a":"x\ud800y"}"#).as_deref(), Some(r#"{"a":"x\uFFFDy"}"#));
        assert_eq!(fix(r#"{"a":"\udc00"}"#).as_deref(), Some(r#"{"a":"\uFFFD"}"#));
        assert_eq!(fix(r#"{"a":"\ud83d\ude00 \\ud800"}"#), None);
        assert_eq!(fix(r#"{"a":"plain"}"#), None);
    }

    #[test]
    fn partial_last_line_is_left() {
        let mut seen = Vec::new();
        let (next, count) =
            for_each_line(b"a\r\nbb\nccc", 10, 5, |l, off, no| seen.push((l.to_vec(), off, no)));
        assert_eq!(seen, vec![(b"a".to_vec(), 10, 6), (b"bb".to_vec(), 13, 7)]);
        assert_eq!((next, count), (16, 2));
    }
}
