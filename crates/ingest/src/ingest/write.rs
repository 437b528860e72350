//! Storing what a file's new bytes produced. Rows and the file's new offset go into the same
//! transaction, so a crash never leaves an offset ahead of the rows it promises.
//!
//! Owns the table `ingested_files`. It is also the one writer of the rows a file's read produces
//! in `sessions`, `turns`, `pending_turns` and `tool_calls` (in the transaction that moves the
//! file's offset), and of detection's mark that takes a turn out of the queue; those tables are
//! read through their owners (`sessions`, `turns`, `queue`, `calls`).

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::IngestReport;
use super::files::{FileRead, Format, Stored};
use super::parse::SessionRec;
use super::turn::{RowRef, TurnRec};
use crate::catalog::invocations;
use crate::store::now_rfc3339;
use crate::text::signature::task_signature;

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

#[cfg(test)]
mod tests {
    use super::super::pending_turn_ids;
    use super::*;
    use crate::store::Store;

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
