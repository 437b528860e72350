//! Owns the table `sequence_sightings`: every session a tool-sequence hash was seen in, before
//! and after it becomes a candidate (a candidate needs `detect.min_sessions` distinct sessions).

use anyhow::Result;
use rusqlite::{Connection, params};

/// One sighting about to be recorded.
pub struct Sighting<'a> {
    pub agent_id: &'a str,
    pub hash: &'a str,
    pub session_key: &'a str,
    pub turn_id: i64,
    pub user_input: &'a str,
    /// JSON array of steps.
    pub tool_sequence: &'a str,
    pub seen_at: &'a str,
}

/// Records a sighting; false when the sequence was already seen in that session.
pub fn add(conn: &Connection, s: &Sighting) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO sequence_sightings
         (agent_id, hash, session_key, turn_id, user_input, tool_sequence, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let added = stmt.execute(params![
        s.agent_id,
        s.hash,
        s.session_key,
        s.turn_id,
        s.user_input,
        s.tool_sequence,
        s.seen_at
    ])?;
    Ok(added > 0)
}

/// The sightings of one hash, first seen first: (session key, user input, tool sequence JSON).
pub fn of_hash(
    conn: &Connection,
    agent: &str,
    hash: &str,
) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT session_key, user_input, tool_sequence FROM sequence_sightings
         WHERE agent_id = ?1 AND hash = ?2 ORDER BY rowid",
    )?;
    let rows = stmt.query_map(params![agent, hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The first `n` distinct requests (trimmed, non-empty) of one hash's sightings, first seen
/// first.
pub fn first_inputs(conn: &Connection, agent: &str, hash: &str, n: usize) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT user_input FROM sequence_sightings WHERE agent_id = ?1 AND hash = ?2
         ORDER BY rowid",
    )?;
    let mut rows = stmt.query(params![agent, hash])?;
    let mut out: Vec<String> = Vec::new();
    while out.len() < n
        && let Some(row) = rows.next()?
    {
        let input = row.get_ref(0)?.as_str()?.trim();
        if !input.is_empty() && !out.iter().any(|o| o == input) {
            out.push(input.to_string());
        }
    }
    Ok(out)
}
