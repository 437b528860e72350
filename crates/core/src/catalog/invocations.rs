//! Owns the table `skill_invocations`: every use of a skill and its outcome, from every source
//! (transcripts, `record`, implicit retries, package checks, acquisition tests). The counters on
//! `skills` are a cache of this record.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::{InvocationSource, Scope};
use crate::model::Outcome;

/// One invocation about to be recorded.
pub struct NewInvocation<'a> {
    pub agent: &'a str,
    pub skill_name: &'a str,
    pub skill_id: Option<i64>,
    pub outcome: Outcome,
    pub source: InvocationSource,
    pub session_key: Option<&'a str>,
    pub turn_id: Option<i64>,
    /// Unique per agent when set: recording the same call twice adds nothing.
    pub call_id: Option<&'a str>,
    pub note: Option<&'a str>,
    pub at: &'a str,
}

/// Records an invocation; returns 0 when one with the same `call_id` is already there.
pub fn insert(conn: &Connection, new: &NewInvocation) -> Result<usize> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO skill_invocations(agent_id, skill_name, skill_id, outcome, source,
             session_key, turn_id, call_id, note, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    Ok(stmt.execute(params![
        new.agent,
        new.skill_name,
        new.skill_id,
        new.outcome,
        new.source,
        new.session_key,
        new.turn_id,
        new.call_id,
        new.note,
        new.at
    ])?)
}

/// Records an invocation read from a transcript, linked to the agent's first skill of that name
/// if there is one.
#[allow(clippy::too_many_arguments)]
pub fn insert_from_transcript(
    conn: &Connection,
    agent: &str,
    skill_name: &str,
    outcome: Outcome,
    session_key: &str,
    turn_id: i64,
    call_id: Option<&str>,
    at: &str,
    note: Option<&str>,
) -> Result<usize> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO skill_invocations(agent_id, skill_name, skill_id, outcome, source,
            session_key, turn_id, call_id, at, note)
         VALUES (?1, ?2, (SELECT id FROM skills WHERE agent_id = ?1 AND name = ?2
                          ORDER BY id LIMIT 1),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    Ok(stmt.execute(params![
        agent,
        skill_name,
        outcome,
        InvocationSource::Transcript,
        session_key,
        turn_id,
        call_id,
        at,
        note
    ])?)
}

/// Forgets what a transcript said about the given turns (the file is read again).
pub fn delete_transcript_rows(conn: &Connection, turn_ids: &[i64]) -> Result<()> {
    let mut stmt =
        conn.prepare_cached("DELETE FROM skill_invocations WHERE source = ?1 AND turn_id = ?2")?;
    for id in turn_ids {
        stmt.execute(params![InvocationSource::Transcript, id])?;
    }
    Ok(())
}

/// An implicit failure replaced this success: the use counts once, as the failure.
pub fn supersede(conn: &Connection, invocation_id: i64) -> Result<()> {
    conn.execute("UPDATE skill_invocations SET superseded = 1 WHERE id = ?1", [invocation_id])?;
    Ok(())
}

/// Invocations keep their skill name but no longer point at a removed skill.
pub(super) fn unlink_skill(conn: &Connection, skill_id: i64) -> Result<()> {
    conn.execute("UPDATE skill_invocations SET skill_id = NULL WHERE skill_id = ?1", [skill_id])?;
    Ok(())
}

/// Calls `each(id, at, success)` for one skill's counted invocations, newest first.
pub fn for_each_newest_first(
    conn: &Connection,
    skill_id: i64,
    mut each: impl FnMut(i64, &str, bool),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, at, outcome FROM skill_invocations
         WHERE skill_id = ?1 AND superseded = 0 ORDER BY at DESC, id DESC",
    )?;
    let mut rows = stmt.query([skill_id])?;
    while let Some(r) = rows.next()? {
        let at = r.get_ref(1)?.as_str()?;
        let success = r.get_ref(2)?.as_str()? == Outcome::Success.as_str();
        each(r.get(0)?, at, success);
    }
    Ok(())
}

