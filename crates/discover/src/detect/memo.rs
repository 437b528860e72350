//! What detection keeps of its workflows in memory for one run, so the walk does not read back
//! what it just wrote: each workflow's latest members, which its core is computed from before
//! it is judged (a workflow that gains a session gets its core again, and reading its latest
//! members' steps back as JSON for every session added was a large share of detection on a long
//! first run), and the ask its first sessions share. A member added goes into the kept members
//! in the order the database would return them, and drops the kept ask when it is one of the
//! first members; a workflow whose members leave or move is read again. The step counts of the
//! turns walked wait here too, and are written once a batch; and which turns may be members of
//! a workflow at all (the highest member turn when first asked, and the turns placed since).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, params};

use super::mine::{Member, TurnSeq};

/// Members of a workflow read for its core, latest first.
pub const CORE_MEMBERS: usize = 60;

/// Members of a workflow read for the ask it recurs with, first first.
const ASK_MEMBERS: usize = 8;

/// Per workflow: its latest members (at most [`CORE_MEMBERS`]) with their (turn, iteration), in
/// (turn, iteration) order, latest first (the primary key read backwards); and the ask its first
/// sessions share, with how many members that was read from and the last one's place.
#[derive(Default)]
pub struct Memo {
    latest: HashMap<i64, Latest>,
    asks: HashMap<i64, Ask>,
    /// The keys of requests read lately, by the request's text: a task's later turns and an ask
    /// repeated read the same request again.
    request_keys: HashMap<String, Vec<String>>,
    /// Step counts (document frequencies) of the turns walked since they were last written, by
    /// agent and step key: written once a batch rather than once for each turn.
    uncounted: BTreeMap<String, BTreeMap<String, u64>>,
    /// Which turns may be members of a workflow: none above the highest one that was when this
    /// was first asked, but those added since. A task's head placed nowhere (most are) has
    /// nothing to take back, and asking the database said so once per task.
    placed: Option<Placed>,
}

struct Placed {
    highest: i64,
    since: HashSet<i64>,
}

/// Requests whose keys are kept (all are dropped when the count is reached).
const REQUESTS_KEPT: usize = 1024;

struct Ask {
    shared: Option<BTreeSet<String>>,
    read: usize,
    last: (i64, i64),
}

#[derive(Default)]
struct Latest {
    at: Vec<(i64, i64)>,
    members: Vec<Member>,
}

impl Memo {
    /// The keys of `request` (`requests::keys`), computed once while it is kept.
    pub fn request_keys(&mut self, request: &str) -> Vec<String> {
        if let Some(keys) = self.request_keys.get(request) {
            return keys.clone();
        }
        let keys = super::requests::keys(request);
        if self.request_keys.len() >= REQUESTS_KEPT {
            self.request_keys.clear();
        }
        self.request_keys.insert(request.to_string(), keys.clone());
        keys
    }

