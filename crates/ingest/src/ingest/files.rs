//! Finding transcript files, deciding what to read of each, and reading it.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::parse::{FileOutput, Problem, Sink};
use super::turn::FileState;
use super::{chunks, claude, codex, native, other, stream};
use crate::fsio;
use crate::text::safe;

/// Bytes at the head of a file whose hash tells a replaced file from an appended one.
const HEAD_BYTES: u64 = 1024;
/// Bytes of a `*.json` met on a walk read to tell whose log it is.
const SNIFF_BYTES: u64 = 64 << 10;
/// Bytes at the head of a file in which a NUL byte marks it binary.
const NUL_SNIFF: u64 = 8 << 10;
/// Lines at the head of the new bytes that may tell their format.
const DETECT_LINES: usize = 64;
/// The longest line parsed: 64 MiB (a Claude Code line with pasted images runs to a few MiB).
/// A longer one is counted as it streams past (never held), handed to the parser as a blank line
/// and reported as skipped; the offset moves past it, so no later run (a hook at every session
/// end) reads it again.
pub const LINE_CAP: usize = 64 << 20;
/// A file untouched this long has its last turn closed (the session has gone quiet).
pub const IDLE_CLOSE: Duration = Duration::from_secs(3600);

crate::text_enum! {
    /// A transcript format, and the `source` of the sessions read from it. `parse` is `None`
    /// for `auto` (decided per file) and unknown names.
    pub enum Format {
        Claude = "claude",
        /// Claude Code's `--output-format stream-json` output.
        StreamJson = "stream-json",
        Codex = "codex",
        Native = "native",
    }
}

/// A transcript file to consider, with the agent it belongs to and its root's format.
#[derive(Debug, Clone)]
pub struct Target {
    pub path: PathBuf,
    pub agent: String,
    /// The agent the file belongs to instead when its content is a Codex rollout (no agent was
    /// named for it).
    pub codex_agent: Option<String>,
    pub format: Option<Format>,
    /// Size and modification time, or why they could not be read.
    pub stat: Result<(u64, i64), String>,
}

fn stat_of(meta: std::io::Result<std::fs::Metadata>) -> Result<(u64, i64), String> {
    meta.map(|m| (m.len(), mtime_ns(&m))).map_err(|e| e.to_string())
}

/// What an earlier run stored about a file.
#[derive(Debug, Clone)]
pub struct Stored {
    pub format: Option<Format>,
    pub size: u64,
    pub mtime_ns: i64,
    pub offset: u64,
    pub head_hash: Option<String>,
    pub lines: u64,
    pub state: Option<String>,
}

impl Stored {
    /// Whether the carried parser state holds a turn still open.
    pub fn has_open_turn(&self) -> bool {
        self.state.as_deref().is_some_and(|s| s.contains("\"open\":[{"))
    }
}

/// A file with bytes to read.
pub struct Job {
    pub target: Target,
    pub key: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub stored: Option<Stored>,
}

/// What reading one file produced.
pub struct FileRead {
    pub key: String,
    /// The offset stored when this run planned the read (`None`: a file new to the database).
    /// The writer drops the read if another run has moved it meanwhile.
    pub planned_offset: Option<u64>,
    pub agent: String,
    pub format: Option<Format>,
    pub size: u64,
    pub mtime_ns: i64,
    pub offset: u64,
    pub head_hash: String,
    pub lines: u64,
    pub bad_lines: u64,
    pub unknown_lines: u64,
    pub reset: bool,
    pub bytes_read: u64,
    pub output: FileOutput,
    pub error: Option<Problem>,
    /// The file is another agent's log (`error` says which): skipped.
    pub unsupported: bool,
    /// Some turn read gives detection a prompt or command to learn from (`other::minable`).
    pub minable: bool,
}

