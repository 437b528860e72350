//! Owns the table `skill_events`: every state change of a skill, for the health timeline.

use anyhow::Result;
use rusqlite::{Connection, params};
use serde::Serialize;

use super::SkillStatus;

crate::text_enum! {
    /// What a timeline event records.
    pub enum EventKind {
        /// A new skill row: promoted, adopted, imported, acquired or pulled from the team.
        Registered = "registered",
        Adopted = "adopted",
        Promoted = "promoted",
        Pulled = "pulled",
        /// A move from one status to another (`from_status` → `to_status`).
        Status = "status",
        Pinned = "pinned",
        Unpinned = "unpinned",
        /// The sweep would retire the skill but something holds it.
        RetireBlocked = "retire_blocked",
        /// Another skill absorbed this one's uses (a merge).
        Absorbed = "absorbed",
        /// Absorbed while archived: the undo of the merge leaves it archived.
        AbsorbedWhileArchived = "absorbed_while_archived",
        Stale = "stale",
        Active = "active",
        Triggering = "triggering",
        NotTriggering = "not_triggering",
        Version = "version",
        /// A git commit of the skills folder failed.
        Git = "git",
        ScanError = "scan_error",
        NeedsReview = "needs_review",
        /// An evolution proposed a new version.
        Proposed = "proposed",
        Approved = "approved",
        ApprovalUndone = "approval_undone",
        Trial = "trial",
    }
}

/// Appends a timeline event.
pub fn add(
    conn: &Connection,
    skill_id: i64,
    at: &str,
    kind: EventKind,
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
    pub kind: EventKind,
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
    kinds: &[EventKind],
) -> Result<std::collections::HashMap<i64, EventKind>> {
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
    let parked = SkillStatus::sql_list(SkillStatus::is_parked);
    Ok(conn.query_row(
        &format!(
            "SELECT max(at) FROM skill_events WHERE skill_id = ?1 AND to_status IN ({parked})"
        ),
        [skill_id],
        |r| r.get(0),
    )?)
}

/// The kind of `skill_id`'s newest event among `kinds`, if any.
pub fn latest_of(
    conn: &Connection,
    skill_id: i64,
    kinds: &[EventKind],
) -> Result<Option<EventKind>> {
    let mut stmt = conn.prepare_cached(
        "SELECT kind FROM skill_events WHERE skill_id = ?1 ORDER BY at DESC, id DESC",
    )?;
    let mut rows = stmt.query([skill_id])?;
    while let Some(r) = rows.next()? {
        let kind: EventKind = r.get(0)?;
        if kinds.contains(&kind) {
            return Ok(Some(kind));
        }
    }
    Ok(None)
}

/// The skills standing as not triggering: their newest `triggering`/`not_triggering` event is
/// `not_triggering`.
pub fn not_triggering(conn: &Connection) -> Result<std::collections::HashSet<i64>> {
    let standing = latest_by_skill(conn, &[EventKind::NotTriggering, EventKind::Triggering])?;
    Ok(standing
        .into_iter()
        .filter(|(_, k)| *k == EventKind::NotTriggering)
        .map(|(id, _)| id)
        .collect())
}

/// Whether a merge absorbed `skill_id` while it was archived and it has not moved since.
pub fn absorbed_while_archived(conn: &Connection, skill_id: i64) -> Result<bool> {
    let kinds = [EventKind::AbsorbedWhileArchived, EventKind::Status];
    Ok(latest_of(conn, skill_id, &kinds)? == Some(EventKind::AbsorbedWhileArchived))
}
