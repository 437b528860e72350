//! Reading turns (`turns`): a session's turns in order, earlier turns, signed turns, the team
//! outbox's pages and the runs of a workflow. Turns are written by `ingest::write`, with the file
//! read that produced them, in one transaction; every other module reads them through here.

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};

use super::calls::{ToolCallRow, tool_calls};
use crate::model::Outcome;

/// The condition that turn `t` was consumed by detection: complete and out of its queue
/// (`pending_turns`). A macro, so the statements holding it stay literals.
macro_rules! detected {
    () => {
        "t.complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)"
    };
}

/// A turn with the step keys of its tool calls in order, for matching workflows after the fact.
#[derive(Debug, Clone)]
pub struct TurnSteps {
    pub turn_id: i64,
    pub session_key: String,
    pub user_input: String,
    pub started_at: Option<String>,
    pub steps: Vec<String>,
}

/// The highest turn id (0 when there is none): a stamp for passes that rerun on new turns.
pub fn max_turn_id(conn: &rusqlite::Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COALESCE(MAX(id), 0) FROM turns", [], |r| r.get(0))?)
}

/// The agent's main-stream turns that started at or after `since` and ran tool calls with step
/// keys, oldest first.
pub fn turn_steps_since(
    conn: &rusqlite::Connection,
    agent: &str,
    since: &str,
) -> Result<Vec<TurnSteps>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, s.session_key, t.user_input, t.started_at,
                (SELECT group_concat(step, char(10)) FROM
                    (SELECT step FROM tool_calls WHERE turn_id = t.id AND step IS NOT NULL
                     ORDER BY ordinal))
         FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.agent_id = ?1 AND t.started_at >= ?2 AND t.is_sidechain = 0
         ORDER BY t.started_at, t.id",
    )?;
    let rows = stmt.query_map(params![agent, since], |r| {
        let steps: Option<String> = r.get(4)?;
        Ok(TurnSteps {
            turn_id: r.get(0)?,
            session_key: r.get(1)?,
            user_input: r.get(2)?,
            started_at: r.get(3)?,
            steps: steps.map(|s| s.lines().map(str::to_string).collect()).unwrap_or_default(),
        })
    })?;
    let all: Vec<TurnSteps> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(all.into_iter().filter(|t| !t.steps.is_empty()).collect())
}

/// One earlier turn of a session: its id, request and the agent's last message.
#[derive(Debug, Clone)]
pub struct EarlierTurn {
    pub id: i64,
    pub user_input: String,
    pub summary: Option<String>,
}

/// The ids of every turn of turn `of`'s session, subagents' too, in order: read from the
/// session's index alone.
pub fn session_turn_ids(conn: &Connection, of: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM turns WHERE session_id = (SELECT session_id FROM turns WHERE id = ?1)
         ORDER BY id",
    )?;
    let ids = stmt.query_map([of], |r| r.get(0))?;
    ids.collect::<rusqlite::Result<Vec<_>>>().context("reading a session's turn ids")
}

/// Turns `ids` as earlier turns of their session, in one statement: each one's request and the
/// agent's last message, and whether it is a subagent's, by id (a turn gone is left out).
pub fn earlier_turns(conn: &Connection, ids: &[i64]) -> Result<HashMap<i64, (bool, EarlierTurn)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, is_sidechain, user_input, summary FROM turns
         WHERE id IN (SELECT value FROM json_each(?1))",
    )?;
    let rows = stmt.query_map([serde_json::to_string(ids)?], |r| {
        let id = r.get(0)?;
        Ok((id, (r.get(1)?, EarlierTurn { id, user_input: r.get(2)?, summary: r.get(3)? })))
    })?;
    rows.collect::<rusqlite::Result<_>>().context("reading a session's earlier turns")
}

/// How many sessions asked a task with the same signature as turn `turn_id` (counted up to
/// `cap`); `None` when that turn has no signature (a steering reply, not detected yet).
pub fn sessions_asking_as(conn: &Connection, turn_id: i64, cap: usize) -> Result<Option<usize>> {
    let signature: Option<String> = conn
        .prepare_cached(concat!("SELECT signature FROM turns t WHERE id = ?1 AND ", detected!()))?
        .query_row([turn_id], |r| r.get(0))
        .optional()?
        .flatten();
    let Some(signature) = signature.filter(|s| !s.is_empty()) else { return Ok(None) };
    let n: i64 = conn
        .prepare_cached(concat!(
            "SELECT count(*) FROM (SELECT DISTINCT session_id FROM turns t
             WHERE signature = ?1 AND signature <> '' AND ",
            detected!(),
            " LIMIT ?2)"
        ))?
        .query_row(params![signature, cap as i64], |r| r.get(0))?;
    Ok(Some(n as usize))
}

