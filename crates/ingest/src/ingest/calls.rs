//! Reading tool calls (`tool_calls`): a turn's calls in order, a batch's calls, a session's
//! steps. Calls are written by `ingest::write`, with their turn, in one transaction; every other
//! module reads them through here.

use std::collections::{BTreeSet, HashMap};

use anyhow::{Context, Result};
use rusqlite::{Connection, params};

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
pub fn tool_set(conn: &Connection, turn_id: i64) -> Result<BTreeSet<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT name FROM tool_calls WHERE turn_id = ?1 AND name <> 'Skill'",
    )?;
    let rows = stmt.query_map([turn_id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
