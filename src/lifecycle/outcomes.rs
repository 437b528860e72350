//! Recording outcomes and reading a skill's figures.

use anyhow::{Result, bail};
use rusqlite::params;
use serde::Serialize;

use super::tally::{Tally, tally_one};
use super::{SkillRow, find_skill, require_skill, versions};
use crate::model::Outcome;
use crate::store::{Store, now_rfc3339};
use crate::workspace::Workspace;

pub const SOURCES: &[&str] = &["transcript", "explicit", "implicit", "check"];

/// Records one invocation outcome of `skill` (seed 001's explicit feedback; also what a hook
/// calls). A skill folder in the live dir that skilldeck has not seen yet is imported first.
pub fn record(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    outcome: Outcome,
    source: &str,
    note: Option<&str>,
) -> Result<()> {
    if !SOURCES.contains(&source) {
        bail!("unknown outcome source {source:?}: expected one of {}", SOURCES.join(", "));
    }
    let row = match find_skill(ws.store.conn(), agent, skill)? {
        Some(row) => row,
        None => {
            versions::import_live(ws, agent, skill)?;
            require_skill(ws.store.conn(), agent, skill)?
        }
    };
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "INSERT INTO skill_invocations(agent_id, skill_name, skill_id, outcome, source, note, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![agent, skill, row.id, outcome.as_str(), source, note, now],
    )?;
    // The counters are a cache for readers of the row; the sweep recomputes them from the table.
    let (s, f) = match outcome {
        Outcome::Success => (1, 0),
        Outcome::Failure => (0, 1),
    };
    tx.execute(
        "UPDATE skills SET success_count = success_count + ?1, failure_count = failure_count + ?2,
             last_outcome = ?3, updated_at = ?4 WHERE id = ?5",
        params![s, f, outcome.as_str(), now, row.id],
    )?;
    tx.commit()?;
    Ok(())
}

/// Seed 001's `GET /api/skills/:name/stats`, computed from the invocation record.
#[derive(Debug, Clone, Serialize)]
pub struct SkillStats {
    pub id: i64,
    pub name: String,
    pub agent_id: String,
    pub status: String,
    pub protected: bool,
    pub needs_review: bool,
    pub version: i64,
    pub success_count: u64,
    pub failure_count: u64,
    pub last_outcome: Option<Outcome>,
    pub last_used_at: Option<String>,
    /// `success_count / (success_count + failure_count)`, `null` before any invocation.
    pub success_rate: Option<f64>,
    /// Success rate over the last `window` invocations.
    pub rolling_rate: Option<f64>,
    pub window: usize,
    pub window_uses: u32,
    pub failure_streak: u32,
}

pub fn stats(store: &Store, agent: &str, skill: &str) -> Result<SkillStats> {
    let row = require_skill(store.conn(), agent, skill)?;
    let window = store_window(store)?;
    let reset: Option<String> = store.conn().query_row(
        "SELECT streak_reset_at FROM skills WHERE id = ?1",
        [row.id],
        |r| r.get(0),
    )?;
    let tally = tally_one(store.conn(), row.id, window, reset.as_deref())?;
    Ok(stats_of(&row, &tally, window))
}

pub(crate) fn stats_of(row: &SkillRow, t: &Tally, window: usize) -> SkillStats {
    SkillStats {
        id: row.id,
        name: row.name.clone(),
        agent_id: row.agent_id.clone(),
        status: row.status.clone(),
        protected: row.protected,
        needs_review: row.needs_review,
        version: row.version,
        success_count: t.successes,
        failure_count: t.failures,
        last_outcome: t.last_outcome,
        last_used_at: t.last_used_at.clone(),
        success_rate: t.lifetime_rate(),
        rolling_rate: t.window_rate(),
        window,
        window_uses: t.window_uses,
        failure_streak: t.failure_streak,
    }
}

/// The window the last sweep judged with (readers without a config use it), else seed 001's 20.
pub(crate) fn store_window(store: &Store) -> Result<usize> {
    Ok(store
        .meta_get("lifecycle.window")?
        .and_then(|w| w.parse().ok())
        .unwrap_or(crate::config::LifecycleConfig::default().window))
}
