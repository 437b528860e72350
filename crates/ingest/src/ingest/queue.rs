//! The queue detection reads (`pending_turns`: the complete turns detection has not consumed,
//! in its order). Ingest fills it as turns complete and detection empties it as it marks them
//! consumed (both in `ingest::write`); reading it is here.

use anyhow::{Context, Result};
use rusqlite::Connection;

use crate::model::Outcome;

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

/// Sessions with complete turns detection has not consumed yet (what the next detection pass
/// reads), so later passes over those turns know which sessions to look at.
pub fn pending_session_ids(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(PENDING_SESSIONS)?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::super::query_plan as plan;
    use super::*;
    use crate::store::Store;

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
}
