//! Owns the table `skill_trials`: each trial as evidence about a skill or a draft (source
//! `trial`, beside the effect observed in history), its status while it runs, and what a finished
//! one feeds back: a `trial` event on the skill's timeline, and a skill whose trial says it makes
//! things worse flagged for review.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use super::{Plan, Trial};
use crate::catalog::{EventKind, events, skills};
use crate::fsio;
use crate::lifecycle;
use crate::store::now_rfc3339;
use crate::text::safe;
use crate::usage::effect::Verdict;

crate::text_enum! {
    /// Where a trial stands.
    pub enum TrialStatus {
        /// Its runs are going on (or its process was killed: `TrialRow::gone`).
        Running = "running",
        /// Every run ended; the result is recorded.
        Done = "done",
        /// An error stopped it (a workspace that could not be made, an agent that did not start).
        Failed = "failed",
    }
}

/// One trial as stored.
#[derive(Debug, Clone, Serialize)]
pub struct TrialRow {
    pub id: i64,
    pub skill_id: Option<i64>,
    pub candidate_id: Option<i64>,
    pub name: String,
    pub status: TrialStatus,
    #[serde(skip)]
    pub pid: u32,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub agent_command: String,
    pub verdict: Option<Verdict>,
    pub error: Option<String>,
    pub trial: Option<Trial>,
}

impl TrialRow {
    /// A running trial whose process is gone (killed): it will never finish.
    pub fn gone(&self) -> bool {
        self.status == TrialStatus::Running && !fsio::pid_alive(self.pid)
    }

    /// One line for lists and the queue.
    pub fn headline(&self) -> String {
        match (&self.trial, self.status) {
            (Some(t), _) => super::verdict::headline(t),
            (None, TrialStatus::Running) if self.gone() => {
                format!("stopped before it finished (started {})", self.started_at)
            }
            (None, TrialStatus::Running) => format!("running since {}", self.started_at),
            (None, _) if self.error.as_deref().is_some_and(|e| e.starts_with("stopped")) => {
                safe::inline(self.error.as_deref().unwrap_or_default()).into_owned()
            }
            (None, _) => format!(
                "failed: {}",
                safe::inline(self.error.as_deref().unwrap_or("unknown error"))
            ),
        }
    }
}

const COLUMNS: &str = "id, skill_id, candidate_id, name, status, pid, started_at, finished_at, \
    agent_command, verdict, error, result";

fn from_row(r: &Row) -> rusqlite::Result<TrialRow> {
    let result: Option<String> = r.get(11)?;
    Ok(TrialRow {
        id: r.get(0)?,
        skill_id: r.get(1)?,
        candidate_id: r.get(2)?,
        name: r.get(3)?,
        status: r.get(4)?,
        pid: r.get::<_, i64>(5)? as u32,
        started_at: r.get(6)?,
        finished_at: r.get(7)?,
        agent_command: r.get(8)?,
        verdict: r.get(9)?,
        error: r.get(10)?,
        trial: result.and_then(|t| serde_json::from_str(&t).ok()),
    })
}

/// Records a trial as started; returns its id.
pub fn begin(conn: &Connection, plan: &Plan, at: &str) -> Result<i64> {
    conn.execute(
        "INSERT INTO skill_trials(skill_id, candidate_id, name, agent_id, status, pid, started_at,
             agent_command)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            plan.skill_id,
            plan.candidate_id,
            plan.name,
            plan.agent_id,
            TrialStatus::Running,
            std::process::id(),
            at,
            plan.agent_command
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn failed(conn: &Connection, id: i64, error: &str) -> Result<()> {
    conn.execute(
        "UPDATE skill_trials SET status = ?2, error = ?3, finished_at = ?4 WHERE id = ?1",
        params![id, TrialStatus::Failed, error, now_rfc3339()],
    )?;
    Ok(())
}

/// Stores a finished trial; for a live skill, adds it to the timeline, and flags the skill for
/// review when the trial says it makes things worse. One transaction.
pub fn finish(conn: &mut Connection, id: i64, trial: &Trial) -> Result<()> {
    let tx = conn.transaction()?;
    let verdict = trial.judgement.verdict;
    tx.execute(
        "UPDATE skill_trials SET status = ?2, verdict = ?3, result = ?4, finished_at = ?5
         WHERE id = ?1",
        params![id, TrialStatus::Done, verdict, serde_json::to_string(trial)?, trial.finished_at],
    )?;
    if let Some(skill_id) = trial.skill_id
        && skills::by_id(&tx, skill_id).is_ok()
    {
        // The event's kind already says "trial".
        let what = super::verdict::headline(trial);
        events::add(&tx, skill_id, &trial.finished_at, EventKind::Trial, None, None, &what)?;
        if verdict == Verdict::Hurts && !skills::by_id(&tx, skill_id)?.needs_review {
            skills::mark_needs_review(&tx, skill_id)?;
            let why = "a trial says it makes things worse: review it (approve keeps it)";
            events::add(
                &tx,
                skill_id,
                &trial.finished_at,
                EventKind::NeedsReview,
                None,
                None,
                why,
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// The latest trial of a live skill: its own, or one of the draft it was promoted from. A trial
/// that failed or was not valid (the agent never ran) does not hide a real one before it.
pub fn latest_for_skill(
    conn: &Connection,
    skill_id: i64,
    candidate_id: Option<i64>,
) -> Result<Option<TrialRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM skill_trials
         WHERE skill_id = ?1 OR (?2 IS NOT NULL AND candidate_id = ?2)
         ORDER BY status = ?3, id DESC LIMIT 1"
    );
    Ok(conn
        .query_row(&sql, params![skill_id, candidate_id, TrialStatus::Failed], from_row)
        .optional()?)
}

/// The latest trial of each candidate (drafts and proposed versions), by candidate id; a failed
/// one only when there is no other.
pub fn latest_by_candidate(conn: &Connection) -> Result<HashMap<i64, TrialRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM skill_trials t WHERE id =
             (SELECT id FROM skill_trials WHERE candidate_id = t.candidate_id
              ORDER BY status = ?1, id DESC LIMIT 1)"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([TrialStatus::Failed], from_row)?;
    let mut out = HashMap::new();
    for r in rows {
        let r = r?;
        if let Some(c) = r.candidate_id {
            out.insert(c, r);
        }
    }
    Ok(out)
}

/// Fills the trial columns of `features` rows from each skill's latest finished trial.
pub fn annotate(conn: &Connection, rows: &mut [lifecycle::SkillFeatures]) -> Result<()> {
    for f in rows {
        let candidate = skills::uptake_ref(conn, f.skill_id)?.candidate_id;
        let Some(row) = latest_for_skill(conn, f.skill_id, candidate)? else { continue };
        let Some(t) = row.trial else { continue };
        let j = &t.judgement;
        f.trial = Some(j.verdict.as_str().to_string());
        f.trial_at = Some(t.finished_at.clone());
        f.trial_pass_with = Some(j.with.pass_rate);
        f.trial_pass_without = Some(j.without.pass_rate);
        f.trial_runs = Some(t.runs_per_arm as u64);
    }
    Ok(())
}