/// Every transcript file under `path` (`transcript_ext`; or `path` itself when it is a file),
/// handed to `found` one at a time in the byte order of their paths, as the walk finds them (so
/// files can be read while the walk goes on). `path` must exist; a folder below it that cannot be
/// listed becomes a problem, and the walk goes on.
///
/// Files of another agent's format met on the walk (SWE-agent's `*.traj`, a `*.json` holding
/// SWE-agent's or OpenHands' log) are named in one problem per format; returns how many.
pub fn collect(
    path: &Path,
    agent: &str,
    format: Option<Format>,
    found: &mut dyn FnMut(Target),
    problems: &mut Vec<Problem>,
) -> Result<u64> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    // One file is one key however it is spelled (`tx`, `./tx`, `$PWD/tx`, a symlink): the walk
    // starts from the canonical path, and links below it are not followed.
    let canonical = std::fs::canonicalize(path);
    let path = canonical.as_deref().unwrap_or(path);
    if !meta.is_dir() && !meta.is_file() {
        // A FIFO would block the read forever, a device never end: named, not opened.
        let path = path.to_string_lossy().into_owned();
        let reason = "not a regular file or folder (a FIFO, device or socket): skipped".to_string();
        problems.push(Problem { path, line: 0, reason });
        return Ok(0);
    }
    if !meta.is_dir() {
        let stat = stat_of(Ok(meta));
        let path = path.to_path_buf();
        found(Target { path, agent: agent.to_string(), codex_agent: None, format, stat });
        return Ok(0);
    }
    let mut foreign: Vec<(&'static str, PathBuf, u64)> = Vec::new();
    let top = listing(path, format, &mut foreign)
        .with_context(|| format!("listing {}", path.display()))?;
    // Each folder's entries, sorted so that the last is the next in byte order of full paths.
    let mut stack = vec![top];
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.pop() else {
            stack.pop();
            continue;
        };
        match entry.stat {
            None => match listing(&entry.path, format, &mut foreign) {
                Ok(entries) => stack.push(entries),
                Err(e) => {
                    let path = entry.path.to_string_lossy().into_owned();
                    problems.push(Problem { path, line: 0, reason: format!("listing: {e}") });
                }
            },
            Some(stat) => {
                let (path, agent) = (entry.path, agent.to_string());
                found(Target { path, agent, codex_agent: None, format, stat });
            }
        }
    }
    let skipped = foreign.iter().map(|f| f.2).sum();
    for (agent, example, files) in foreign {
        let example = example.strip_prefix(path).unwrap_or(&example).display().to_string();
        problems.push(Problem {
            path: path.to_string_lossy().into_owned(),
            line: 0,
            reason: other::unsupported_reason(&format!(
                "{files} files hold {agent} (e.g. {})",
                safe::inline(&example)
            )),
        });
    }
    Ok(skipped)
}

/// A folder's entry on the walk: a folder to list (no stat), or a transcript file with its stat.
struct Entry {
    /// The name, with a `/` after a folder's: sorted by it, entries come in the byte order of
    /// the full paths below them (`a-b/x` before `a.jsonl` before `a/x`).
    key: Vec<u8>,
    path: PathBuf,
    stat: Option<Result<(u64, i64), String>>,
}

/// The folders and transcript files in `dir`, sorted last-first; other agents' files are
/// counted in `foreign` (the first path in byte order is the example, whatever the order).
fn listing(
    dir: &Path,
    format: Option<Format>,
    foreign: &mut Vec<(&'static str, PathBuf, u64)>,
) -> std::io::Result<Vec<Entry>> {
    use std::os::unix::ffi::OsStrExt;
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let p = entry.path();
        let name = entry.file_name();
        if kind.is_dir() {
            let mut key = name.as_bytes().to_vec();
            key.push(b'/');
            entries.push(Entry { key, path: p, stat: None });
        } else if kind.is_file() && p.extension().is_some_and(|e| transcript_ext(e, format)) {
            // Relative to the open folder: cheaper than a stat by the whole path.
            let stat = Some(stat_of(entry.metadata()));
            entries.push(Entry { key: name.as_bytes().to_vec(), path: p, stat });
        } else if kind.is_file()
            && let Some(agent) = foreign_file(&p)
        {
            match foreign.iter_mut().find(|f| f.0 == agent) {
                Some(f) => {
                    f.2 += 1;
                    if p.as_os_str() < f.1.as_os_str() {
                        f.1 = p;
                    }
                }
                None => foreign.push((agent, p, 1)),
            }
        }
    }
    entries.sort_unstable_by(|a, b| b.key.cmp(&a.key));
    Ok(entries)
}

