//! Recording outcomes and reading a skill's figures.

use anyhow::Result;
use serde::Serialize;

use super::sweep::{StatusChange, judge_now};
use super::tally::{Tally, tally_one};
use super::{SkillRow, find_skill, require_skill, versions};
use crate::catalog::invocations::{self, NewInvocation};
use crate::catalog::{InvocationSource, SkillHeader, skills};
use crate::config;
use crate::model::Outcome;
use crate::store::{Store, now_rfc3339};
use crate::workspace::Workspace;

/// Records one invocation outcome of `skill` (explicit feedback; also what a hook
/// calls). A skill folder in the live dir that skilldeck has not seen yet is imported first.
///
/// The skill is judged in the same transaction, under the sweep's rules, so its state never
/// lags its numbers: a record that changes the state returns the change, written with its one
/// `status` event (the next sweep finds nothing left to change).
pub fn record(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    outcome: Outcome,
    source: InvocationSource,
    note: Option<&str>,
) -> Result<Option<StatusChange>> {
    let row = match find_skill(ws.store.conn(), agent, skill)? {
        Some(row) => row,
        None => {
            versions::adopt_live(ws, agent, skill)?;
            require_skill(ws.store.conn(), agent, skill)?
        }
    };
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    invocations::insert(
        &tx,
        &NewInvocation {
            agent,
            skill_name: skill,
            skill_id: Some(row.id),
            outcome,
            source,
            session_key: None,
            turn_id: None,
            call_id: None,
            note,
            at: &now,
        },
    )?;
    // The counters are a cache for readers of the row; the sweep recomputes them from the table.
    skills::bump_counters(&tx, row.id, outcome, &now)?;
    let cfg = &ws.config.lifecycle;
    let (change, moved) = judge_now(&tx, &ws.paths.retired_dir, cfg, row.id, &now)?;
    let intents = super::sweep::retirements_pending(&tx, &moved)?;
    tx.commit()?;
    super::sweep::retire_folders(ws.store.conn(), &moved, &intents)?;
    Ok(change)
}

/// A skill's figures as `stats` shows them, computed from the invocation record.
#[derive(Debug, Clone, Serialize)]
pub struct SkillStats {
    #[serde(flatten)]
    pub header: SkillHeader,
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

impl std::ops::Deref for SkillStats {
    type Target = SkillHeader;
    fn deref(&self) -> &SkillHeader {
        &self.header
    }
}

pub fn stats(store: &Store, agent: &str, skill: &str) -> Result<SkillStats> {
    let row = require_skill(store.conn(), agent, skill)?;
    let window = store_window(store)?;
    let reset = skills::streak_reset_at(store.conn(), row.id)?;
    let tally = tally_one(store.conn(), row.id, window, reset.as_deref())?;
    Ok(stats_of(&row, &tally, window))
}

pub fn stats_of(row: &SkillRow, t: &Tally, window: usize) -> SkillStats {
    SkillStats {
        header: row.header.clone(),
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

/// The window the last sweep judged with (readers without a config use it), else the default 20.
pub fn store_window(store: &Store) -> Result<usize> {
    Ok(store
        .meta_get("lifecycle.window")?
        .and_then(|w| w.parse().ok())
        .unwrap_or(config::LifecycleConfig::default().window))
}
