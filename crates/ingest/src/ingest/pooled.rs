//! Turns that come from elsewhere than a transcript file (a team's pooled turns), stored as a
//! parsed transcript's are: their sessions, the turns queued for detection, their tool calls.
//! Detection then reads them as it reads what ingest read from disk.

use anyhow::Result;
use rusqlite::Transaction;

use super::IngestReport;
use super::files::Format;
use super::parse::SessionRec;
use super::turn::{CallRec, RowRef, TurnRec};
use super::write::{RunCache, session_id, write_turn};
use crate::model::Outcome;
use crate::step::CallStep;

/// What a pooled turn's agent said last when it asked the user something: all a member's
/// machine tells of that message, and what detection reads of it (`signature::asks`).
pub const ASKED: &str = "(the agent asked the user something?)";

/// One complete main-stream turn, as its agent ended it.
pub struct PooledTurn<'a> {
    pub session_key: &'a str,
    pub project: Option<&'a str>,
    pub request: &'a str,
    pub ended_at: Option<&'a str>,
    pub success: bool,
    /// The agent's last message asked the user something (the message itself is not pooled).
    pub asked: bool,
    pub calls: Vec<PooledCall>,
}

/// One tool call of a pooled turn.
pub struct PooledCall {
    pub name: String,
    pub input_shape: String,
    /// Its step keys (one per line).
    pub step: String,
    /// Its redacted detail (the command, the path).
    pub detail: Option<String>,
    pub is_error: bool,
}

/// Stores pooled turns of one agent in one transaction, in the order given (detection's order
/// for turns that end at the same time, and a session's order of its turns).
pub struct PooledWriter<'t> {
    tx: &'t Transaction<'t>,
    agent: String,
    /// What the turns' rows name as the file they were read from.
    origin: String,
    cache: RunCache,
    report: IngestReport,
    written: u64,
}

impl<'t> PooledWriter<'t> {
    pub fn new(tx: &'t Transaction<'t>, agent: &str, origin: &str) -> PooledWriter<'t> {
        PooledWriter {
            tx,
            agent: agent.to_string(),
            origin: origin.to_string(),
            cache: RunCache::new(),
            report: IngestReport::default(),
            written: 0,
        }
    }

    /// Stores `turn` complete and pending detection; returns its row id.
    pub fn write(&mut self, turn: PooledTurn) -> Result<i64> {
        let at = turn.ended_at.map(str::to_string);
        let session = SessionRec {
            project: turn.project.map(str::to_string),
            started_at: at.clone(),
            ended_at: at.clone(),
            title: None,
        };
        let id = session_id(
            self.tx,
            &mut self.cache,
            &self.agent,
            turn.session_key,
            Format::Native,
            Some(&session),
            &mut self.report,
        )?;
        let new_calls = turn
            .calls
            .into_iter()
            .zip(0..)
            .map(|(c, ordinal)| CallRec {
                call_id: None,
                ordinal,
                name: c.name,
                input_shape: c.input_shape,
                step: CallStep { step: c.step, detail: c.detail },
                is_error: c.is_error,
                at: None,
            })
            .collect();
        let rec = TurnRec {
            row: RowRef::New,
            session_key: turn.session_key.to_string(),
            start_offset: self.written,
            user_input: turn.request.to_string(),
            signature: None,
            picked_skill: None,
            outcome: if turn.success { Outcome::Success } else { Outcome::Failure },
            failure_reason: None,
            summary: turn.asked.then(|| ASKED.to_string()),
            started_at: None,
            ended_at: at,
            is_sidechain: false,
            complete: true,
            model: None,
            tokens: None,
            new_calls,
            late_errors: Vec::new(),
            invocations: Vec::new(),
            open_slot: None,
        };
        self.written += 1;
        write_turn(self.tx, &self.agent, &self.origin, id, &rec, &mut self.report)
    }
}

#[cfg(test)]
mod tests {
    use super::ASKED;
    use crate::text::signature::asks;

    #[test]
    fn a_pooled_turn_that_asked_reads_as_asking() {
        assert!(asks(ASKED));
    }
}