/// The other agent whose log a file met on a walk is: a `*.traj` is SWE-agent's, a `*.json` is
/// told by its head.
fn foreign_file(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?;
    if ext == "traj" {
        return Some(other::SWE_AGENT);
    }
    if ext != "json" {
        return None;
    }
    let mut head = Vec::new();
    fsio::open_regular(path).ok()?.take(SNIFF_BYTES).read_to_end(&mut head).ok()?;
    other::other_agent(&head)
}

/// The file names a folder walk reads: `*.jsonl`; under a stream-json root also the `*.log` and
/// `*.ndjson` a script tees `claude -p` into.
fn transcript_ext(ext: &std::ffi::OsStr, format: Option<Format>) -> bool {
    ext == "jsonl" || (format == Some(Format::StreamJson) && (ext == "log" || ext == "ndjson"))
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// FNV-1a 64 of the head bytes: stable across versions and builds, and cheap.
fn head_hash(head: &[u8]) -> String {
    fnv(0xcbf2_9ce4_8422_2325, head)
}

fn fnv(mut h: u64, bytes: &[u8]) -> String {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Windows of the bytes already read whose hash tells a rewritten file from an appended one
/// beyond its head: `SAMPLES` evenly spaced ones and the last before `offset`, `HEAD_BYTES` each.
const SAMPLES: u64 = 8;

/// The hash of the sampled windows of `file` below `offset` (the same windows for the same
/// offset, so a later run reads them again to compare).
fn body_hash(file: &std::fs::File, offset: u64) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; HEAD_BYTES as usize];
    let starts =
        (0..SAMPLES).map(|i| offset * i / SAMPLES).chain([offset.saturating_sub(HEAD_BYTES)]);
    for at in starts {
        let want = HEAD_BYTES.min(offset - at) as usize;
        let got = chunks::read_full_at(file, at, &mut buf[..want])?;
        bytes.extend_from_slice(&buf[..got]);
    }
    Ok(fnv(0xcbf2_9ce4_8422_2325, &bytes))
}

/// The stored hash: the head's, then the sampled body's after a `:` (older rows have no body's).
fn split_hash(stored: &str) -> (&str, Option<&str>) {
    match stored.split_once(':') {
        Some((head, body)) => (head, Some(body)),
        None => (stored, None),
    }
}

/// Reads the new bytes of one file and parses them. I/O trouble becomes a problem, not an error.
pub fn read(job: Job, now: SystemTime) -> FileRead {
    let mut read = FileRead {
        key: job.key.clone(),
        planned_offset: job.stored.as_ref().map(|s| s.offset),
        agent: job.target.agent.clone(),
        format: job.stored.as_ref().and_then(|s| s.format).or(job.target.format),
        size: job.size,
        mtime_ns: job.mtime_ns,
        offset: job.stored.as_ref().map_or(0, |s| s.offset),
        head_hash: job.stored.as_ref().and_then(|s| s.head_hash.clone()).unwrap_or_default(),
        lines: job.stored.as_ref().map_or(0, |s| s.lines),
        bad_lines: 0,
        unknown_lines: 0,
        reset: false,
        bytes_read: 0,
        output: FileOutput::default(),
        error: None,
        unsupported: false,
        minable: false,
    };
    if let Err(e) = read_into(&job, now, &mut read) {
        read.error = Some(Problem { path: job.key.clone(), line: 0, reason: format!("{e:#}") });
    }
    // Whatever its path: a Codex rollout is the Codex agent's when no agent was named for it.
    if let (Some(Format::Codex), Some(codex)) = (read.format, &job.target.codex_agent) {
        read.agent.clone_from(codex);
    }
    read
}

