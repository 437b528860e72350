//! Lessons: what the user had to correct, and failures fixed the same way in several sessions,
//! learnt once from transcripts, reviewed by a person, written where the agent reads them, and
//! kept only while they help. See docs/lessons.md.
//!
//! The tables `lessons`, `lesson_sessions` and `lesson_progress` are owned by `db`. Extraction
//! (`extract`) reads turns detection has consumed, through `ingest`; the guard (`guard`) refuses
//! lessons that do not generalize; `measure` counts later turns that match a lesson; `retention`
//! scores, trims and prunes; `playbook` writes the approved ones to a skill folder and to managed
//! blocks in project instruction files.

mod command;
pub mod cues;
pub mod db;
mod extract;
pub mod guard;
mod measure;
pub mod playbook;
pub mod retention;
pub mod utility;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};

use crate::workspace::Workspace;

crate::text_enum! {
    /// Where a lesson stands. `sighted`: seen, not yet enough to propose (a fix seen in one
    /// session). `rejected`: the generalization guard refused it (`reject_reason` says why).
    /// `pruned`: dropped for low utility. Only `approved` and `pinned` reach the agent.
    pub enum LessonStatus {
        Sighted = "sighted",
        Proposed = "proposed",
        Rejected = "rejected",
        Approved = "approved",
        Pinned = "pinned",
        Dismissed = "dismissed",
        Pruned = "pruned",
    }
}

impl LessonStatus {
    /// Approved or pinned: in the playbook, measured on later turns.
    pub fn is_live(self) -> bool {
        matches!(self, LessonStatus::Approved | LessonStatus::Pinned)
    }
}

crate::text_enum! {
    /// What a lesson was learnt from.
    pub enum LessonKind {
        Correction = "correction",
        RecurringFix = "recurring_fix",
        /// What the person asks right after a procedure of theirs (a slash command), in
        /// several sessions: something to add to the procedure.
        FollowUp = "follow_up",
    }
}

/// How a later turn repeats a lesson's anti-pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AntiMatch {
    /// A call with this step failed (the failure the fix avoids).
    Failed { step: String },
    /// A call ran this exact command again (words as `command::segment_words` gives them).
    /// `instead`: the step the user asked for, which matches a later turn too.
    Command {
        step: String,
        words: Vec<String>,
        #[serde(default)]
        instead: Option<String>,
    },
    /// The turn ran the step (or `instead`) and the user's next turn corrected it again.
    Corrected {
        step: String,
        #[serde(default)]
        instead: Option<String>,
    },
    /// A run of the procedure (`/name` asked as the request) was followed by the same request
    /// again (`asked`: its words as `procedures::follow_up_key` gives them).
    AskedAfter { procedure: String, asked: String },
}

impl AntiMatch {
    /// The steps a later turn runs when the lesson applies: the trigger step, and for a
    /// correction the step the user asked for instead.
    pub fn steps(&self) -> Vec<&str> {
        match self {
            AntiMatch::Failed { step } => vec![step],
            // Runs are requests, not steps (see `measure`).
            AntiMatch::AskedAfter { .. } => Vec::new(),
            AntiMatch::Command { step, instead, .. } | AntiMatch::Corrected { step, instead } => {
                std::iter::once(step.as_str()).chain(instead.as_deref()).collect()
            }
        }
    }
}

/// One sighting of a lesson, in context: redacted and clipped when read from the transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub session_key: String,
    pub turn_id: i64,
    pub project: Option<String>,
    /// The request the corrected or failing work served.
    pub request: String,
    /// The agent's action the user corrected, or the call that failed.
    pub action: String,
    /// The user's correction (corrections only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<String>,
    /// The steps that fixed the failure (recurring fixes only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fix: Vec<String>,
    /// What the agent did next: the first call after the correction, or the passing run.
    pub followed_by: Option<String>,
    /// Command words of the passing run (recurring fixes that changed flags), for templates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_words: Vec<String>,
}

