//! The skill lifecycle: outcomes, health sweeps, versions, evolution, scorer features and the
//! phase-1 router (`suggest`).
//!
//! Counters on `skills` are a cache: `stats`, `audit` and `sweep` recompute from
//! `skill_invocations`, which is the record every source (transcripts, `record`, implicit retries)
//! writes to.

mod audit;
mod features;
pub mod files;
mod git;
mod implicit;
mod outcomes;
mod register;
mod rules;
mod state;
mod suggest;
mod sweep;
mod tally;
mod versions;

pub use audit::{DayCount, RatePoint, SkillView, Timeline, TimelineEvent, audit, timeline};
pub use features::{SkillFeatures, features, to_csv as features_csv};
pub use implicit::implicit_failures;
pub use outcomes::{SkillStats, record, stats};
pub use register::{
    NewSkill, adopt_folder, adopt_folders, insert_in as record_new_skill, register_skill,
    scope_folders,
};
pub use rules::{Judged, Verdict, judge};
pub use state::{archive, restore, set_protected};
pub use suggest::{SuggestIndex, Suggestion, suggest};
pub use sweep::{Phases, StatusChange, SweepReport, judge_skills, ms};
pub use tally::Tally;
pub use versions::{diff_text, rollback, scan_edits, versions};
pub(crate) use versions::{scan_one, write_version};

pub(crate) use crate::catalog::SkillRow;
pub use crate::catalog::SkillStatus;
pub use crate::catalog::versions::VersionView;

use anyhow::Result;
use rusqlite::Connection;

use crate::catalog::{events, skills};

pub(crate) fn find_skill(conn: &Connection, agent: &str, name: &str) -> Result<Option<SkillRow>> {
    skills::find(conn, agent, name)
}

pub(crate) fn require_skill(conn: &Connection, agent: &str, name: &str) -> Result<SkillRow> {
    skills::require(conn, agent, name)
}

pub(crate) fn skill_by_id(conn: &Connection, id: i64) -> Result<SkillRow> {
    skills::by_id(conn, id)
}

/// Appends a timeline event.
pub(crate) fn add_event(
    conn: &Connection,
    skill_id: i64,
    at: &str,
    kind: &str,
    from: Option<SkillStatus>,
    to: Option<SkillStatus>,
    reason: &str,
) -> Result<()> {
    events::add(conn, skill_id, at, kind, from, to, reason)
}

/// `--agent` default: the configured agent.
pub fn agent_or_default<'a>(
    agent: Option<&'a str>,
    ws: &'a crate::workspace::Workspace,
) -> &'a str {
    agent.unwrap_or(&ws.config.agent_id)
}