fn read_into(job: &Job, now: SystemTime, read: &mut FileRead) -> Result<()> {
    // The walk saw a regular file: opened without stat-ing its path first (the open does not
    // block on a FIFO put there since, and the open file is checked).
    let file = fsio::open_listed_regular(&job.target.path).context("opening")?;
    let mut state = FileState::default();
    let mut start = 0u64;
    // The bytes before `start` that belong to the head (only when the stored offset is short).
    let mut head = Vec::new();
    if let Some(stored) = &job.stored {
        let want = stored.offset.min(HEAD_BYTES) as usize;
        head.resize(want, 0);
        let got = chunks::read_full_at(&file, 0, &mut head).context("reading")?;
        let (stored_head, stored_body) = split_hash(stored.head_hash.as_deref().unwrap_or(""));
        let body_same =
            || stored_body.is_none_or(|h| body_hash(&file, stored.offset).is_ok_and(|b| b == h));
        // An append makes a file longer: one as long as before with a new time was rewritten
        // in place (a secret scrubbed with a same-length edit).
        let rewritten_in_place = job.size == stored.size
            && job.mtime_ns != stored.mtime_ns
            && stored.offset == stored.size;
        let same_file = job.size >= stored.offset
            && got == want
            && !rewritten_in_place
            && (stored.head_hash.is_none() || stored_head == head_hash(&head))
            && body_same();
        if same_file {
            start = stored.offset;
            if let Some(text) = &stored.state {
                state = serde_json::from_str(text).unwrap_or_default();
            }
        } else {
            head.clear();
            read.reset = true;
            read.lines = 0;
            read.format = job.target.format;
        }
    }
    let idle = now
        .duration_since(UNIX_EPOCH + Duration::from_nanos(job.mtime_ns.max(0) as u64))
        .is_ok_and(|age| age >= IDLE_CLOSE);
    // The bytes up to the size seen when planning are read (what is appended later is for the
    // next run), a chunk at a time; the first chunk once, for every look below.
    let len = job.size.saturating_sub(start);
    let mut bytes =
        chunks::Bytes::open(&file, start, len, chunks::CHUNK_BYTES).context("reading")?;
    // The head's bytes past `start` (the file's first bytes up to the offset stored), as they
    // are on disk.
    let head_rest: Vec<u8> = {
        let first = bytes.first().context("reading")?;
        let room = (HEAD_BYTES as usize).saturating_sub(head.len());
        first[..first.len().min(room)].to_vec()
    };
    if start == 0 {
        // A binary file (NUL bytes at its start) is no transcript: one problem, not a bad line
        // for every chunk between newline bytes.
        let first = bytes.first().context("reading")?;
        if memchr::memchr(0, &first[..first.len().min(NUL_SNIFF as usize)]).is_some() {
            anyhow::bail!("not text (NUL bytes, as in a binary file): skipped");
        }
    }
    if read.format.is_none() {
        let mut seen = 0;
        bytes
            .lines(LINE_CAP, true, |l| {
                seen += 1;
                read.format = probe(l.text.as_bytes());
                match read.format.is_some() || seen == DETECT_LINES {
                    true => ControlFlow::Break(()),
                    false => ControlFlow::Continue(()),
                }
            })
            .context("reading")?;
        if read.format.is_none()
            && let Some(agent) = other::other_agent(bytes.first().context("reading")?)
        {
            read.unsupported = true;
            anyhow::bail!(other::unsupported_reason(agent));
        }
    }
    let mut sink = Sink::new(&job.key, read.lines, idle, state);
    let mut parser = match read.format.unwrap_or(Format::Claude) {
        Format::Claude => Parser::Claude(claude::Parser::new(&mut sink)),
        Format::StreamJson => {
            // Times are placed from the last line back: a first pass gathers what that needs.
            let mut times = stream::Times::default();
            bytes
                .lines(LINE_CAP, false, |l| {
                    times.see(l.text.as_bytes());
                    ControlFlow::Continue(())
                })
                .context("reading")?;
            Parser::Stream(stream::Parser::new(&mut sink, times, job.mtime_ns))
        }
        Format::Codex => Parser::Codex(codex::Parser::new(&mut sink)),
        Format::Native => Parser::Native,
    };
    let lines_before = read.lines;
    let scan = bytes
        .lines(LINE_CAP, false, |l| {
            let line_no = lines_before + l.index;
            if l.mended {
                sink.note(line_no, "invalid UTF-8: the bad bytes were read as '?'");
            }
            if let Some(len) = l.over_cap {
                sink.bad(
                    line_no,
                    format!(
                        "{} MiB on one line, over the {} MiB line cap: skipped",
                        len >> 20,
                        LINE_CAP >> 20
                    ),
                );
            }
            parser.line(&mut sink, l.text, l.offset, line_no);
            ControlFlow::Continue(())
        })
        .context("reading")?;
    parser.finish(&mut sink);
    read.bytes_read = scan.bytes_read;
    if read.format.is_none() && scan.lines > 0 {
        read.format = Some(Format::Claude);
    }
    // The head is the file's first bytes up to the offset stored, read as they are on disk.
    let head_len = (scan.next.min(HEAD_BYTES) as usize).saturating_sub(head.len());
    head.extend_from_slice(&head_rest[..head_len.min(head_rest.len())]);
    read.output = sink.into_output();
    read.minable = read.output.turns.iter().any(other::minable);
    read.output.lines_read = scan.lines;
    read.offset = scan.next;
    read.lines += scan.lines;
    read.bad_lines = read.output.bad_lines;
    read.unknown_lines = read.output.unknown_lines;
    read.head_hash = format!("{}:{}", head_hash(&head), body_hash(&file, scan.next)?);
    Ok(())
}

