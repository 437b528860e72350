//! Uses against missed triggers since a skill went live.
//!
//! The workflow a skill stands for is the one it was drafted from (its candidate's recorded
//! workflow) or, for a hand-written skill, the commands its body names (`steps::of_body`). Every
//! main-stream turn of the skill's agent that started after the skill went live and repeats that
//! workflow (`triggers::repeats`) without the skill being used in it is a missed trigger. A skill
//! with at least `NOT_TRIGGERING_MIN` missed triggers and at least twice as many misses as uses is
//! "not triggering": its description is not making the agent pick it for the requests shown.

use anyhow::Result;
use rusqlite::Connection;
use serde::Serialize;

use super::{steps, triggers};
use crate::catalog::invocations;
use crate::catalog::skills::UptakeRef;
use crate::fsio;
use crate::ingest;

/// Reads the step keys of the workflow a skill was drafted from, by its candidate's id. Drafting
/// owns the candidates and sits above usage, so usage's callers hand in its reader
/// (`draft::candidates::workflow_steps`: any such function is one).
pub trait DraftedSteps: Copy {
    fn drafted_steps(self, conn: &Connection, candidate_id: i64) -> Result<Option<Vec<String>>>;
}

impl<F> DraftedSteps for F
where
    F: Fn(&Connection, i64) -> Result<Option<Vec<String>>> + Copy,
{
    fn drafted_steps(self, conn: &Connection, candidate_id: i64) -> Result<Option<Vec<String>>> {
        self(conn, candidate_id)
    }
}

/// Misses before a skill can be called not triggering.
pub const NOT_TRIGGERING_MIN: usize = 3;

#[derive(Debug, Clone, Serialize)]
pub struct Missed {
    pub turn_id: i64,
    pub session_key: String,
    /// The request that should have triggered the skill (untrusted text).
    pub request: String,
    pub at: Option<String>,
    /// Workflow steps the turn repeated, of the workflow's specific steps.
    pub matched: usize,
    pub of: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Uptake {
    pub skill_id: i64,
    pub skill: String,
    pub description: String,
    pub since: String,
    /// The workflow's step keys and where they came from (`workflow` or `body`).
    pub workflow: Vec<String>,
    pub workflow_from: &'static str,
    pub uses: usize,
    /// Sessions the skill was used in since it went live.
    pub use_sessions: Vec<String>,
    pub missed: Vec<Missed>,
    pub not_triggering: bool,
}

/// The steps `skill` stands for and where they came from.
pub fn workflow_of(
    conn: &Connection,
    skill: &UptakeRef,
    drafted: impl DraftedSteps,
) -> Result<(Vec<String>, &'static str)> {
    if let Some(id) = skill.candidate_id
        && let Some(keys) = drafted.drafted_steps(conn, id)?
        && !steps::specific(&keys).is_empty()
    {
        return Ok((keys, "workflow"));
    }
    // Capped, and a FIFO or device in its place is refused rather than read (`fsio`).
    let body = fsio::read_skill_md_text(&std::path::Path::new(&skill.path).join("SKILL.md"))
        .unwrap_or_default();
    Ok((steps::of_body(&body), "body"))
}

/// Uses and missed triggers of `skill` since it went live.
pub fn uptake(conn: &Connection, skill: &UptakeRef, drafted: impl DraftedSteps) -> Result<Uptake> {
    let (workflow, workflow_from) = workflow_of(conn, skill, drafted)?;
    let (used_turns, use_sessions) =
        invocations::uses_since(conn, skill.id, &skill.agent, &skill.name, &skill.since)?;
    let mut missed = Vec::new();
    if !steps::specific(&workflow).is_empty() {
        for turn in ingest::turn_steps_since(conn, &skill.agent, &skill.since)? {
            if used_turns.contains(&turn.turn_id) || !triggers::repeats(&workflow, &turn.steps) {
                continue;
            }
            let (matched, of) = triggers::coverage(&workflow, &turn.steps);
            missed.push(Missed {
                turn_id: turn.turn_id,
                session_key: turn.session_key,
                request: turn.user_input,
                at: turn.started_at,
                matched,
                of,
            });
        }
    }
    let uses = used_turns.len().max(use_sessions.len());
    let not_triggering = missed.len() >= NOT_TRIGGERING_MIN && missed.len() >= 2 * uses;
    Ok(Uptake {
        skill_id: skill.id,
        skill: skill.name.clone(),
        description: skill.description.clone(),
        since: skill.since.clone(),
        workflow,
        workflow_from,
        uses,
        use_sessions,
        missed,
        not_triggering,
    })
}
