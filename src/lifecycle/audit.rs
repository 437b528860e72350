//! Read-only views: every skill with its status and rate, and one skill's health timeline.

use std::collections::BTreeMap;

use anyhow::Result;
use rusqlite::params;
use serde::Serialize;

use super::outcomes::store_window;
use super::tally::{self, Tally};
use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct SkillView {
    pub id: i64,
    pub name: String,
    pub agent_id: String,
    pub status: String,
    pub protected: bool,
    pub needs_review: bool,
    pub is_auto_created: bool,
    pub version: i64,
    /// Rolling success rate over the window; `null` before any invocation.
    pub rate: Option<f64>,
    pub window_uses: u32,
    pub success_count: u64,
    pub failure_count: u64,
    pub failure_streak: u32,
    pub last_used_at: Option<String>,
    pub path: String,
}

/// Every skill (of `agent`, or all agents), ordered by agent and name, figures from the record.
pub fn audit(store: &Store, agent: Option<&str>) -> Result<Vec<SkillView>> {
    let conn = store.conn();
    let tallies = tally::tally_all(conn, store_window(store)?, &tally::resets(conn)?)?;
    let mut stmt = conn.prepare(
        "SELECT id, name, agent_id, status, protected, needs_review, is_auto_created, version, path
         FROM skills WHERE ?1 IS NULL OR agent_id = ?1 ORDER BY agent_id, name, id",
    )?;
    let empty = Tally::default();
    let rows = stmt.query_map([agent], |r| {
        Ok(SkillView {
            id: r.get(0)?,
            name: r.get(1)?,
            agent_id: r.get(2)?,
            status: r.get(3)?,
            protected: r.get(4)?,
            needs_review: r.get(5)?,
            is_auto_created: r.get(6)?,
            version: r.get(7)?,
            path: r.get(8)?,
            rate: None,
            window_uses: 0,
            success_count: 0,
            failure_count: 0,
            failure_streak: 0,
            last_used_at: None,
        })
    })?;
    let mut out = Vec::new();
    for row in rows {
        let mut v = row?;
        let t = tallies.get(&v.id).unwrap_or(&empty);
        v.rate = t.window_rate();
        v.window_uses = t.window_uses;
        v.success_count = t.successes;
        v.failure_count = t.failures;
        v.failure_streak = t.failure_streak;
        v.last_used_at = t.last_used_at.clone();
        out.push(v);
    }
    Ok(out)
}

#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    pub skill_id: i64,
    pub window: usize,
    pub days: Vec<DayCount>,
    pub rate_points: Vec<RatePoint>,
    pub events: Vec<TimelineEvent>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DayCount {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    pub successes: u32,
    pub failures: u32,
}

/// The rolling rate right after one invocation.
#[derive(Debug, Clone, Serialize)]
pub struct RatePoint {
    pub at: String,
    pub rate: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineEvent {
    pub at: String,
    pub kind: String,
    pub from_status: Option<String>,
    pub to_status: Option<String>,
    pub reason: String,
}

/// Per-day outcome counts, the rolling rate after each invocation, and every state change.
pub fn timeline(store: &Store, skill_id: i64) -> Result<Timeline> {
    let window = store_window(store)?;
    let conn = store.conn();
    let mut stmt = conn.prepare(
        "SELECT at, outcome FROM skill_invocations WHERE skill_id = ?1 AND superseded = 0
         ORDER BY at, id",
    )?;
    let outcomes: Vec<(String, bool)> = stmt
        .query_map([skill_id], |r| Ok((r.get(0)?, r.get::<_, String>(1)? == "success")))?
        .collect::<rusqlite::Result<_>>()?;
    let mut days: BTreeMap<String, DayCount> = BTreeMap::new();
    let mut rate_points = Vec::with_capacity(outcomes.len());
    let mut recent = std::collections::VecDeque::with_capacity(window);
    let mut recent_ok = 0usize;
    for (at, ok) in &outcomes {
        let day = at.get(..10).unwrap_or(at).to_string();
        let entry = days.entry(day.clone()).or_insert(DayCount { day, successes: 0, failures: 0 });
        if *ok {
            entry.successes += 1;
        } else {
            entry.failures += 1;
        }
        recent.push_back(*ok);
        recent_ok += usize::from(*ok);
        if recent.len() > window.max(1) {
            recent_ok -= usize::from(recent.pop_front().unwrap_or(false));
        }
        rate_points
            .push(RatePoint { at: at.clone(), rate: recent_ok as f64 / recent.len() as f64 });
    }
    let mut stmt = conn.prepare(
        "SELECT at, kind, from_status, to_status, reason FROM skill_events
         WHERE skill_id = ?1 ORDER BY at, id",
    )?;
    let events = stmt
        .query_map(params![skill_id], |r| {
            Ok(TimelineEvent {
                at: r.get(0)?,
                kind: r.get(1)?,
                from_status: r.get(2)?,
                to_status: r.get(3)?,
                reason: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Timeline { skill_id, window, days: days.into_values().collect(), rate_points, events })
}
