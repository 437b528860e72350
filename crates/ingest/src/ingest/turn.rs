//! Turns under construction: what the format parsers feed, what the writer stores, and the
//! part of it carried between runs (an open turn) in `ingested_files.state`.

use serde::{Deserialize, Serialize};

use crate::model::Outcome;
use crate::step::CallStep;
use crate::text::{redact, signature};

/// Longest text kept for a turn's user input or summary.
const MAX_TEXT: usize = 4000;

/// A tool call first seen in this run.
#[derive(Debug, Clone)]
pub struct CallRec {
    pub call_id: Option<String>,
    pub ordinal: u32,
    pub name: String,
    pub input_shape: String,
    /// Step keys and redacted detail (`crate::step`).
    pub step: CallStep,
    pub is_error: bool,
    pub at: Option<String>,
}

/// A skill invocation whose outcome is known.
#[derive(Debug, Clone)]
pub struct InvocationRec {
    pub skill: String,
    pub outcome: Outcome,
    pub call_id: String,
    pub at: Option<String>,
    /// How the skill was used when not through a `Skill` tool call (`slash`, `read`, `injected`).
    pub via: Option<String>,
}

/// A use of a skill without a tool result of its own (a `/name` typed by the user, the agent
/// reading its SKILL.md, a body Codex injected): its outcome is the turn's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SkillUse {
    pub skill: String,
    /// Unique per agent: `<via>:<id of the line or call>`.
    pub use_id: String,
    pub via: String,
    pub at: Option<String>,
}

/// Where a turn's row is: already stored (an open turn from an earlier run) or new.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum RowRef {
    Stored(i64),
    New,
}

/// Everything the writer needs to insert or update one turn.
#[derive(Debug, Clone)]
pub struct TurnRec {
    pub row: RowRef,
    pub session_key: String,
    pub start_offset: u64,
    pub user_input: String,
    /// The prompt's task signature, for a turn not stored yet (`text::signature::task_signature`
    /// of `user_input`): worked out here, on a parser thread, and stored with the turn.
    pub signature: Option<String>,
    pub picked_skill: Option<String>,
    pub outcome: Outcome,
    pub failure_reason: Option<String>,
    pub summary: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub is_sidechain: bool,
    pub complete: bool,
    pub model: Option<String>,
    pub tokens: Option<u64>,
    pub new_calls: Vec<CallRec>,
    /// Calls stored by an earlier run whose result turned out to be an error.
    pub late_errors: Vec<String>,
    pub invocations: Vec<InvocationRec>,
    /// Index in `FileState::open` this turn's id must be written back to, if it stays open.
    pub open_slot: Option<usize>,
}

/// A tool call whose result has not been seen yet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingCall {
    pub call_id: String,
    /// Stored in an earlier run (its row exists) rather than among `new_calls`.
    pub stored: bool,
    pub skill: Option<String>,
    pub at: Option<String>,
}

/// The carried part of a turn: enough to continue it when more lines arrive.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenTurn {
    pub row: RowRef,
    pub session_key: String,
    pub start_offset: u64,
    pub user_input: String,
    pub summary: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub is_sidechain: bool,
    pub next_ordinal: u32,
    pub interrupted: bool,
    pub api_error: bool,
    pub limit_stop: Option<String>,
    /// The latest tool result seen in the turn was an error (no success after it).
    pub last_result_error: bool,
    /// The latest assistant message's stop reason (`end_turn`, `tool_use`, ...).
    pub last_stop: Option<String>,
    pub last_message_id: Option<String>,
    /// Explicit end seen (Codex task_complete / turn_aborted).
    pub ended: bool,
    pub pending: Vec<PendingCall>,
    /// Skill uses settled with the turn's outcome when it closes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<SkillUse>,
    /// The model that answered (the latest one the transcript names in the turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tokens the transcript records for the turn's API messages, and the latest message's
    /// share of them (Claude Code repeats a message's usage on each of its lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Parser state carried between runs in `ingested_files.state` (JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileState {
    /// Turns still open at the end of what was read, one per stream (main, sidechain).
    pub open: Vec<OpenTurn>,
    /// Format-specific context (Codex: session id and cwd from session_meta).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Stream-json: the latest time given to a line (its lines carry none; see `stream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_at: Option<String>,
    /// Codex: the model named by the latest `turn_context`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A turn being built in this run, around its carried part.