/// A lesson as review and the playbook see it.
#[derive(Debug, Clone, Serialize)]
pub struct Lesson {
    pub id: i64,
    pub kind: LessonKind,
    pub status: LessonStatus,
    pub trigger: String,
    pub trigger_step: String,
    pub anti_pattern: String,
    pub correct_pattern: String,
    pub domains: Vec<String>,
    pub confidence: f64,
    pub source_hash: String,
    pub sessions: Vec<String>,
    pub reject_reason: Option<String>,
    pub verified: bool,
    pub edited: bool,
    /// Later matching turns after approval, and how many of them avoided the anti-pattern.
    pub retrievals: i64,
    pub helpful: i64,
    pub hit_rate: f64,
    /// Matching turns before approval, and how many of them showed the anti-pattern.
    pub before_turns: i64,
    pub before_hits: i64,
    /// After approval: matching turns, and how many showed the anti-pattern.
    pub after_turns: i64,
    pub after_hits: i64,
    pub utility: f64,
    pub approved_at: Option<String>,
    pub last_retrieved_at: Option<String>,
    pub created_at: String,
    #[serde(skip)]
    pub anti_match: Option<AntiMatch>,
    pub evidence: Vec<Evidence>,
}

/// What one extraction pass did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct LessonsReport {
    pub sessions_read: usize,
    pub turns_read: usize,
    /// Lessons newly proposed for review.
    pub proposed: usize,
    /// Lessons the generalization guard refused this pass.
    pub rejected: usize,
    /// Sightings that added a session to a lesson already known.
    pub sightings: usize,
    /// Later turns matched against live lessons.
    pub retrievals: usize,
    pub pruned: usize,
    pub verified: usize,
    /// The playbook or a managed block was rewritten.
    pub playbook_written: bool,
}

/// The pass after detection: read the detected turns of `sessions` not read yet, record
/// corrections and recurring fixes, measure live lessons on those turns, prune, and rewrite
/// the playbook when the live set changed.
pub fn after_detect(ws: &mut Workspace, sessions: &[i64]) -> Result<LessonsReport> {
    let mut report = LessonsReport::default();
    if sessions.is_empty() {
        return Ok(report);
    }
    let before = playbook::live_stamp(ws.store.conn())?;
    extract::run(ws, sessions, &mut report)?;
    let cfg = ws.config.lessons.clone();
    report.pruned = retention::prune_low_utility(
        ws.store.conn_mut(),
        &cfg,
        retention::MIN_RETRIEVALS,
        retention::MAX_DROP_FRACTION,
    )?
    .len();
    report.verified = measure::judge_verified(ws.store.conn(), &ws.config.lessons)?;
    if playbook::live_stamp(ws.store.conn())? != before || report.pruned > 0 {
        report.playbook_written = playbook::write_all(ws)?.changed();
    }
    Ok(report)
}

/// Every lesson with the given statuses (all when empty), newest first, with utility.
pub fn list(ws: &Workspace, statuses: &[LessonStatus]) -> Result<Vec<Lesson>> {
    db::list(ws.store.conn(), statuses, &ws.config.lessons)
}

/// A person's decision on a lesson: approve, pin, dismiss (or back to proposed). Approving
/// counts the matching turns before approval; the playbook is rewritten.
pub fn set_status(ws: &mut Workspace, id: i64, status: LessonStatus) -> Result<Lesson> {
    let lesson = db::get(ws.store.conn(), id, &ws.config.lessons)?;
    if matches!(lesson.status, LessonStatus::Sighted) && status.is_live() {
        bail!("lesson {id} was seen in one session only: there is nothing to approve yet");
    }
    if !matches!(
        status,
        LessonStatus::Approved
            | LessonStatus::Pinned
            | LessonStatus::Dismissed
            | LessonStatus::Proposed
    ) {
        bail!("a lesson can be approved, pinned, dismissed or reopened, not set to {status}");
    }
    let newly_live = status.is_live() && !lesson.status.is_live();
    playbook::mark_pending(ws.store.conn())?;
    db::set_status(ws.store.conn(), id, status)?;
    if newly_live {
        measure::count_before(ws.store.conn_mut(), id)?;
    }
    playbook::follow(ws)?;
    db::get(ws.store.conn(), id, &ws.config.lessons)
}

/// A person's rewording of a lesson's text. An empty trigger or correct pattern is refused.
pub fn edit(
    ws: &mut Workspace,
    id: i64,
    trigger: Option<&str>,
    anti_pattern: Option<&str>,
    correct_pattern: Option<&str>,
) -> Result<Lesson> {
    for (what, v) in [("trigger", trigger), ("correct pattern", correct_pattern)] {
        if v.is_some_and(|t| t.trim().is_empty()) {
            bail!("a lesson's {what} cannot be empty");
        }
    }
    db::get(ws.store.conn(), id, &ws.config.lessons)?;
    playbook::mark_pending(ws.store.conn())?;
    db::edit(ws.store.conn(), id, trigger, anti_pattern, correct_pattern)?;
    playbook::follow(ws)?;
    db::get(ws.store.conn(), id, &ws.config.lessons)
}
