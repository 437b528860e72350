//! Reading sessions (`sessions`). Sessions are written by `ingest::write`, with the file read
//! that produced them, in one transaction; every other module reads them through here.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

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