pub struct TurnBuilder {
    pub open: OpenTurn,
    pub new_calls: Vec<CallRec>,
    pub late_errors: Vec<String>,
    pub invocations: Vec<InvocationRec>,
}

pub fn clip(text: &str) -> String {
    clip_str(text).to_string()
}

fn clip_str(text: &str) -> &str {
    if text.len() <= MAX_TEXT {
        return text;
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl TurnBuilder {
    pub fn start(
        session_key: &str,
        start_offset: u64,
        user_input: &str,
        at: Option<&str>,
        is_sidechain: bool,
    ) -> TurnBuilder {
        TurnBuilder::resume(OpenTurn {
            row: RowRef::New,
            session_key: session_key.to_string(),
            start_offset,
            // Prompts are stored redacted: no secret reaches the evidence.
            user_input: clip(&redact::secrets(user_input)),
            summary: None,
            started_at: at.map(str::to_string),
            ended_at: at.map(str::to_string),
            is_sidechain,
            next_ordinal: 0,
            interrupted: false,
            api_error: false,
            limit_stop: None,
            last_result_error: false,
            last_stop: None,
            last_message_id: None,
            ended: false,
            pending: Vec::new(),
            uses: Vec::new(),
            model: None,
            tokens: None,
            message_tokens: 0,
        })
    }

    /// Adds an API message's tokens; a later line of the same message replaces its share.
    pub fn count_tokens(&mut self, tokens: Option<u64>, same_message: bool) {
        let Some(n) = tokens else { return };
        let o = &mut self.open;
        let before = o.tokens.unwrap_or(0) - if same_message { o.message_tokens } else { 0 };
        o.tokens = Some(before + n);
        o.message_tokens = n;
    }

    pub fn resume(open: OpenTurn) -> TurnBuilder {
        TurnBuilder {
            open,
            new_calls: Vec::new(),
            late_errors: Vec::new(),
            invocations: Vec::new(),
        }
    }

    pub fn touch(&mut self, at: Option<&str>) {
        if let Some(at) = at {
            if self.open.started_at.is_none() {
                self.open.started_at = Some(at.to_string());
            }
            set_reusing(&mut self.open.ended_at, at);
        }
    }

    /// Records a tool call; returns false if a call with this id is already in the turn.
    pub fn add_call(
        &mut self,
        call_id: Option<&str>,
        name: &str,
        input_shape: String,
        step: CallStep,
        skill: Option<String>,
        at: Option<&str>,
    ) -> bool {
        if let Some(id) = call_id {
            let seen = self.open.pending.iter().any(|p| p.call_id == id)
                || self.new_calls.iter().any(|c| c.call_id.as_deref() == Some(id));
            if seen {
                return false;
            }
            self.open.pending.push(PendingCall {
                call_id: id.to_string(),
                stored: false,
                skill,
                at: at.map(str::to_string),
            });
        }
        self.new_calls.push(CallRec {
            call_id: call_id.map(str::to_string),
            ordinal: self.open.next_ordinal,
            name: name.to_string(),
            input_shape,
            step,
            is_error: false,
            at: at.map(str::to_string),
        });
        self.open.next_ordinal += 1;
        self.open.last_stop = None;
        true
    }

    /// Applies a tool result. Returns true when it newly marks a call as an error.
    pub fn resolve(&mut self, call_id: &str, is_error: bool) -> bool {
        self.open.last_result_error = is_error;
        self.open.last_stop = None;
        let Some(pos) = self.open.pending.iter().position(|p| p.call_id == call_id) else {
            // A second result for a call (Codex reports exit codes twice): only upgrade to error.
            if is_error
                && let Some(call) =
                    self.new_calls.iter_mut().find(|c| c.call_id.as_deref() == Some(call_id))
            {
                let newly = !call.is_error;
                call.is_error = true;
                return newly;
            }
            return false;
        };
        let pending = self.open.pending.remove(pos);
        if let Some(skill) = pending.skill {
            let outcome = if is_error { Outcome::Failure } else { Outcome::Success };
            self.invocations.push(InvocationRec {
                skill,
                outcome,
                call_id: pending.call_id.clone(),
                at: pending.at,
                via: None,
            });
        }
        if !is_error {
            return false;
        }
        if pending.stored {
            self.late_errors.push(pending.call_id);
        } else if let Some(call) =
            self.new_calls.iter_mut().find(|c| c.call_id.as_deref() == Some(call_id))
        {
            call.is_error = true;
        }
        true
    }

    /// Records a use of `skill` other than a `Skill` tool call. A skill is counted once per turn:
    /// a `/name` and the body Claude Code injects for it, or a `Skill` call followed by a read of
    /// the same SKILL.md, are one use.
    pub fn add_use(&mut self, skill: &str, use_id: String, via: &str, at: Option<&str>) {
        let o = &self.open;
        let seen = o.uses.iter().any(|u| u.skill == skill)
            || o.pending.iter().any(|p| p.skill.as_deref() == Some(skill))
            || self.invocations.iter().any(|i| i.skill == skill);
        if seen || skill.is_empty() {
            return;
        }
        self.open.uses.push(SkillUse {
            skill: skill.to_string(),
            use_id,
            via: via.to_string(),
            at: at.map(str::to_string),
        });
    }

    pub fn set_summary(&mut self, text: &str) {
        let text = text.trim();
        if !text.is_empty() {
            set_reusing(&mut self.open.summary, clip_str(text));
        }
    }

    pub fn outcome(&self) -> (Outcome, Option<String>) {
        let o = &self.open;
        let reason = if o.interrupted {
            Some("interrupted".to_string())
        } else if o.api_error {
            Some("api_error".to_string())
        } else if let Some(stop) = &o.limit_stop {
            Some(stop.clone())
        } else if o.last_result_error {
            Some("tool_error".to_string())
        } else {
            None
        };
        match reason {
            Some(r) => (Outcome::Failure, Some(r)),
            None => (Outcome::Success, None),
        }
    }

    /// Whether the transcript shows the turn has ended even without a next prompt.
    pub fn shows_end(&self) -> bool {
        let o = &self.open;
        o.ended
            || o.interrupted
            || (o.pending.is_empty() && o.last_stop.as_deref() == Some("end_turn"))
    }

    /// Closes the builder into a record. A complete turn settles its still-pending skill
    /// calls with the turn's outcome; an open one returns its carried part too.
    pub fn finish(mut self, complete: bool) -> (TurnRec, Option<OpenTurn>) {
        let (outcome, failure_reason) = self.outcome();
        if complete {
            for p in std::mem::take(&mut self.open.pending) {
                if let Some(skill) = p.skill {
                    self.invocations.push(InvocationRec {
                        skill,
                        outcome,
                        call_id: p.call_id,
                        at: p.at,
                        via: None,
                    });
                }
            }
            for u in std::mem::take(&mut self.open.uses) {
                self.invocations.push(InvocationRec {
                    skill: u.skill,
                    outcome,
                    call_id: u.use_id,
                    at: u.at,
                    via: Some(u.via),
                });
            }
        }
        // Redacted once per turn, for the record and for the part carried to the next run (the
        // database keeps both).
        let summary = self.open.summary.as_deref().map(|t| redact::secrets(t).into_owned());
        let o = &self.open;
        let rec = TurnRec {
            row: o.row,
            session_key: o.session_key.clone(),
            start_offset: o.start_offset,
            user_input: o.user_input.clone(),
            signature: (o.row == RowRef::New).then(|| signature::task_signature(&o.user_input)),
            picked_skill: None,
            outcome,
            failure_reason,
            summary: summary.clone(),
            started_at: o.started_at.clone(),
            ended_at: o.ended_at.clone(),
            is_sidechain: o.is_sidechain,
            complete,
            model: o.model.clone(),
            tokens: o.tokens,
            new_calls: self.new_calls,
            late_errors: self.late_errors,
            invocations: self.invocations,
            open_slot: None,
        };
        if complete {
            return (rec, None);
        }
        let mut open = self.open;
        open.summary = summary;
        for p in &mut open.pending {
            p.stored = true;
        }
        (rec, Some(open))
    }
}

/// Sets `slot` to `text`, reusing its buffer (timestamps change on almost every line).
pub fn set_reusing(slot: &mut Option<String>, text: &str) {
    let s = slot.get_or_insert_with(String::new);
    s.clear();
    s.push_str(text);
}
