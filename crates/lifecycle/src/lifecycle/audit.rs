//! Read-only views: every skill with its status and rate, and one skill's health timeline.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;

use super::outcomes::store_window;
use super::tally::{self, Tally};
pub use crate::catalog::events::TimelineEvent;
use crate::catalog::{SkillHeader, events, invocations, skills};
use crate::spec;
use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct SkillView {
    #[serde(flatten)]
    pub header: SkillHeader,
    pub is_auto_created: bool,
    /// Rolling success rate over the window; `null` before any invocation.
    pub rate: Option<f64>,
    pub window_uses: u32,
    pub success_count: u64,
    pub failure_count: u64,
    pub failure_streak: u32,
    pub last_used_at: Option<String>,
    /// Unused for `lifecycle.stale_days` since then (usage, beside the outcome status).
    pub stale_since: Option<String>,
    /// What `skilldeck validate` reports as errors for the live folder (empty when it passes).
    pub spec_errors: Vec<String>,
}

impl std::ops::Deref for SkillView {
    type Target = SkillHeader;
    fn deref(&self) -> &SkillHeader {
        &self.header
    }
}

/// The errors `skilldeck validate` reports for the skill folder `folder`, as `field: reason`
/// (the path is the skill's own). Nothing for a folder that is not there (a `missing` skill
/// says so by its state).
pub fn spec_errors(folder: &std::path::Path) -> Vec<String> {
    if !super::files::skill_file(folder).is_file() {
        return Vec::new();
    }
    match spec::validate_skill(folder) {
        Ok(problems) => problems
            .into_iter()
            .filter(|p| p.severity == spec::Severity::Error)
            .map(|p| format!("{}: {}", p.field, p.reason))
            .collect(),
        Err(e) => vec![format!("SKILL.md: {e:#}")],
    }
}

/// Every skill (of `agent`, or all agents), ordered by agent and name, figures from the record.
pub fn audit(store: &Store, agent: Option<&str>) -> Result<Vec<SkillView>> {
    let conn = store.conn();
    let tallies = tally::tally_all(conn, store_window(store)?, &skills::resets(conn)?)?;
    let empty = Tally::default();
    let stale = skills::stale_map(conn)?;
    let out = skills::list(conn, agent)?
        .into_iter()
        .map(|s| {
            let t = tallies.get(&s.id).unwrap_or(&empty);
            SkillView {
                is_auto_created: s.is_auto_created,
                rate: t.window_rate(),
                window_uses: t.window_uses,
                success_count: t.successes,
                failure_count: t.failures,
                failure_streak: t.failure_streak,
                last_used_at: t.last_used_at.clone(),
                stale_since: stale.get(&s.id).cloned(),
                spec_errors: match s.status.is_live() {
                    true => spec_errors(std::path::Path::new(&s.path)),
                    false => Vec::new(),
                },
                header: s.header,
            }
        })
        .collect();
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

pub fn timeline(store: &Store, skill_id: i64) -> Result<Timeline> {
    let window = store_window(store)?;
    let conn = store.conn();
    let outcomes = invocations::outcomes_oldest_first(conn, skill_id)?;
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
    let events = events::list(conn, skill_id)?;
    Ok(Timeline { skill_id, window, days: days.into_values().collect(), rate_points, events })
}
