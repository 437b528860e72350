//! Storing what a file's new bytes produced. Rows and the file's new offset go into the same
//! transaction, so a crash never leaves an offset ahead of the rows it promises.
//!
//! Owns the tables `ingested_files`, `sessions`, `turns`, `pending_turns` (the complete turns
//! detection has not consumed, in its order) and `tool_calls`: detection and the lifecycle read
//! turns and tool calls through the functions at the end of this file.

use std::collections::{BTreeSet, HashMap};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::model::Outcome;

use super::IngestReport;
use super::files::{FileRead, Format, Stored};
use super::parse::SessionRec;
use super::turn::{RowRef, TurnRec};
use crate::catalog::invocations;
use crate::store::now_rfc3339;
use crate::text::signature::task_signature;

/// The condition that turn `t` was consumed by detection: complete and out of its queue
/// (`pending_turns`). A macro, so the statements holding it stay literals.
macro_rules! detected {
    () => {
        "t.complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)"
    };
}

/// What a run's writes share: session row ids already looked up, by agent and session key,
/// and the run's time stamp.
pub struct RunCache {
    ids: HashMap<String, HashMap<String, i64>>,
    now: String,
}

impl RunCache {
    pub fn new() -> RunCache {
        RunCache { ids: HashMap::new(), now: now_rfc3339() }
    }
}

/// Stores one file's read; returns false (storing nothing) when another ingest run stored
/// this file since the read was planned.
pub fn write_file(
    tx: &Transaction,
    read: &mut FileRead,
    cache: &mut RunCache,
    report: &mut IngestReport,
) -> Result<bool> {
    let current: Option<i64> = tx
        .prepare_cached("SELECT offset FROM ingested_files WHERE path = ?1")?
        .query_row([&read.key], |r| r.get(0))
        .optional()?;
    if current.map(|o| o as u64) != read.planned_offset {
        return Ok(false);
    }
    let format = read.format.unwrap_or(Format::Claude);
    if read.reset {
        forget_file(tx, &read.key)?;
    }
    let mut sessions: Vec<(&String, &SessionRec)> = read.output.sessions.iter().collect();
    sessions.sort_by(|a, b| a.0.cmp(b.0));
    for (key, rec) in sessions {
        session_id(tx, cache, &read.agent, key, format, Some(rec), report)?;
    }
    for turn in &read.output.turns {
        let session = session_id(tx, cache, &read.agent, &turn.session_key, format, None, report)?;
        let id = write_turn(tx, &read.agent, &read.key, session, turn, report)?;
        if let Some(slot) = turn.open_slot {
            read.output.state.open[slot].row = RowRef::Stored(id);
        }
    }
    let state = if read.output.state.open.is_empty()
        && read.output.state.session_key.is_none()
        && read.output.state.project.is_none()
        && read.output.state.last_at.is_none()
    {
        None
    } else {
        Some(serde_json::to_string(&read.output.state)?)
    };
    tx.prepare_cached(
        "INSERT INTO ingested_files(path, agent_id, format, size, mtime_ns, offset, head_hash, lines,
                                    bad_lines, unknown_lines, state, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT(path) DO UPDATE SET
            agent_id = excluded.agent_id, format = excluded.format, size = excluded.size,
            mtime_ns = excluded.mtime_ns, offset = excluded.offset, head_hash = excluded.head_hash,
            lines = excluded.lines,
            bad_lines = CASE WHEN ?13 THEN excluded.bad_lines ELSE bad_lines + excluded.bad_lines END,
            unknown_lines = CASE WHEN ?13 THEN excluded.unknown_lines
                                 ELSE unknown_lines + excluded.unknown_lines END,
            state = excluded.state, updated_at = excluded.updated_at",
    )?
    .execute(params![
        read.key,
        read.agent,
        format,
        read.size as i64,
        read.mtime_ns,
        read.offset as i64,
        read.head_hash,
        read.lines as i64,
        read.bad_lines as i64,
        read.unknown_lines as i64,
        state,
        cache.now,
        read.reset,
    ])
    .with_context(|| format!("recording {}", read.key))?;
    Ok(true)
}

