//! Native trajectory JSONL: one line per finished turn, with the `TurnTrajectory` fields
//! (`user_input`, `picked_skill`, `outcome`, `summary`, `timestamp`), for agents that write it
//! directly. Optional `session` (or `session_id`) groups lines; without it the file is the session.

use std::borrow::Cow;

use serde::Deserialize;

use super::parse::{Sink, for_each_line, json_reason};
use super::turn::{InvocationRec, RowRef, TurnRec, clip};
use crate::model::Outcome;
use crate::text::{redact, signature};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    user_input: Option<Cow<'a, str>>,
    #[serde(borrow)]
    picked_skill: Option<Cow<'a, str>>,
    #[serde(borrow)]
    outcome: Option<Cow<'a, str>>,
    #[serde(borrow)]
    summary: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, alias = "session_id")]
    session: Option<Cow<'a, str>>,
}

pub fn parse(sink: &mut Sink, buf: &[u8], base: u64) -> (u64, u64) {
    let lines_before = sink.lines_before;
    for_each_line(buf, base, lines_before, |bytes, offset, line_no| {
        line(sink, bytes, offset, line_no);
    })
}

/// One line of new bytes (a native line is a whole turn: nothing is carried between lines).
pub fn line(sink: &mut Sink, bytes: &[u8], offset: u64, line_no: u64) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let parsed: Line = match serde_json::from_slice(bytes) {
        Ok(l) => l,
        Err(e) => return sink.bad(line_no, json_reason(bytes, &e)),
    };
    let Some(user_input) = parsed.user_input else {
        return sink.bad(line_no, "native line without \"user_input\"");
    };
    let Some(outcome) = parsed.outcome.as_deref().and_then(Outcome::parse) else {
        return sink.bad(line_no, "native line without \"outcome\" success|failure");
    };
    let path = sink.path.to_string();
    let session = parsed.session.as_deref().unwrap_or(&path).to_string();
    let at = parsed.timestamp.as_deref().map(str::to_string);
    sink.session(&session, None, at.as_deref());
    let picked = parsed.picked_skill.as_deref().map(str::trim).filter(|s| !s.is_empty());
    let invocations = picked
        .map(|skill| InvocationRec {
            skill: skill.to_string(),
            outcome,
            call_id: format!("native:{path}:{offset}"),
            at: at.clone(),
            via: None,
        })
        .into_iter()
        .collect();
    let user_input = clip(&redact::secrets(user_input.trim()));
    sink.out.turns.push(TurnRec {
        row: RowRef::New,
        session_key: session,
        start_offset: offset,
        signature: Some(signature::task_signature(&user_input)),
        user_input,
        picked_skill: picked.map(str::to_string),
        outcome,
        failure_reason: (outcome == Outcome::Failure).then(|| "reported".to_string()),
        summary: parsed.summary.as_deref().map(|t| clip(&redact::secrets(t))),
        started_at: at.clone(),
        ended_at: at,
        is_sidechain: false,
        complete: true,
        model: None,
        tokens: None,
        new_calls: Vec::new(),
        late_errors: Vec::new(),
        invocations,
        open_slot: None,
    });
}
