//! Seed 001's implicit signal: after a skill invocation, the agent retries the same task
//! signature with different tools in the same session → the invocation failed.
//!
//! For each successful invocation tied to a turn with a non-empty signature, the first later turn
//! of the same session with that signature, which does not invoke the same skill and whose set
//! of tool names differs, is the retry. The pass adds one `implicit` failure (at the retry turn's
//! time, `call_id` `implicit:<invocation id>` so reruns add nothing) and marks the original
//! success `superseded`, so the use counts once, as a failure.

use std::collections::BTreeSet;

use anyhow::Result;
use rusqlite::{Connection, params};

use crate::store::now_rfc3339;
use crate::workspace::Workspace;

pub fn implicit_failures(ws: &mut Workspace) -> Result<usize> {
    let tx = ws.store.conn_mut().transaction()?;
    let pairs = retry_pairs(&tx)?;
    let mut added = 0;
    for p in pairs {
        if tool_set(&tx, p.turn_id)? == tool_set(&tx, p.retry_turn_id)? {
            continue;
        }
        let note = format!("retried in turn {} with different tools", p.retry_turn_id);
        let n = tx.execute(
            "INSERT OR IGNORE INTO skill_invocations(agent_id, skill_name, skill_id, outcome,
                 source, session_key, turn_id, call_id, note, at)
             VALUES (?1, ?2, ?3, 'failure', 'implicit', ?4, ?5, ?6, ?7, ?8)",
            params![
                p.agent_id,
                p.skill_name,
                p.skill_id,
                p.session_key,
                p.retry_turn_id,
                format!("implicit:{}", p.invocation_id),
                note,
                p.retry_at.unwrap_or_else(now_rfc3339),
            ],
        )?;
        tx.execute("UPDATE skill_invocations SET superseded = 1 WHERE id = ?1", [p.invocation_id])?;
        added += n;
    }
    tx.commit()?;
    Ok(added)
}

struct RetryPair {
    invocation_id: i64,
    agent_id: String,
    skill_name: String,
    skill_id: Option<i64>,
    session_key: Option<String>,
    turn_id: i64,
    retry_turn_id: i64,
    retry_at: Option<String>,
}

fn retry_pairs(conn: &Connection) -> Result<Vec<RetryPair>> {
    let mut stmt = conn.prepare(
        "SELECT i.id, i.agent_id, i.skill_name, i.skill_id, i.session_key, t1.id, t2.id,
                COALESCE(t2.started_at, t2.ended_at)
         FROM skill_invocations i INDEXED BY skill_invocations_turn
         JOIN turns t1 ON t1.id = i.turn_id
         JOIN turns t2 ON t2.id = (
             SELECT t.id FROM turns t
             WHERE t.session_id = t1.session_id AND t.id > t1.id AND t.signature = t1.signature
               AND NOT EXISTS (SELECT 1 FROM skill_invocations j
                               WHERE j.turn_id = t.id AND j.skill_name = i.skill_name)
             ORDER BY t.id LIMIT 1)
         WHERE i.turn_id IS NOT NULL AND i.outcome = 'success' AND i.superseded = 0
           AND i.source <> 'implicit' AND t1.signature IS NOT NULL AND t1.signature <> ''",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(RetryPair {
            invocation_id: r.get(0)?,
            agent_id: r.get(1)?,
            skill_name: r.get(2)?,
            skill_id: r.get(3)?,
            session_key: r.get(4)?,
            turn_id: r.get(5)?,
            retry_turn_id: r.get(6)?,
            retry_at: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Tool names used in a turn, without the `Skill` tool itself.
fn tool_set(conn: &Connection, turn_id: i64) -> Result<BTreeSet<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT name FROM tool_calls WHERE turn_id = ?1 AND name <> 'Skill'",
    )?;
    let rows = stmt.query_map([turn_id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