/// Rewrites the keys of files stored under a spelling other than their canonical path (rows from
/// before keys were canonical: `tx`, `./tx`, `$PWD/tx` and a symlink each stored the same turns
/// again). The first spelling becomes the canonical key; the turns of every other spelling of
/// the same file are removed. Runs once, when the migration's flag asks for it.
pub fn canonical_keys(conn: &mut rusqlite::Connection) -> Result<()> {
    const FLAG: &str = "SELECT value FROM meta WHERE key = 'ingest.keys'";
    if conn.query_row(FLAG, [], |r| r.get::<_, String>(0)).optional()?.is_none() {
        return Ok(());
    }
    let tx = conn.transaction()?;
    let paths: Vec<String> = tx
        .prepare("SELECT path FROM ingested_files ORDER BY rowid")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for path in paths {
        let Ok(canonical) = std::fs::canonicalize(&path) else { continue };
        let canonical = canonical.to_string_lossy().into_owned();
        if canonical == path {
            continue;
        }
        let taken: bool = tx.query_row(
            "SELECT EXISTS(SELECT 1 FROM ingested_files WHERE path = ?1)",
            [&canonical],
            |r| r.get(0),
        )?;
        if taken {
            forget_file(&tx, &path)?;
            tx.execute("DELETE FROM ingested_files WHERE path = ?1", [&path])?;
        } else {
            tx.execute("UPDATE ingested_files SET path = ?2 WHERE path = ?1", [&path, &canonical])?;
            tx.execute(
                "UPDATE turns SET file_path = ?2 WHERE file_path = ?1",
                [&path, &canonical],
            )?;
        }
    }
    tx.execute("DELETE FROM meta WHERE key = 'ingest.keys'", [])?;
    tx.commit()?;
    Ok(())
}

/// Removes the rows of a file that shrank or was replaced, before it is read again.
fn forget_file(tx: &Transaction, path: &str) -> Result<()> {
    let turn_ids: Vec<i64> = tx
        .prepare("SELECT id FROM turns WHERE file_path = ?1")?
        .query_map([path], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    invocations::delete_transcript_rows(tx, &turn_ids)?;
    tx.execute(
        "DELETE FROM tool_calls WHERE turn_id IN (SELECT id FROM turns WHERE file_path = ?1)",
        [path],
    )?;
    tx.execute("DELETE FROM turns WHERE file_path = ?1", [path])?;
    Ok(())
}

pub(super) fn session_id(
    tx: &Transaction,
    cache: &mut RunCache,
    agent: &str,
    key: &str,
    source: Format,
    rec: Option<&SessionRec>,
    report: &mut IngestReport,
) -> Result<i64> {
    let cached = cache.ids.get(agent).and_then(|ids| ids.get(key)).copied();
    // Every turn asks for its session: the usual answer comes from the cache, with no row to
    // update and no key to allocate.
    if let (Some(id), None) = (cached, rec) {
        return Ok(id);
    }
    let known = match cached {
        Some(id) => Some(id),
        None => tx
            .prepare_cached("SELECT id FROM sessions WHERE agent_id = ?1 AND session_key = ?2")?
            .query_row(params![agent, key], |r| r.get(0))
            .optional()?,
    };
    let id = match known {
        Some(id) => {
            if let Some(rec) = rec {
                tx.prepare_cached(
                    "UPDATE sessions SET
                        project = coalesce(project, ?2),
                        started_at = CASE WHEN started_at IS NULL OR ?3 < started_at THEN ?3
                                          ELSE started_at END,
                        ended_at = CASE WHEN ended_at IS NULL OR ?4 > ended_at THEN ?4
                                        ELSE ended_at END,
                        title = coalesce(?5, title)
                     WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    rec.project,
                    rec.started_at,
                    rec.ended_at,
                    rec.title
                ])?;
            }
            id
        }
        None => {
            let empty = SessionRec::default();
            let rec = rec.unwrap_or(&empty);
            report.sessions += 1;
            let mut insert = tx.prepare_cached(
                "INSERT INTO sessions(agent_id, session_key, source, project, started_at, ended_at,
                                      title)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            insert.execute(params![
                agent,
                key,
                source,
                rec.project,
                rec.started_at,
                rec.ended_at,
                rec.title
            ])?;
            // A plain INSERT and the connection's last rowid: RETURNING buffers its rows first.
            tx.last_insert_rowid()
        }
    };
    if cached.is_none() {
        cache.ids.entry(agent.to_string()).or_default().insert(key.to_string(), id);
    }
    Ok(id)
}

