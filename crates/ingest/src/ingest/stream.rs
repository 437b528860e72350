//! Claude Code stream-json: what `claude -p --output-format stream-json --verbose` prints, often
//! appended run after run into one log.
//!
//! A run opens with a `system` `init` line (`session_id`, `cwd`, `model`, `tools`), goes on with
//! `assistant` and `user` lines that carry the same `message` objects as Claude Code's own
//! transcripts (plus `session_id` and `parent_tool_use_id`, set on a subagent's messages), and
//! closes with a `result` line (`is_error`, `duration_ms`, `num_turns`, `total_cost_usd`). Each
//! `session_id` is one session; a run ends its turn. Lines that are not JSON objects (separators
//! a script wrote between runs) are stepped over.
//!
//! The lines carry no times, so times are derived, ordered and only as exact as the file allows:
//! the last line read ends at the file's modification time; a finished run spans its
//! `duration_ms` up to its `result` line, its lines spread evenly over it; the run before ends
//! just before it starts; lines after the last `result` (a run still going) are a millisecond
//! apart. Times never go back, and none is earlier than one an earlier read gave.

use std::borrow::Cow;

use serde::Deserialize;

use super::claude::{self, Line, Message};
use super::lenient::{Lenient, lenient_bool, lenient_str};
use super::parse::{Sink, for_each_line, json_reason};
use super::turn::TurnBuilder;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", default, deserialize_with = "lenient_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    subtype: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    session_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_str")]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Lenient<Message<'a>>>,
    #[serde(default, deserialize_with = "lenient_bool")]
    is_error: Option<bool>,
    #[serde(default, deserialize_with = "lenient_str")]
    result: Option<Cow<'a, str>>,
}

/// What the times need of a `result` line.
#[derive(Deserialize)]
struct ResultProbe<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    duration_ms: Option<f64>,
}

/// Parses the new bytes of a stream-json log into `sink`; returns (next offset, lines read).
/// `mtime_ns` is the file's modification time, from which the lines' times are derived.
pub fn parse(sink: &mut Sink, buf: &[u8], base: u64, mtime_ns: i64) -> (u64, u64) {
    let mut times = Times::default();
    for_each_line(buf, 0, 0, |bytes, _, _| times.see(bytes));
    let mut parser = Parser::new(sink, times, mtime_ns);
    let lines_before = sink.lines_before;
    let result = for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        parser.line(sink, bytes, offset, line_no);
    });
    parser.finish(sink);
    result
}

/// The parse of one log's new bytes fed line by line, with the times a first pass over the same
/// lines placed ([`Times`]); settled by [`Parser::finish`] after the last line.
pub struct Parser {
    streams: [Option<TurnBuilder>; 2],
    times: Vec<i64>,
    index: usize,
}

impl Parser {
    /// `times` has seen every line the parser will be given; `mtime_ns` is the file's
    /// modification time, at which the last line read ends.
    pub fn new(sink: &mut Sink, times: Times, mtime_ns: i64) -> Parser {
        let floor = sink.out.state.last_at.as_deref().and_then(parse_ms);
        let times = times.place(mtime_ns / 1_000_000, floor);
        Parser { streams: claude::resume_streams(sink), times, index: 0 }
    }

    pub fn line(&mut self, sink: &mut Sink, bytes: &[u8], offset: u64, line_no: u64) {
        let at = format_ms(self.times.get(self.index).copied().unwrap_or_default());
        self.index += 1;
        line(sink, &mut self.streams, bytes, offset, line_no, &at);
    }

    pub fn finish(self, sink: &mut Sink) {
        if let Some(last) = self.times.last() {
            sink.out.state.last_at = Some(format_ms(*last));
        }
        for turn in self.streams.into_iter().flatten() {
            sink.settle(turn);
        }
    }
}

fn line(
    sink: &mut Sink,
    streams: &mut [Option<TurnBuilder>; 2],
    bytes: &[u8],
    offset: u64,
    line_no: u64,
    at: &str,
) {
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return; // blank, or a separator between runs
    }
    let e: Envelope = match serde_json::from_slice(bytes) {
        Ok(e) => e,
        Err(err) => return sink.bad(line_no, json_reason(bytes, &err)),
    };
    let Some(kind) = e.kind.as_deref() else {
        return sink.bad(line_no, "object without \"type\"");
    };
    let current = sink.out.state.session_key.as_deref();
    let session = e.session_id.as_deref().or(current).unwrap_or(sink.path).to_string();
    let switched = current != Some(session.as_str());
    // A new run, or lines of another session whose `init` was not read: what was open ends.
    if kind == "system" && e.subtype.as_deref() == Some("init") || switched {
        end_run(sink, streams);
    }
    if switched {
        sink.out.state.session_key = Some(session.clone());
        sink.out.state.project = None;
    }
    if let Some(cwd) = e.cwd.as_deref() {
        sink.out.state.project = Some(cwd.to_string());
    }
    let project = sink.out.state.project.clone();
    match kind {
        "system" => sink.session(&session, project.as_deref(), Some(at)),
        "assistant" | "user" => {
            let line = Line {
                kind: e.kind,
                session_id: Some(Cow::Borrowed(&session)),
                is_sidechain: Some(e.parent_tool_use_id.is_some()),
                timestamp: Some(Cow::Borrowed(at)),
                cwd: project.as_deref().map(Cow::Borrowed),
                message: e.message,
                ..Line::default()
            };
            claude::apply(sink, streams, line, offset, line_no);
        }
        "result" => {
            sink.session(&session, project.as_deref(), Some(at));
            let t = streams[0]
                .get_or_insert_with(|| TurnBuilder::start(&session, offset, "", Some(at), false));
            t.touch(Some(at));
            if e.is_error == Some(true) {
                // `error_max_turns`, `error_during_execution`, ...; an error the run reports
                // as `success` is the API's.
                match e.subtype.as_deref().filter(|s| s.starts_with("error")) {
                    Some(subtype) => t.open.limit_stop = Some(subtype.to_string()),
                    None => t.open.api_error = true,
                }
            }
            if let Some(text) = e.result.as_deref() {
                t.set_summary(text);
            }
            t.open.ended = true;
            end_run(sink, streams);
        }
        // Partial messages (`--include-partial-messages`): the whole message follows.
        "stream_event" => {}
        other => sink.unknown(line_no, other),
    }
}

