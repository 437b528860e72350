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

/// What a sequence candidate is built from: the sessions of one hash, first seen first, the
/// first sighting's tool sequence (JSON) and the first `max_examples` distinct trimmed,
/// non-empty user inputs.
pub struct OfHash {
    pub session_keys: Vec<String>,
    pub tool_sequence: String,
    pub examples: Vec<String>,
}

/// Reads the sightings of one hash; the session keys come from the primary-key index alone, and
/// the inputs are read only until `max_examples` distinct ones are found (a hash seen in
/// thousands of sessions made reading every input the main cost of detection).
pub fn of_hash(
    conn: &Connection,
    agent: &str,
    hash: &str,
    max_examples: usize,
) -> Result<Option<OfHash>> {
    let mut keys = conn.prepare_cached(
        "SELECT session_key FROM sequence_sightings WHERE agent_id = ?1 AND hash = ?2 ORDER BY rowid",
    )?;
    let session_keys: Vec<String> =
        keys.query_map(params![agent, hash], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    if session_keys.is_empty() {
        return Ok(None);
    }
    let mut rows = conn.prepare_cached(
        "SELECT user_input, tool_sequence FROM sequence_sightings
         WHERE agent_id = ?1 AND hash = ?2 ORDER BY rowid",
    )?;
    let mut rows = rows.query(params![agent, hash])?;
    let mut tool_sequence: Option<String> = None;
    let mut examples: Vec<String> = Vec::new();
    while let Some(row) = rows.next()? {
        if tool_sequence.is_none() {
            tool_sequence = Some(row.get(1)?);
        }
        let input: String = row.get(0)?;
        let input = input.trim();
        if !input.is_empty() && !examples.iter().any(|e| e == input) {
            examples.push(input.to_string());
        }
        if examples.len() >= max_examples {
            break;
        }
    }
    Ok(tool_sequence.map(|tool_sequence| OfHash { session_keys, tool_sequence, examples }))
}