pub(super) fn write_turn(
    tx: &Transaction,
    agent: &str,
    path: &str,
    session: i64,
    turn: &TurnRec,
    report: &mut IngestReport,
) -> Result<i64> {
    let updated = match turn.row {
        RowRef::Stored(id) => {
            let was_complete: Option<bool> = tx
                .prepare_cached("SELECT complete FROM turns WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?;
            let n = tx
                .prepare_cached(
                    "UPDATE turns SET outcome = ?2, failure_reason = ?3, summary = ?4,
                        started_at = ?5, ended_at = ?6, complete = ?7, model = ?8, tokens = ?9
                     WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    turn.outcome.as_str(),
                    turn.failure_reason,
                    turn.summary,
                    turn.started_at,
                    turn.ended_at,
                    turn.complete,
                    turn.model,
                    turn.tokens.map(|n| n as i64),
                ])?;
            if n == 1 {
                queue_on_update(tx, id, turn, was_complete == Some(true))?;
            }
            (n == 1).then_some(id)
        }
        RowRef::New => None,
    };
    let id = match updated {
        Some(id) => {
            report.turns_updated += 1;
            id
        }
        None => {
            report.turns += 1;
            let computed;
            let signature = match turn.signature.as_deref() {
                Some(s) => s,
                None => {
                    computed = task_signature(&turn.user_input);
                    &computed
                }
            };
            tx.prepare_cached(
                "INSERT INTO turns(session_id, agent_id, file_path, start_offset, user_input,
                    picked_skill, outcome, failure_reason, summary, started_at, ended_at,
                    is_sidechain, complete, model, tokens, signature)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            )?
            .execute(params![
                session,
                agent,
                path,
                turn.start_offset as i64,
                turn.user_input,
                turn.picked_skill,
                turn.outcome.as_str(),
                turn.failure_reason,
                turn.summary,
                turn.started_at,
                turn.ended_at,
                turn.is_sidechain,
                turn.complete,
                turn.model,
                turn.tokens.map(|n| n as i64),
                signature,
            ])?;
            let id = tx.last_insert_rowid();
            if turn.complete {
                queue(tx, id, turn.ended_at.as_deref())?;
            }
            id
        }
    };
    let mut insert_call = tx.prepare_cached(
        "INSERT INTO tool_calls(turn_id, ordinal, call_id, name, input_shape, is_error, at, step,
                                detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for call in &turn.new_calls {
        insert_call.execute(params![
            id,
            call.ordinal,
            call.call_id,
            call.name,
            call.input_shape,
            call.is_error,
            call.at,
            call.step.step,
            call.step.detail
        ])?;
        report.tool_calls += 1;
        report.tool_errors += u64::from(call.is_error);
    }
    let mut late = tx.prepare_cached(
        "UPDATE tool_calls SET is_error = 1 WHERE turn_id = ?1 AND call_id = ?2 AND is_error = 0",
    )?;
    for call_id in &turn.late_errors {
        report.tool_errors += late.execute(params![id, call_id])? as u64;
    }
    for inv in &turn.invocations {
        let at = inv.at.clone().or_else(|| turn.ended_at.clone()).unwrap_or_else(now_rfc3339);
        report.skill_invocations += invocations::insert_from_transcript(
            tx,
            agent,
            &inv.skill,
            inv.outcome,
            &turn.session_key,
            id,
            Some(&inv.call_id),
            &at,
            inv.via.as_deref().map(|v| format!("via {v}")).as_deref(),
        )? as u64;
    }
    Ok(id)
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

/// Stored rows of every file ingested before, by path (with a fast hash: a pass with nothing
/// new looks up every transcript file here).
pub fn load_stored(conn: &rusqlite::Connection) -> Result<foldhash::HashMap<String, Stored>> {
    let mut stmt = conn.prepare(
        "SELECT path, format, size, mtime_ns, offset, head_hash, lines, state FROM ingested_files",
    )?;
    let rows = stmt.query_map([], |r| {
        let format: String = r.get(1)?;
        Ok((
            r.get::<_, String>(0)?,
            Stored {
                format: Format::parse(&format),
                size: r.get::<_, i64>(2)? as u64,
                mtime_ns: r.get(3)?,
                offset: r.get::<_, i64>(4)? as u64,
                head_hash: r.get(5)?,
                lines: r.get::<_, i64>(6)? as u64,
                state: r.get(7)?,
            },
        ))
    })?;
    let mut map = foldhash::HashMap::default();
    for row in rows {
        let (path, stored) = row?;
        map.insert(path, stored);
    }
    Ok(map)
}

/// Puts complete turn `id` in the queue detection reads (`pending_turns`), in its order.
fn queue(tx: &Transaction, id: i64, ended_at: Option<&str>) -> Result<()> {
    tx.prepare_cached("INSERT OR IGNORE INTO pending_turns (turn_id, ended_at) VALUES (?1, ?2)")?
        .execute(params![id, ended_at])?;
    Ok(())
}

/// Keeps the queue in step with a stored turn just updated: a turn that became complete joins
/// it, a pending one keeps its place by its new end, one no longer complete leaves it. A turn
/// detection consumed stays out.
fn queue_on_update(tx: &Transaction, id: i64, turn: &TurnRec, was_complete: bool) -> Result<()> {
    match (was_complete, turn.complete) {
        (false, true) => queue(tx, id, turn.ended_at.as_deref()),
        (true, true) => {
            tx.prepare_cached("UPDATE pending_turns SET ended_at = ?2 WHERE turn_id = ?1")?
                .execute(params![id, turn.ended_at])?;
            Ok(())
        }
        (true, false) => {
            tx.prepare_cached("DELETE FROM pending_turns WHERE turn_id = ?1")?.execute([id])?;
            Ok(())
        }
        (false, false) => Ok(()),
    }
}

/// A complete turn detection has not consumed yet.
#[derive(Debug, Clone)]
pub struct PendingTurn {
    pub id: i64,
    pub agent_id: String,
    pub session_key: String,
    pub user_input: String,
    pub success: bool,
    pub summary: Option<String>,
    pub is_sidechain: bool,
    /// The session's project (working directory), when known.
    pub project: Option<String>,
    pub ended_at: Option<String>,
    /// Its prompt's task signature as stored with it (none in a database older than that).
    pub signature: Option<String>,
}

/// Pending turns in detection's order, read from the queue's index. `CROSS JOIN` keeps the
/// queue the outer loop: the planner may otherwise walk every turn and look each one up in it.
/// The queue's rows are skipped in its index alone, before any turn is read: with the offset on
/// the join, every skipped turn's row and session were read first.
const PENDING_TURNS: &str = "SELECT t.id, t.agent_id, s.session_key, t.user_input, t.outcome,
        t.summary, t.is_sidechain, s.project, t.ended_at, t.signature
    FROM (SELECT turn_id, ended_at FROM pending_turns
          ORDER BY ended_at, turn_id LIMIT ?1 OFFSET ?2) p
        CROSS JOIN turns t ON t.id = p.turn_id
        JOIN sessions s ON s.id = t.session_id
    ORDER BY p.ended_at, p.turn_id";

/// Sessions with pending turns, the queue again the outer loop.
const PENDING_SESSIONS: &str = "SELECT DISTINCT t.session_id
    FROM pending_turns p CROSS JOIN turns t ON t.id = p.turn_id ORDER BY 1";

/// Their ids alone, in the same order: read from the index, no row.
const PENDING_IDS: &str = "SELECT turn_id FROM pending_turns ORDER BY ended_at, turn_id LIMIT ?1";

/// The ids of `pending_turns`, from the index alone.
pub fn pending_turn_ids(conn: &Connection, limit: usize) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(PENDING_IDS)?;
    let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Up to `limit` complete turns not yet detected, in (ended_at, id) order.
pub fn pending_turns(conn: &Connection, limit: usize) -> Result<Vec<PendingTurn>> {
    pending_turns_from(conn, 0, limit)
}

/// `pending_turns` after the first `skip` of the queue (stepped over in the queue's index).
pub fn pending_turns_from(
    conn: &Connection,
    skip: usize,
    limit: usize,
) -> Result<Vec<PendingTurn>> {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(PENDING_TURNS)?;
    let rows = stmt.query_map([count(limit), count(skip)], |r| {
        Ok(PendingTurn {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            session_key: r.get(2)?,
            user_input: r.get(3)?,
            success: r.get::<_, Outcome>(4)? == Outcome::Success,
            summary: r.get(5)?,
            is_sidechain: r.get(6)?,
            project: r.get(7)?,
            ended_at: r.get(8)?,
            signature: r.get(9)?,
        })
    })?;
    rows.collect::<rusqlite::Result<Vec<_>>>().context("reading pending turns")
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

/// The agent's titles of sessions `keys` of `agent` (those that have one), in order.
pub fn session_titles(conn: &Connection, agent: &str, keys: &[&str]) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT title FROM sessions WHERE agent_id = ?1 AND session_key = ?2 AND title IS NOT NULL",
    )?;
    let mut out = Vec::new();
    for key in keys {
        if let Some(t) =
            stmt.query_row(params![agent, key], |r| r.get::<_, String>(0)).optional()?
        {
            out.push(t);
        }
    }
    Ok(out)
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

/// Marks turns `ids` consumed by detection: they leave the queue. `signatures` holds the task
/// signature detection settled on (`""` when empty) for each turn whose stored one may differ (a
/// steering reply's is emptied; a turn stored before signatures has none): a row is rewritten
/// only where it does differ. Detection passes only those turns, since reading a turn's stored
/// signature walks past its prompt, and marking is one statement per few hundred turns rather
/// than one per turn.
pub fn mark_detected(conn: &Connection, ids: &[i64], signatures: &[(i64, String)]) -> Result<()> {
    const CHUNK: usize = 400;
    for chunk in signatures.chunks(CHUNK) {
        let values = vec!["(?, ?)"; chunk.len()].join(", ");
        let sign = format!(
            "UPDATE turns SET signature = v.column2 FROM (VALUES {values}) AS v
             WHERE turns.id = v.column1 AND turns.signature IS NOT v.column2"
        );
        let params: Vec<&dyn rusqlite::ToSql> =
            chunk.iter().flat_map(|(id, sig)| [id as &dyn rusqlite::ToSql, sig]).collect();
        conn.prepare_cached(&sign)?.execute(params.as_slice())?;
    }
    conn.prepare_cached(
        "DELETE FROM pending_turns WHERE turn_id IN (SELECT value FROM json_each(?1))",
    )?
    .execute([serde_json::to_string(ids)?])?;
    Ok(())
}

/// One stored tool call: its name, the shape of its input, whether it failed, its step keys
/// (one per line, `step`; derived from the name for rows stored before steps existed)
/// and its redacted detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallRow {
    pub name: String,
    pub input_shape: String,
    pub is_error: bool,
    pub step: String,
    pub detail: Option<String>,
}