fn end_run(sink: &mut Sink, streams: &mut [Option<TurnBuilder>; 2]) {
    for turn in streams.iter_mut().filter_map(Option::take) {
        sink.close(turn);
    }
}

/// Milliseconds since the epoch for each complete line of `buf`, as the module says. Lines that
/// are not JSON objects (separators) take no time of their own.
/// What placing the lines' times needs of each line, gathered line by line: which lines are
/// JSON objects, and where each `result` line is with its `duration_ms`.
#[derive(Default)]
pub struct Times {
    results: Vec<(usize, i64)>,
    object: Vec<bool>,
}

impl Times {
    pub fn see(&mut self, bytes: &[u8]) {
        if memchr::memmem::find(bytes, b"\"result\"").is_some()
            && let Ok(p) = serde_json::from_slice::<ResultProbe>(bytes)
            && p.kind.as_deref() == Some("result")
        {
            let ms = p.duration_ms.filter(|d| d.is_finite()).unwrap_or(0.0);
            self.results.push((self.object.len(), ms.clamp(0.0, 1e12) as i64));
        }
        self.object.push(bytes.trim_ascii_start().first() == Some(&b'{'));
    }

    /// Each line's time in ms, the last ending at `end_ms`, none before `floor_ms`.
    fn place(self, end_ms: i64, floor_ms: Option<i64>) -> Vec<i64> {
        let Times { results, object } = self;
        // Placed from the last line back; `None`: a separator, given the time of the line before.
        let mut times: Vec<Option<i64>> = vec![None; object.len()];
        let mut hi = end_ms;
        let after_last = results.last().map_or(0, |r| r.0 + 1);
        for i in (after_last..object.len()).rev().filter(|i| object[*i]) {
            times[i] = Some(hi);
            hi -= 1;
        }
        for k in (0..results.len()).rev() {
            let (last, duration) = results[k];
            let first = if k == 0 { 0 } else { results[k - 1].0 + 1 };
            let lines: Vec<usize> = (first..=last).filter(|i| object[*i]).collect();
            let (start, span) = (hi - duration, (lines.len() as i64 - 1).max(1));
            for (n, i) in lines.iter().enumerate() {
                times[*i] = Some(start + duration * n as i64 / span);
            }
            times[last] = Some(hi);
            hi = start - 1;
        }
        // Never earlier than an earlier read's last time, never going back.
        let mut previous = floor_ms.map_or(i64::MIN, |f| f + 1);
        times
            .into_iter()
            .map(|t| {
                previous = previous.max(t.unwrap_or(previous));
                previous
            })
            .collect()
    }
}

fn format_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn parse_ms(text: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(text).ok().map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_times(buf: &[u8], end_ms: i64, floor_ms: Option<i64>) -> Vec<i64> {
        let mut times = Times::default();
        for_each_line(buf, 0, 0, |bytes, _, _| times.see(bytes));
        times.place(end_ms, floor_ms)
    }

    #[test]
    fn runs_end_at_the_mtime_and_span_their_durations() {
        let log = concat!(
            "{\"type\":\"system\",\"subtype\":\"init\"}\n",
            "{\"type\":\"assistant\"}\n",
            "{\"type\":\"result\",\"duration_ms\":1000}\n",
            "=== next run ===\n",
            "{\"type\":\"system\",\"subtype\":\"init\"}\n",
            "{\"type\":\"result\",\"duration_ms\":500}\n",
            "{\"type\":\"system\",\"subtype\":\"init\"}\n",
            "{\"type\":\"assistant\"}\n",
        );
        let t = line_times(log.as_bytes(), 100_000, None);
        // The run still going: its lines a millisecond apart, the last at the mtime.
        assert_eq!(&t[6..], &[99_999, 100_000]);
        // The run before ends just before it, having lasted 500 ms; the separator before its
        // `init` takes the time of the line before it.
        assert_eq!(&t[3..6], &[99_497, 99_498, 99_998]);
        assert_eq!(&t[..3], &[98_497, 98_997, 99_497]);
        // An earlier read's last time is a floor: times only go forward.
        let later = line_times(log.as_bytes(), 100_000, Some(99_600));
        assert!(later.windows(2).all(|w| w[0] <= w[1]) && later[0] == 99_601, "{later:?}");
        assert_eq!(later[7], 100_000);
    }

    #[test]
    fn times_are_written_as_transcripts_write_them() {
        assert_eq!(format_ms(1_767_600_000_123), "2026-01-05T08:00:00.123Z");
        assert_eq!(parse_ms("2026-01-05T08:00:00.123Z"), Some(1_767_600_000_123));
    }
}