/// Calls `each(skill_id, id, at, success)` for every counted invocation of every skill, grouped
/// by skill and newest first within a skill: one ordered pass over the covering index.
pub fn for_each_by_skill(
    conn: &Connection,
    mut each: impl FnMut(i64, i64, &str, bool),
) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT skill_id, id, at, outcome FROM skill_invocations INDEXED BY skill_invocations_scan
         WHERE skill_id IS NOT NULL AND superseded = 0
         ORDER BY skill_id DESC, at DESC, id DESC",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let at = r.get_ref(2)?.as_str()?;
        let success = r.get_ref(3)?.as_str()? == Outcome::Success.as_str();
        each(r.get(0)?, r.get(1)?, at, success);
    }
    Ok(())
}

/// One skill's counted outcomes, oldest first: (at, success).
pub fn outcomes_oldest_first(conn: &Connection, skill_id: i64) -> Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT at, outcome FROM skill_invocations WHERE skill_id = ?1 AND superseded = 0
         ORDER BY at, id",
    )?;
    let rows = stmt
        .query_map([skill_id], |r| Ok((r.get(0)?, r.get::<_, Outcome>(1)? == Outcome::Success)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One skill's newest `n` counted outcomes, oldest first (true: success).
pub fn newest_outcomes(conn: &Connection, skill_id: i64, n: usize) -> Result<Vec<bool>> {
    let mut stmt = conn.prepare_cached(
        "SELECT outcome = ?3 FROM skill_invocations
         WHERE skill_id = ?1 AND superseded = 0 ORDER BY at DESC, id DESC LIMIT ?2",
    )?;
    let mut out: Vec<bool> = stmt
        .query_map(
            params![skill_id, i64::try_from(n).unwrap_or(i64::MAX), Outcome::Success],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<_>>()?;
    out.reverse();
    Ok(out)
}

/// Counted invocations at or after `since`, per skill.
pub fn counts_since(conn: &Connection, since: &str) -> Result<HashMap<i64, i64>> {
    let mut stmt = conn.prepare(
        "SELECT skill_id, COUNT(*) FROM skill_invocations
         WHERE skill_id IS NOT NULL AND superseded = 0 AND at >= ?1 GROUP BY skill_id",
    )?;
    let rows = stmt.query_map([since], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The highest invocation id (0 when there is none): the sweep's high-water mark.
pub fn max_id(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COALESCE(MAX(id), 0) FROM skill_invocations", [], |r| r.get(0))?)
}

/// Skills with invocation rows above `watermark`.
pub fn skills_above(conn: &Connection, watermark: i64) -> Result<HashSet<i64>> {
    let mut stmt = conn.prepare(
        // NOT INDEXED: walk the rowid range, never the whole skill index.
        "SELECT skill_id FROM skill_invocations NOT INDEXED WHERE id > ?1 AND skill_id IS NOT NULL",
    )?;
    let rows = stmt.query_map([watermark], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Skills that [`link_all`] is about to give rows to (their tallies change).
pub fn unlinked_targets(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT s.id FROM skill_invocations i
         JOIN skills s ON s.agent_id = i.agent_id AND s.name = i.skill_name
         WHERE i.skill_id IS NULL",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Points invocations that name a skill but lack its id at the skill the agent loads under that
/// name (default namespace first, workspace over account).
pub fn link_all(conn: &Connection) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE skill_invocations SET skill_id = (
             SELECT s.id FROM skills s INDEXED BY skills_agent_name
             WHERE s.agent_id = skill_invocations.agent_id AND s.name = skill_invocations.skill_name
             ORDER BY s.namespace = 'default' DESC, s.scope = ?1 DESC, s.id LIMIT 1)
         WHERE skill_id IS NULL AND EXISTS (
             SELECT 1 FROM skills s
             WHERE s.agent_id = skill_invocations.agent_id AND s.name = skill_invocations.skill_name)",
        [Scope::Workspace],
    )?)
}

/// A successful use tied to a turn, not itself an implicit failure and not superseded.
pub struct TurnUse {
    pub id: i64,
    pub agent_id: String,
    pub skill_name: String,
    pub skill_id: Option<i64>,
    pub session_key: Option<String>,
    pub turn_id: i64,
}

/// Successful uses a later retry could turn into implicit failures.
pub fn successful_turn_uses(conn: &Connection) -> Result<Vec<TurnUse>> {
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, skill_name, skill_id, session_key, turn_id FROM skill_invocations
         WHERE turn_id IS NOT NULL AND outcome = ?1 AND superseded = 0
           AND source <> ?2",
    )?;
    let uses = stmt
        .query_map(params![Outcome::Success, InvocationSource::Implicit], |r| {
            Ok(TurnUse {
                id: r.get(0)?,
                agent_id: r.get(1)?,
                skill_name: r.get(2)?,
                skill_id: r.get(3)?,
                session_key: r.get(4)?,
                turn_id: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(uses)
}

/// Which skills each turn uses (any source: a later implicit failure counts as a use).
pub fn skills_by_turn(conn: &Connection) -> Result<HashMap<i64, HashSet<String>>> {
    let mut used: HashMap<i64, HashSet<String>> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT turn_id, skill_name FROM skill_invocations WHERE turn_id IS NOT NULL")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (turn, skill) = row?;
        used.entry(turn).or_default().insert(skill);
    }
    Ok(used)
}

/// Turns (and, in order, sessions) a skill was used in at or after `since`, by id or by name.
pub fn uses_since(
    conn: &Connection,
    skill_id: i64,
    agent: &str,
    name: &str,
    since: &str,
) -> Result<(HashSet<i64>, Vec<String>)> {
    let mut stmt = conn.prepare(
        "SELECT turn_id, session_key FROM skill_invocations
         WHERE (skill_id = ?1 OR (agent_id = ?2 AND skill_name = ?3)) AND at >= ?4
         ORDER BY at, id",
    )?;
    let rows = stmt.query_map(params![skill_id, agent, name, since], |r| {
        Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let mut turns = HashSet::new();
    let mut sessions: Vec<String> = Vec::new();
    for row in rows {
        let (turn, session) = row?;
        turns.extend(turn);
        if let Some(s) = session
            && !sessions.contains(&s)
        {
            sessions.push(s);
        }
    }
    Ok((turns, sessions))
}

/// When each of `skill_ids` was last used (newest invocation `at`; absent when never), one
/// index probe per skill, for the console's last-used order.
pub fn last_used_each(conn: &Connection, skill_ids: &[i64]) -> Result<HashMap<i64, String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT at FROM skill_invocations WHERE skill_id = ?1 AND superseded = 0
         ORDER BY at DESC LIMIT 1",
    )?;
    let mut out = HashMap::with_capacity(skill_ids.len());
    for &id in skill_ids {
        if let Some(at) = stmt.query_row([id], |r| r.get::<_, String>(0)).optional()? {
            out.insert(id, at);
        }
    }
    Ok(out)
}

/// When each skill was last used (newest invocation `at`), for the staleness sweep.
pub fn last_used(conn: &Connection) -> Result<HashMap<i64, String>> {
    let mut stmt = conn.prepare(
        "SELECT skill_id, max(at) FROM skill_invocations
         WHERE skill_id IS NOT NULL AND superseded = 0 GROUP BY skill_id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A counted invocation as the team outbox reads it.
#[derive(Debug, Clone)]
pub struct InvocationRow {
    pub id: i64,
    pub agent_id: String,
    pub skill_name: String,
    pub outcome: Outcome,
    pub source: InvocationSource,
    pub session_key: Option<String>,
    pub at: String,
}

/// Up to `limit` invocations with an id above `after`, in id order.
pub fn after(conn: &Connection, after: i64, limit: usize) -> Result<Vec<InvocationRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, agent_id, skill_name, outcome, source, session_key, at FROM skill_invocations
         WHERE id > ?1 AND superseded = 0 ORDER BY id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![after, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
        Ok(InvocationRow {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            skill_name: r.get(2)?,
            outcome: r.get(3)?,
            source: r.get(4)?,
            session_key: r.get(5)?,
            at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