/// The columns of a `ToolCallRow`, from `tool_calls` (a macro, so each statement is one literal
/// rather than text formatted on every read).
macro_rules! call_columns {
    () => {
        "name, input_shape, is_error,
         coalesce(step, CASE WHEN substr(name, 1, 5) = 'mcp__' THEN 'mcp:' || name
                             ELSE 'tool:' || name END),
         detail"
    };
}

fn call_row(r: &rusqlite::Row, at: usize) -> rusqlite::Result<ToolCallRow> {
    Ok(ToolCallRow {
        name: r.get(at)?,
        input_shape: r.get(at + 1)?,
        is_error: r.get(at + 2)?,
        step: r.get(at + 3)?,
        detail: r.get(at + 4)?,
    })
}

/// A turn's tool calls in order.
pub fn tool_calls(conn: &Connection, turn_id: i64) -> Result<Vec<ToolCallRow>> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT ",
        call_columns!(),
        " FROM tool_calls WHERE turn_id = ?1 ORDER BY ordinal, id"
    ))?;
    let rows = stmt.query_map([turn_id], |r| call_row(r, 0))?;
    rows.collect::<rusqlite::Result<Vec<_>>>().context("reading tool calls")
}

/// The tool calls of each turn of `turn_ids`, in order, in one statement: the index is walked
/// once in turn order rather than sought once per turn.
pub fn tool_calls_of(
    conn: &Connection,
    turn_ids: &[i64],
) -> Result<HashMap<i64, Vec<ToolCallRow>>> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT turn_id, ",
        call_columns!(),
        " FROM tool_calls WHERE turn_id IN (SELECT value FROM json_each(?1))
          ORDER BY turn_id, ordinal, id"
    ))?;
    let ids = serde_json::to_string(turn_ids)?;
    let mut out: HashMap<i64, Vec<ToolCallRow>> = HashMap::with_capacity(turn_ids.len());
    let mut rows = stmt.query([ids])?;
    while let Some(r) = rows.next()? {
        out.entry(r.get(0)?).or_default().push(call_row(r, 1)?);
    }
    Ok(out)
}

