//! The latest members of each workflow, as its core is computed from them before it is judged,
//! kept in memory for one detection run: a workflow that gains a session gets its core again,
//! and reading its latest members back (their steps as JSON) for every session added was a large
//! share of detection on a long first run. A member added goes into the kept list in the order
//! the database would return it; a workflow whose members leave or move is read again.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, params};

use super::mine::Member;

/// Members of a workflow read for its core, latest first.
pub const CORE_MEMBERS: usize = 60;

/// Each workflow's latest members (at most [`CORE_MEMBERS`]) with their (turn, iteration), in
/// (turn, iteration) order, latest first: the primary key read backwards.
#[derive(Default)]
pub struct Cores {
    latest: HashMap<i64, Latest>,
}

#[derive(Default)]
struct Latest {
    at: Vec<(i64, i64)>,
    members: Vec<Member>,
}

impl Cores {
    /// Workflow `id`'s latest members, read from the database the first time.
    pub fn members(&mut self, conn: &Connection, id: i64) -> Result<&[Member]> {
        let latest = match self.latest.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(read(conn, id)?),
        };
        Ok(&latest.members)
    }

    /// A member stored for workflow `id` at (`turn_id`, `iteration`).
    pub fn added(&mut self, id: i64, turn_id: i64, iteration: i64, member: Member) {
        let Some(latest) = self.latest.get_mut(&id) else { return };
        let at = latest.at.partition_point(|&k| k > (turn_id, iteration));
        if at >= CORE_MEMBERS {
            return;
        }
        latest.at.insert(at, (turn_id, iteration));
        latest.members.insert(at, member);
        latest.at.truncate(CORE_MEMBERS);
        latest.members.truncate(CORE_MEMBERS);
    }

    /// Workflow `id`'s members changed otherwise (removed, moved, or the id is new): read again.
    pub fn forget(&mut self, id: i64) {
        self.latest.remove(&id);
    }
}

fn read(conn: &Connection, id: i64) -> Result<Latest> {
    let mut stmt = conn.prepare_cached(
        "SELECT turn_id, iteration, session_key, steps FROM workflow_members
         WHERE workflow_id = ?1 ORDER BY turn_id DESC, iteration DESC LIMIT ?2",
    )?;
    let mut latest = Latest::default();
    let rows = stmt.query_map(params![id, CORE_MEMBERS as i64], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    for row in rows {
        let (turn_id, iteration, session_key, steps) = row?;
        latest.at.push((turn_id, iteration));
        latest.members.push(Member { session_key, steps: serde_json::from_str(&steps)? });
    }
    Ok(latest)
}