/// The parse of one file's new bytes, fed line by line.
enum Parser {
    Claude(claude::Parser),
    Stream(stream::Parser),
    Codex(codex::Parser),
    Native,
}

impl Parser {
    fn line(&mut self, sink: &mut Sink, text: &str, offset: u64, line_no: u64) {
        match self {
            Parser::Claude(p) => p.line_str(sink, text, offset, line_no),
            Parser::Stream(p) => p.line(sink, text.as_bytes(), offset, line_no),
            Parser::Codex(p) => p.line(sink, text.as_bytes(), offset, line_no),
            Parser::Native => native::line(sink, text.as_bytes(), offset, line_no),
        }
    }

    fn finish(self, sink: &mut Sink) {
        match self {
            Parser::Claude(p) => p.finish(sink),
            Parser::Stream(p) => p.finish(sink),
            Parser::Codex(p) => p.finish(sink),
            Parser::Native => {}
        }
    }
}

#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "sessionId")]
    session_id: Option<IgnoredAny>,
    /// Stream-json's spelling.
    #[serde(rename = "session_id")]
    stream_session_id: Option<IgnoredAny>,
    payload: Option<IgnoredAny>,
    user_input: Option<IgnoredAny>,
    outcome: Option<IgnoredAny>,
}

/// The format of a file from its first parseable lines (at most [`DETECT_LINES`]); `None` when
/// nothing tells.
pub fn detect(buf: &[u8]) -> Option<Format> {
    buf.split(|b| *b == b'\n').take(DETECT_LINES).find_map(probe)
}

/// The format one line tells, if it tells one.
fn probe(line: &[u8]) -> Option<Format> {
    let p = serde_json::from_slice::<Probe>(line).ok()?;
    if p.user_input.is_some() && p.outcome.is_some() {
        return Some(Format::Native);
    }
    let kind = p.kind.as_deref().unwrap_or("");
    if p.payload.is_some()
        && matches!(kind, "session_meta" | "response_item" | "event_msg" | "turn_context")
    {
        return Some(Format::Codex);
    }
    if p.stream_session_id.is_some()
        && matches!(kind, "system" | "assistant" | "user" | "result" | "stream_event")
    {
        return Some(Format::StreamJson);
    }
    if p.session_id.is_some()
        || matches!(kind, "user" | "assistant" | "summary" | "system" | "file-history-snapshot")
    {
        return Some(Format::Claude);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk hands files on in the byte order of their full paths, whatever the order the
    /// folders list them in: names that sort one way as names and another once a `/` follows
    /// (`a-b/`, `a.jsonl`, `a/`) are where a per-folder sort by name alone would differ.
    #[test]
    fn the_walk_hands_files_on_in_the_byte_order_of_their_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let files = [
            "a/x.jsonl",
            "a.jsonl",
            "a-b/y.jsonl",
            "a-b/c/z.jsonl",
            "a0.jsonl",
            "b/a/b/c.jsonl",
            "b/a.jsonl",
            "B.jsonl",
            "a/x/deeper.jsonl",
            "notes.txt",
        ];
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "{}\n").unwrap();
        }
        let mut walked = Vec::new();
        let mut problems = Vec::new();
        collect(&root, "a", None, &mut |t| walked.push(t.path), &mut problems).unwrap();
        let mut sorted: Vec<PathBuf> =
            files.iter().filter(|f| f.ends_with(".jsonl")).map(|f| root.join(f)).collect();
        sorted.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        assert_eq!(walked, sorted);
        assert!(problems.is_empty());
    }
}