/// The stored steps and details of the calls made in the agent's sessions `session_keys` (main
/// turns only), as (session key, step keys, detail).
pub fn session_calls(
    conn: &Connection,
    agent: &str,
    session_keys: &[String],
) -> Result<Vec<(String, String, Option<String>)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.session_key, c.step, c.detail FROM sessions s
         JOIN turns t ON t.session_id = s.id AND t.is_sidechain = 0
         JOIN tool_calls c ON c.turn_id = t.id
         WHERE s.agent_id = ?1 AND s.session_key = ?2 AND c.step IS NOT NULL
         ORDER BY t.id, c.ordinal",
    )?;
    let mut out = Vec::new();
    for key in session_keys {
        let rows =
            stmt.query_map(params![agent, key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

/// Tool names used in a turn, without the `Skill` tool itself.
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

pub fn tool_set(conn: &Connection, turn_id: i64) -> Result<BTreeSet<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT name FROM tool_calls WHERE turn_id = ?1 AND name <> 'Skill'",
    )?;
    let rows = stmt.query_map([turn_id], |r| r.get(0))?;
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

/// Sessions with complete turns detection has not consumed yet (what the next detection pass
/// reads), so later passes over those turns know which sessions to look at.
pub fn pending_session_ids(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(PENDING_SESSIONS)?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
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
    use super::*;
    use crate::store::Store;

    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).expect("plan");
        let params = rusqlite::params_from_iter(std::iter::repeat_n(1, stmt.parameter_count()));
        let rows = stmt.query_map(params, |r| r.get::<_, String>(3)).expect("plan rows");
        rows.map(|r| r.expect("plan row")).collect::<Vec<_>>().join("; ")
    }

    /// Detection reads its batches from the queue's index, in order: a scan of every turn, or a
    /// sort of every pending one, made it quadratic. The sessions come from the queue alone.
    #[test]
    fn pending_turns_come_from_the_queue_index_in_order() {
        let store = Store::open_in_memory().expect("store");
        let turns = plan(store.conn(), PENDING_TURNS);
        assert!(turns.contains("USING COVERING INDEX pending_turns_order"), "{turns}");
        assert!(!turns.contains("ORDER BY"), "{turns}");
        let ids = plan(store.conn(), PENDING_IDS);
        assert!(ids.contains("USING COVERING INDEX pending_turns_order"), "{ids}");
        assert!(!ids.contains("ORDER BY"), "{ids}");
        let sessions = plan(store.conn(), PENDING_SESSIONS);
        assert!(sessions.contains("SCAN p"), "{sessions}");
        assert!(!sessions.contains("SCAN t"), "{sessions}");
    }

    /// Lessons ask of each turn they read whether a call failed: one seek in the index of failed
    /// calls, not a walk over every call of the turn.
    #[test]
    fn a_failed_call_is_found_through_its_own_index() {
        let store = Store::open_in_memory().expect("store");
        let turns = plan(store.conn(), SESSION_TURNS);
        assert!(turns.contains("USING INDEX tool_calls_failed"), "{turns}");
        assert!(!turns.contains("tool_calls_turn_order"), "{turns}");
    }

    /// A turn is stored with its signature and queued when complete; marking it takes it out of
    /// the queue and rewrites its row only when the signature detection settled on differs.
    #[test]
    fn marking_dequeues_and_writes_only_a_changed_signature() {
        let store = Store::open_in_memory().expect("store");
        let conn = store.conn();
        conn.execute_batch(
            "INSERT INTO sessions (id, agent_id, session_key, source) VALUES (1, 'a', 's', 'native');
             INSERT INTO turns (id, session_id, file_path, user_input, signature, outcome, complete)
                 VALUES (1, 1, 'f', 'fix the build', 'build fix', 'success', 1),
                        (2, 1, 'f', 'oui', 'oui', 'success', 1);
             INSERT INTO pending_turns (turn_id, ended_at) VALUES (1, NULL), (2, NULL);",
        )
        .expect("rows");
        assert_eq!(pending_turn_ids(conn, 10).expect("ids"), [1, 2]);
        let changes = conn.total_changes();
        let signatures = [(1, "build fix".to_string()), (2, String::new())];
        mark_detected(conn, &[1, 2], &signatures).expect("mark");
        // One signature rewritten (the steering reply's), two turns out of the queue.
        assert_eq!(conn.total_changes() - changes, 3);
        assert!(pending_turn_ids(conn, 10).expect("ids").is_empty());
        let sig: String =
            conn.query_row("SELECT signature FROM turns WHERE id = 2", [], |r| r.get(0)).unwrap();
        assert_eq!(sig, "");
    }
}
