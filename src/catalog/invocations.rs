//! Owns the table `skill_invocations`: every use of a skill and its outcome, from every source
//! (transcripts, `record`, implicit retries, package checks, acquisition tests). The counters on
//! `skills` are a cache of this record.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::InvocationSource;
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
        "SELECT outcome = 'success' FROM skill_invocations
         WHERE skill_id = ?1 AND superseded = 0 ORDER BY at DESC, id DESC LIMIT ?2",
    )?;
    let mut out: Vec<bool> = stmt
        .query_map(params![skill_id, i64::try_from(n).unwrap_or(i64::MAX)], |r| r.get(0))?
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
             ORDER BY s.namespace = 'default' DESC, s.scope = 'workspace' DESC, s.id LIMIT 1)
         WHERE skill_id IS NULL AND EXISTS (
             SELECT 1 FROM skills s
             WHERE s.agent_id = skill_invocations.agent_id AND s.name = skill_invocations.skill_name)",
        [],
    )?)
}

/// A successful invocation tied to a turn, and the later turn of the same session that retried
/// the same task signature without invoking the same skill.
pub struct RetryPair {
    pub invocation_id: i64,
    pub agent_id: String,
    pub skill_name: String,
    pub skill_id: Option<i64>,
    pub session_key: Option<String>,
    pub turn_id: i64,
    pub retry_turn_id: i64,
    pub retry_at: Option<String>,
}

/// Every retry pair not yet turned into an implicit failure: for each successful use tied to a
/// turn with a signature, the first later turn of its session with that signature that does not
/// use the same skill. Linear in the turns: each (session, signature, skill) run of turns is
/// walked once, backwards, instead of one scan of the later turns per use.
pub fn retry_pairs(conn: &Connection) -> Result<Vec<RetryPair>> {
    /// A session and a task signature.
    type Group = (i64, String);
    struct Use {
        id: i64,
        agent_id: String,
        skill_name: String,
        skill_id: Option<i64>,
        session_key: Option<String>,
        turn_id: i64,
    }
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, skill_name, skill_id, session_key, turn_id FROM skill_invocations
         WHERE turn_id IS NOT NULL AND outcome = 'success' AND superseded = 0
           AND source <> 'implicit'",
    )?;
    let uses: Vec<Use> = stmt
        .query_map([], |r| {
            Ok(Use {
                id: r.get(0)?,
                agent_id: r.get(1)?,
                skill_name: r.get(2)?,
                skill_id: r.get(3)?,
                session_key: r.get(4)?,
                turn_id: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    if uses.is_empty() {
        return Ok(Vec::new());
    }
    // Which skills each turn uses (any source: a later implicit failure counts as a use).
    let mut used: HashMap<i64, HashSet<String>> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT turn_id, skill_name FROM skill_invocations WHERE turn_id IS NOT NULL")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (turn, skill) = row?;
        used.entry(turn).or_default().insert(skill);
    }
    // Turns with a signature, grouped by (session, signature) in id order.
    let mut groups: HashMap<Group, Vec<(i64, Option<String>)>> = HashMap::new();
    for t in crate::ingest::signed_turns(conn)? {
        groups.entry((t.session_id, t.signature)).or_default().push((t.id, t.at));
    }
    let mut place: HashMap<i64, (Group, usize)> = HashMap::new();
    for (key, turns) in &groups {
        for (i, (id, _)) in turns.iter().enumerate() {
            place.insert(*id, (key.clone(), i));
        }
    }
    // For a group and a skill: at each position, the next position whose turn does not use it.
    let mut next_without: HashMap<(Group, String), Vec<Option<usize>>> = HashMap::new();
    let mut pairs = Vec::new();
    for u in uses {
        let Some((key, at)) = place.get(&u.turn_id) else { continue };
        let turns = &groups[key];
        let next = next_without.entry((key.clone(), u.skill_name.clone())).or_insert_with(|| {
            let mut out = vec![None; turns.len()];
            let mut next = None;
            for i in (0..turns.len()).rev() {
                out[i] = next;
                if !used.get(&turns[i].0).is_some_and(|s| s.contains(&u.skill_name)) {
                    next = Some(i);
                }
            }
            out
        });
        let Some(retry) = next[*at] else { continue };
        let (retry_turn_id, retry_at) = turns[retry].clone();
        pairs.push(RetryPair {
            invocation_id: u.id,
            agent_id: u.agent_id,
            skill_name: u.skill_name,
            skill_id: u.skill_id,
            session_key: u.session_key,
            turn_id: u.turn_id,
            retry_turn_id,
            retry_at,
        });
    }
    pairs.sort_by_key(|p| p.invocation_id);
    Ok(pairs)
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
