//! The skill lifecycle: outcomes, health sweeps, versions, evolution, scorer features and the
//! phase-1 router (`suggest`).
//!
//! Counters on `skills` are a cache: `stats`, `audit` and `sweep` recompute from
//! `skill_invocations`, which is the record every source (transcripts, `record`, implicit retries)
//! writes to.

mod audit;
mod evolve;
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
pub use evolve::{approve, approve_current, link_evolutions, reject, sequence_overlap};
pub use features::{SkillFeatures, features, to_csv as features_csv};
pub use implicit::implicit_failures;
pub use outcomes::{SkillStats, record, stats};
pub use register::{NewSkill, insert_in as record_new_skill, register_skill};
pub use rules::{Judged, Verdict, judge};
pub use state::{archive, restore, set_protected};
pub use suggest::{SuggestIndex, Suggestion, suggest};
pub use sweep::{Phases, StatusChange, SweepReport, sweep, sweep_full};
pub use tally::Tally;
pub use versions::{
    EditScan, VersionView, diff_text, insert_version_row, rollback, scan_edits, scan_edits_by_kind,
    versions,
};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

/// The statuses a skill moves through; `protected` is a separate flag.
pub mod status {
    pub const HEALTHY: &str = "healthy";
    pub const WARNING: &str = "warning";
    pub const DEPRECATED: &str = "deprecated";
    pub const DEGRADED: &str = "degraded";
    pub const RETIRED: &str = "retired";
    pub const ARCHIVED: &str = "archived";

    /// Statuses whose folder is in the live skills dir.
    pub fn is_live(status: &str) -> bool {
        !matches!(status, RETIRED | ARCHIVED)
    }
}

/// One `skills` row as the lifecycle reads it.
#[derive(Debug, Clone)]
pub(crate) struct SkillRow {
    pub id: i64,
    pub agent_id: String,
    pub name: String,
    pub path: String,
    pub status: String,
    pub protected: bool,
    pub version: i64,
    pub is_auto_created: bool,
    pub approved_sha256: Option<String>,
    pub needs_review: bool,
}

const SKILL_COLUMNS: &str = "id, agent_id, name, path, status, protected, version, \
     is_auto_created, approved_sha256, needs_review";

fn skill_from_row(r: &rusqlite::Row) -> rusqlite::Result<SkillRow> {
    Ok(SkillRow {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        name: r.get(2)?,
        path: r.get(3)?,
        status: r.get(4)?,
        protected: r.get(5)?,
        version: r.get(6)?,
        is_auto_created: r.get(7)?,
        approved_sha256: r.get(8)?,
        needs_review: r.get(9)?,
    })
}

/// The skill an agent loads under `name`: default namespace first, and a workspace skill over the
/// account skill it shadows.
pub(crate) fn find_skill(conn: &Connection, agent: &str, name: &str) -> Result<Option<SkillRow>> {
    let sql = format!(
        "SELECT {SKILL_COLUMNS} FROM skills INDEXED BY skills_agent_name
         WHERE agent_id = ?1 AND name = ?2
         ORDER BY namespace = 'default' DESC, scope = 'workspace' DESC, id LIMIT 1"
    );
    Ok(conn.query_row(&sql, params![agent, name], skill_from_row).optional()?)
}

pub(crate) fn require_skill(conn: &Connection, agent: &str, name: &str) -> Result<SkillRow> {
    match find_skill(conn, agent, name)? {
        Some(s) => Ok(s),
        None => bail!("no skill named {name:?} for agent {agent:?} (see `skilldeck audit`)"),
    }
}

pub(crate) fn skill_by_id(conn: &Connection, id: i64) -> Result<SkillRow> {
    let sql = format!("SELECT {SKILL_COLUMNS} FROM skills WHERE id = ?1");
    conn.query_row(&sql, [id], skill_from_row)
        .optional()?
        .with_context(|| format!("no skill with id {id}"))
}

pub(crate) fn all_skills(conn: &Connection) -> Result<Vec<SkillRow>> {
    let sql = format!("SELECT {SKILL_COLUMNS} FROM skills ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], skill_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Appends a timeline event.
pub(crate) fn add_event(
    conn: &Connection,
    skill_id: i64,
    at: &str,
    kind: &str,
    from: Option<&str>,
    to: Option<&str>,
    reason: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO skill_events(skill_id, at, kind, from_status, to_status, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![skill_id, at, kind, from, to, reason],
    )?;
    Ok(())
}

/// `--agent` default: the configured agent.
pub fn agent_or_default<'a>(
    agent: Option<&'a str>,
    ws: &'a crate::workspace::Workspace,
) -> &'a str {
    agent.unwrap_or(&ws.config.agent_id)
}
