//! Owns the table `skill_events`: every state change of a skill, for the health timeline.

use anyhow::Result;
use rusqlite::{Connection, params};
use serde::Serialize;

use super::SkillStatus;

/// Appends a timeline event.
pub fn add(
    conn: &Connection,
    skill_id: i64,
    at: &str,
    kind: &str,
    from: Option<SkillStatus>,
    to: Option<SkillStatus>,
    reason: &str,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO skill_events(skill_id, at, kind, from_status, to_status, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    stmt.execute(params![skill_id, at, kind, from, to, reason])?;
    Ok(())
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineEvent {
    pub at: String,
    pub kind: String,
    pub from_status: Option<SkillStatus>,
    pub to_status: Option<SkillStatus>,
    pub reason: String,
}

/// A skill's events, oldest first.
pub fn list(conn: &Connection, skill_id: i64) -> Result<Vec<TimelineEvent>> {
    let mut stmt = conn.prepare(
        "SELECT at, kind, from_status, to_status, reason FROM skill_events
         WHERE skill_id = ?1 ORDER BY at, id",
    )?;
    let rows = stmt.query_map([skill_id], |r| {
        Ok(TimelineEvent {
            at: r.get(0)?,
            kind: r.get(1)?,
            from_status: r.get(2)?,
            to_status: r.get(3)?,
            reason: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn delete_for(conn: &Connection, skill_id: i64) -> Result<()> {
    conn.execute("DELETE FROM skill_events WHERE skill_id = ?1", [skill_id])?;
    Ok(())
}

/// Each skill's newest event kind among `kinds`, by skill id (one pass over those events).
pub fn latest_by_skill(
    conn: &Connection,
    kinds: &[&str],
) -> Result<std::collections::HashMap<i64, String>> {
    let mut stmt = conn.prepare(
        "SELECT skill_id, kind FROM skill_events
         WHERE kind IN (SELECT value FROM json_each(?1)) ORDER BY id",
    )?;
    let rows = stmt.query_map([serde_json::to_string(kinds)?], |r| Ok((r.get(0)?, r.get(1)?)))?;
    // Later rows overwrite earlier ones: the newest wins.
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// When `skill_id` was last archived or retired (its newest move to either), if ever.
pub fn parked_at(conn: &Connection, skill_id: i64) -> Result<Option<String>> {
    Ok(conn.query_row(
        "SELECT max(at) FROM skill_events
         WHERE skill_id = ?1 AND to_status IN ('archived', 'retired')",
        [skill_id],
        |r| r.get(0),
    )?)
}

/// The kind of `skill_id`'s newest event among `kinds`, if any.
pub fn latest_of(conn: &Connection, skill_id: i64, kinds: &[&str]) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT kind FROM skill_events WHERE skill_id = ?1 ORDER BY at DESC, id DESC",
    )?;
    let mut rows = stmt.query([skill_id])?;
    while let Some(r) = rows.next()? {
        let kind: String = r.get(0)?;
        if kinds.contains(&kind.as_str()) {
            return Ok(Some(kind));
        }
    }
    Ok(None)
}