/// A turn with a non-empty task signature, for the implicit-failure pass.
pub struct SignedTurn {
    pub id: i64,
    pub session_id: i64,
    pub signature: String,
    /// When it started (or ended, when its start is unknown).
    pub at: Option<String>,
}

/// Every turn with a non-empty signature, in id order.
pub fn signed_turns(conn: &Connection) -> Result<Vec<SignedTurn>> {
    let mut stmt = conn.prepare(concat!(
        "SELECT id, session_id, signature, COALESCE(started_at, ended_at) FROM turns t
             WHERE signature IS NOT NULL AND signature <> '' AND ",
        detected!(),
        " ORDER BY id"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(SignedTurn { id: r.get(0)?, session_id: r.get(1)?, signature: r.get(2)?, at: r.get(3)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A turn as the team outbox reads it: the redacted request, outcome and where it was read.
#[derive(Debug, Clone)]
pub struct TurnForTeam {
    pub id: i64,
    pub agent_id: String,
    pub session_key: String,
    pub project: Option<String>,
    pub file_path: String,
    pub start_offset: i64,
    pub user_input: String,
    pub success: bool,
    pub ended_at: Option<String>,
    pub complete: bool,
    pub is_sidechain: bool,
    /// The agent's last message (it never leaves the machine: the team is told only whether it
    /// asked the user something).
    pub summary: Option<String>,
}

/// Up to `limit` turns with an id above `after`, in id order (complete or not: the caller stops
/// at the first open one, so a watermark never passes a turn still being written).
pub fn turns_after(conn: &Connection, after: i64, limit: usize) -> Result<Vec<TurnForTeam>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id, t.agent_id, s.session_key, s.project, t.file_path, t.start_offset,
                t.user_input, t.outcome, t.ended_at, t.complete, t.is_sidechain, t.summary
         FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.id > ?1 ORDER BY t.id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![after, i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
        Ok(TurnForTeam {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            session_key: r.get(2)?,
            project: r.get(3)?,
            file_path: r.get(4)?,
            start_offset: r.get(5)?,
            user_input: r.get(6)?,
            success: r.get::<_, Outcome>(7)? == Outcome::Success,
            ended_at: r.get(8)?,
            complete: r.get(9)?,
            is_sidechain: r.get(10)?,
            summary: r.get(11)?,
        })
    })?;
    rows.collect::<rusqlite::Result<Vec<_>>>().context("reading turns for the team")
}

/// One turn of a session with its tool calls, for passes that read a session in order.
#[derive(Debug, Clone)]
pub struct SessionTurn {
    pub id: i64,
    pub agent_id: String,
    pub session_key: String,
    pub project: Option<String>,
    pub user_input: String,
    pub is_sidechain: bool,
    pub started_at: Option<String>,
    /// Complete and consumed by detection.
    pub detected: bool,
    /// One of its calls failed.
    pub failed: bool,
    /// Its tool calls in order; empty until read when the turn came from
    /// `session_turns_without_calls`.
    pub calls: Vec<ToolCallRow>,
}

/// A session's turns with id `from_id` or above, in id order, with their tool calls.
pub fn session_turns(conn: &Connection, session_id: i64, from_id: i64) -> Result<Vec<SessionTurn>> {
    let mut turns = session_turns_without_calls(conn, session_id, from_id)?;
    for t in &mut turns {
        t.calls = tool_calls(conn, t.id)?;
    }
    Ok(turns)
}

/// Whether a call of the turn failed is one seek in the index of failed calls.
const SESSION_TURNS: &str = concat!(
    "SELECT t.id, t.agent_id, s.session_key, s.project, t.user_input, t.is_sidechain,
            COALESCE(t.started_at, t.ended_at), ",
    detected!(),
    ", EXISTS (SELECT 1 FROM tool_calls c WHERE c.turn_id = t.id AND c.is_error)
     FROM turns t JOIN sessions s ON s.id = t.session_id
     WHERE t.session_id = ?1 AND t.id >= ?2 ORDER BY t.id"
);

/// A session's turns with id `from_id` or above, in id order, with whether a call failed but
/// without the calls: for a reader that needs the calls of a few turns only (`tool_calls`).
pub fn session_turns_without_calls(
    conn: &Connection,
    session_id: i64,
    from_id: i64,
) -> Result<Vec<SessionTurn>> {
    let mut stmt = conn.prepare_cached(SESSION_TURNS)?;
    let rows = stmt.query_map(params![session_id, from_id], |r| {
        Ok(SessionTurn {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            session_key: r.get(2)?,
            project: r.get(3)?,
            user_input: r.get(4)?,
            is_sidechain: r.get(5)?,
            started_at: r.get(6)?,
            detected: r.get(7)?,
            failed: r.get(8)?,
            calls: Vec::new(),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The main-stream turns of `agent` up to `max_id` that ran a call with step `step`, with the
/// session each belongs to, oldest first.
pub fn turns_with_step(
    conn: &Connection,
    agent: &str,
    step: &str,
    max_id: i64,
) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT t.id, t.session_id FROM tool_calls c JOIN turns t ON t.id = c.turn_id
         WHERE t.agent_id = ?1 AND t.id <= ?3 AND t.is_sidechain = 0
           AND (c.step = ?2 OR c.step LIKE ?2 || char(10) || '%'
                OR c.step LIKE '%' || char(10) || ?2
                OR c.step LIKE '%' || char(10) || ?2 || char(10) || '%')
         ORDER BY t.id",
    )?;
    let rows = stmt.query_map(params![agent, step, max_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The main-stream turns of `agent` up to `max_id` asked as `request` (`/name`, alone or with
/// arguments), with the session each belongs to, oldest first.
pub fn turns_asking(
    conn: &Connection,
    agent: &str,
    request: &str,
    max_id: i64,
) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, session_id FROM turns
         WHERE agent_id = ?1 AND id <= ?3 AND is_sidechain = 0
           AND (trim(user_input) = ?2 OR trim(user_input) LIKE ?2 || ' %')
         ORDER BY id",
    )?;
    let rows = stmt.query_map(params![agent, request, max_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether `literal` occurs in a prompt or a call's detail of a session other than
/// `session_key` (a value several sessions share is not one session's literal).
pub fn literal_elsewhere(conn: &Connection, literal: &str, session_key: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM turns t JOIN sessions s ON s.id = t.session_id
                       WHERE s.session_key <> ?2 AND (instr(t.user_input, ?1) > 0
                         OR EXISTS(SELECT 1 FROM tool_calls c
                                   WHERE c.turn_id = t.id AND instr(c.detail, ?1) > 0)))",
    )?;
    Ok(stmt.query_row(params![literal, session_key], |r| r.get(0))?)
}

/// A main-stream turn as a run of some workflow: its steps and what it cost.
#[derive(Debug, Clone)]
pub struct TurnRun {
    pub turn_id: i64,
    pub session_key: String,
    pub user_input: String,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub success: bool,
    pub model: Option<String>,
    pub tokens: Option<i64>,
    pub steps: Vec<String>,
    pub tool_calls: i64,
    pub failed_steps: i64,
    /// The user's next prompt in the same session (what a correction would be).
    pub next_input: Option<String>,
}

/// Every complete main-stream turn of `agent` with tool calls, oldest first.
pub fn turn_runs(conn: &rusqlite::Connection, agent: &str) -> Result<Vec<TurnRun>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, s.session_key, t.user_input, t.started_at, t.ended_at, t.outcome, t.model,
                t.tokens,
                (SELECT group_concat(step, char(10)) FROM
                    (SELECT step FROM tool_calls WHERE turn_id = t.id AND step IS NOT NULL
                     ORDER BY ordinal)),
                (SELECT COUNT(*) FROM tool_calls WHERE turn_id = t.id),
                (SELECT COUNT(*) FROM tool_calls WHERE turn_id = t.id AND is_error = 1),
                t.next_input
         FROM (SELECT *, LEAD(user_input) OVER (PARTITION BY session_id ORDER BY started_at, id)
                   AS next_input
               FROM turns WHERE agent_id = ?1 AND is_sidechain = 0) t
         JOIN sessions s ON s.id = t.session_id
         WHERE t.complete = 1
         ORDER BY t.started_at, t.id",
    )?;
    let rows = stmt.query_map(params![agent], |r| {
        let steps: Option<String> = r.get(8)?;
        Ok(TurnRun {
            turn_id: r.get(0)?,
            session_key: r.get(1)?,
            user_input: r.get(2)?,
            started_at: r.get(3)?,
            ended_at: r.get(4)?,
            success: r.get::<_, Outcome>(5)? == Outcome::Success,
            model: r.get(6)?,
            tokens: r.get(7)?,
            steps: steps.map(|s| s.lines().map(str::to_string).collect()).unwrap_or_default(),
            tool_calls: r.get(9)?,
            failed_steps: r.get(10)?,
            next_input: r.get(11)?,
        })
    })?;
    let all: Vec<TurnRun> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(all.into_iter().filter(|t| t.tool_calls > 0).collect())
}

#[cfg(test)]
mod tests {
    use super::super::query_plan as plan;
    use super::*;
    use crate::store::Store;

    /// Lessons ask of each turn they read whether a call failed: one seek in the index of failed
    /// calls, not a walk over every call of the turn.
    #[test]
    fn a_failed_call_is_found_through_its_own_index() {
        let store = Store::open_in_memory().expect("store");
        let turns = plan(store.conn(), SESSION_TURNS);
        assert!(turns.contains("USING INDEX tool_calls_failed"), "{turns}");
        assert!(!turns.contains("tool_calls_turn_order"), "{turns}");
    }
}
