//! What detection's evidence becomes: candidates for review, in a table detection does not own.
//! Detection hands each batch's evidence to a [`Candidates`] it is given (the pipeline gives it
//! `draft`'s), and asks it the few things its next placements depend on (whether a workflow is
//! already proposed, which open rows the workflow now says the same as). Neither side imports
//! the other.

use anyhow::Result;
use rusqlite::Connection;

use super::{Reason, WorkflowEvidence};
use crate::model::ToolStep;

/// What kind of evidence a candidate is recorded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceKind {
    /// A tool sequence recurring across sessions.
    Sequence,
    /// A streak of successful turns with the same task signature.
    Signature,
    /// A workflow mined across sessions by its specific steps.
    Workflow,
    /// One session a person pointed at (`skilldeck learn`).
    Learn,
}

/// What detection found for one candidate-to-be.
pub struct CandidateEvidence {
    pub agent_id: String,
    pub hash: String,
    pub kind: EvidenceKind,
    pub signature: Option<String>,
    pub steps: Vec<ToolStep>,
    /// A workflow's sessions (they replace the recorded ones); for a sequence or a streak, the
    /// sessions to add (those it already has are skipped).
    pub session_keys: Vec<String>,
    /// For a sequence, the distinct sessions so far; for a streak, the successes in this streak
    /// (added to what earlier streaks of the same signature counted).
    pub occurrences: i64,
    pub examples: Vec<String>,
    /// Too few specific steps: recorded, never drafted nor queued.
    pub evidence_only: bool,
    /// The mined workflow (kind `Workflow`, `Learn`).
    pub workflow: Option<WorkflowEvidence>,
    /// The mined workflow that holds this evidence's (last) turn, if any.
    pub workflow_id: Option<i64>,
}

/// What recording one piece of evidence did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// A new candidate with a draft.
    Created(i64),
    /// An open candidate whose draft was rewritten with the new evidence.
    Redrafted(i64),
    /// A promoted, dismissed or version-proposing candidate: only its counts changed.
    Counted(i64),
    /// A row recorded as evidence only: no draft, not queued.
    Evidence(i64),
}

impl Recorded {
    pub fn id(self) -> i64 {
        match self {
            Recorded::Created(id)
            | Recorded::Redrafted(id)
            | Recorded::Counted(id)
            | Recorded::Evidence(id) => id,
        }
    }
}

/// The counts a sequence's candidate holds.
pub struct SequenceTally {
    pub occurrences: i64,
    /// Its first distinct requests.
    pub examples: Vec<String>,
}

/// Where detection's evidence is recorded, and what it asks of what was recorded. Every call
/// runs in the caller's transaction on `conn`.
pub trait Candidates {
    /// Creates or updates the candidate for `ev`. An open candidate's draft is kept to be staged
    /// once the transaction commits.
    fn record(&mut self, conn: &Connection, ev: &CandidateEvidence) -> Result<Recorded>;

    /// Candidates `ids` become evidence only: a proposed workflow says the same work with its
    /// steps. Their drafts are not staged, and folders staged before are removed.
    fn supersede(&mut self, conn: &Connection, ids: &[i64]) -> Result<()>;

    /// The counts of the candidate recorded for sequence `hash` of `agent`, if there is one.
    fn sequence_tally(
        &self,
        conn: &Connection,
        agent: &str,
        hash: &str,
    ) -> Result<Option<SequenceTally>>;

    /// Whether candidate `id` went live with other steps than `steps`.
    fn promoted_otherwise(&self, conn: &Connection, id: i64, steps: &[ToolStep]) -> Result<bool>;

    /// Candidates that pointed at mined workflow `from` point at `into`.
    fn move_workflow_links(&self, conn: &Connection, from: i64, into: i64) -> Result<()>;

    /// The agent's proposed workflow candidates (open or promoted) other than workflow
    /// `except`'s: their ids, whether each is still open, and their reasons.
    fn proposed_workflows(
        &self,
        conn: &Connection,
        agent: &str,
        except: i64,
    ) -> Result<Vec<(i64, bool, Reason)>>;

    /// Whether candidate `id` is proposed (recorded, not as evidence only).
    fn is_proposed(&self, conn: &Connection, id: i64) -> Result<bool>;

    /// The open, proposed candidates of the agent's sequences `hashes` (not a skill's new
    /// version), in the order of `hashes`.
    fn open_sequences(&self, conn: &Connection, agent: &str, hashes: &[String])
    -> Result<Vec<i64>>;

    /// The open, proposed streak candidates whose last turn workflow `workflow` holds.
    fn open_streaks(&self, conn: &Connection, workflow: i64) -> Result<Vec<i64>>;
}