    /// Counts one turn's steps for `agent` (the empty key counts the turn).
    pub fn count_steps(&mut self, agent: &str, seq: &TurnSeq) {
        let counts = match self.uncounted.get_mut(agent) {
            Some(counts) => counts,
            None => self.uncounted.entry(agent.to_string()).or_default(),
        };
        for key in std::iter::once("").chain(seq.all_keys.iter().map(String::as_str)) {
            match counts.get_mut(key) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(key.to_string(), 1);
                }
            }
        }
    }

    /// The turns counted for `agent` and `key` that are not written yet.
    pub fn uncounted(&self, agent: &str, key: &str) -> u64 {
        self.uncounted.get(agent).and_then(|c| c.get(key)).copied().unwrap_or(0)
    }

    /// The counts not written yet, by agent and key, handed over to be written.
    pub fn take_uncounted(&mut self) -> BTreeMap<String, BTreeMap<String, u64>> {
        std::mem::take(&mut self.uncounted)
    }

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
        if self.asks.get(&id).is_some_and(|a| a.read < ASK_MEMBERS || (turn_id, iteration) < a.last)
        {
            self.asks.remove(&id);
        }
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

    /// Whether turn `turn_id` may be a member of some workflow (`false`: it is not).
    pub fn may_be_placed(&mut self, conn: &Connection, turn_id: i64) -> Result<bool> {
        let placed = match &mut self.placed {
            Some(placed) => placed,
            None => {
                let highest: Option<i64> = conn
                    .prepare_cached("SELECT max(turn_id) FROM workflow_members")?
                    .query_row([], |r| r.get(0))?;
                let highest = highest.unwrap_or(i64::MIN);
                self.placed.insert(Placed { highest, since: HashSet::new() })
            }
        };
        Ok(turn_id <= placed.highest || placed.since.contains(&turn_id))
    }

    /// Turn `turn_id` was just stored as a member of a workflow. Before the first question there
    /// is nothing to note: the highest member read then covers it.
    pub fn placed(&mut self, turn_id: i64) {
        if let Some(placed) = &mut self.placed {
            placed.since.insert(turn_id);
        }
    }

    /// Workflow `id`'s members changed otherwise (removed, moved, or the id is new): read again.
    pub fn forget(&mut self, id: i64) {
        self.latest.remove(&id);
        self.asks.remove(&id);
    }

    /// The request keys the first two sessions of workflow `id` were asked with in common: the
    /// work is asked for in a fixed way (a template, a daemon's prompt). `None` when it is not.
    pub fn recurring_ask(
        &mut self,
        conn: &Connection,
        id: i64,
    ) -> Result<Option<BTreeSet<String>>> {
        if let Some(ask) = self.asks.get(&id) {
            return Ok(ask.shared.clone());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT turn_id, iteration, session_key, request FROM workflow_members
             WHERE workflow_id = ?1 ORDER BY turn_id, iteration LIMIT ?2",
        )?;
        let rows: Vec<((i64, i64), String, String)> = stmt
            .query_map(params![id, ASK_MEMBERS as i64], |r| {
                Ok(((r.get(0)?, r.get(1)?), r.get(2)?, r.get(3)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let shared = self.shared_ask(&rows);
        let last = rows.last().map_or((i64::MIN, i64::MIN), |r| r.0);
        self.asks.insert(id, Ask { shared: shared.clone(), read: rows.len(), last });
        Ok(shared)
    }

    /// The keys the first request and the first one of another session share.
    fn shared_ask(&mut self, rows: &[((i64, i64), String, String)]) -> Option<BTreeSet<String>> {
        let (_, first_session, first) = rows.first()?;
        let (_, _, second) = rows.iter().find(|(_, s, _)| s != first_session)?;
        let a: BTreeSet<String> = self.request_keys(first).into_iter().collect();
        let shared: BTreeSet<String> =
            self.request_keys(second).into_iter().filter(|k| a.contains(k)).collect();
        (!shared.is_empty()).then_some(shared)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// A turn is known to be in no workflow only above the highest member when first asked and
    /// when not added since; a member stored after that is seen.
    #[test]
    fn a_turn_is_placed_nowhere_only_when_it_cannot_be_a_member() {
        let store = Store::open_in_memory().expect("store");
        let conn = store.conn();
        conn.execute_batch(
            "INSERT INTO workflows (id, agent_id, steps, members, sessions, updated_at)
                 VALUES (1, 'a', '[]', 1, 1, 'T');
             INSERT INTO workflow_members (workflow_id, turn_id, iteration, session_key, steps,
                                           request, success)
                 VALUES (1, 5, 0, 's', '[]', 'r', 1);",
        )
        .expect("rows");
        let mut memo = Memo::default();
        assert!(memo.may_be_placed(conn, 5).unwrap());
        assert!(memo.may_be_placed(conn, 3).unwrap(), "below the highest: asked of the database");
        assert!(!memo.may_be_placed(conn, 6).unwrap());
        memo.placed(9);
        assert!(memo.may_be_placed(conn, 9).unwrap());
        assert!(!memo.may_be_placed(conn, 8).unwrap());
        // Placed before it was first asked: the highest member read then covers it.
        let mut fresh = Memo::default();
        fresh.placed(5);
        assert!(fresh.may_be_placed(conn, 5).unwrap());
    }
}
