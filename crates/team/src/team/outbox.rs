//! Owns the table `team_outbox`: items queued for the team's server and whether they were sent.
//! An item is queued once (its key is unique), sent in batches, and marked sent only after the
//! server committed its batch; the server ignores a key it already has, so a batch sent again
//! after a crash between the two adds nothing.

use anyhow::Result;
use rusqlite::{Connection, params};
use serde::Serialize;

use super::items::Item;

/// Queues `item` under `key`; false when that key was queued before.
pub fn enqueue(conn: &Connection, key: &str, item: &Item, now: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO team_outbox (kind, item_key, payload, queued_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    Ok(stmt.execute(params![item.kind(), key, serde_json::to_string(item)?, now])? == 1)
}

/// A queued item not yet sent.
#[derive(Debug, Clone)]
pub struct Queued {
    pub id: i64,
    pub key: String,
    pub item: Item,
}

/// Up to `limit` unsent items, oldest first.
pub fn unsent(conn: &Connection, limit: usize) -> Result<Vec<Queued>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, item_key, payload FROM team_outbox WHERE sent_at IS NULL ORDER BY id LIMIT ?1",
    )?;
    let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, key, payload) = row?;
        let item = serde_json::from_str(&payload)
            .map_err(|e| anyhow::anyhow!("team_outbox row {id}: unreadable payload: {e}"))?;
        out.push(Queued { id, key, item });
    }
    Ok(out)
}

/// Marks items sent (after the server committed them).
pub fn mark_sent(conn: &Connection, ids: &[i64], now: &str) -> Result<()> {
    let mut stmt = conn.prepare_cached("UPDATE team_outbox SET sent_at = ?2 WHERE id = ?1")?;
    for id in ids {
        stmt.execute(params![id, now])?;
    }
    Ok(())
}

/// What the outbox holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    pub queued: u64,
    pub sent: u64,
}

pub fn counts(conn: &Connection) -> Result<Counts> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FILTER (WHERE sent_at IS NULL), COUNT(*) FILTER (WHERE sent_at IS NOT NULL)
         FROM team_outbox",
        [],
        |r| Ok(Counts { queued: r.get::<_, i64>(0)? as u64, sent: r.get::<_, i64>(1)? as u64 }),
    )?)
}
