//! What detection keeps of its workflows in memory for one run, so the walk does not read back
//! what it just wrote: each workflow's latest members, which its core is computed from before
//! it is judged (a workflow that gains a session gets its core again, and reading its latest
//! members' steps back as JSON for every session added was a large share of detection on a long
//! first run), and the ask its first sessions share. Members are kept as numbers (their session
//! and their steps' keys), which the core is tallied over without hashing a string. A member
//! added goes into the kept members in the order the database would return them, and drops the
//! kept ask when it is one of the first members; a task's members taken back leave the kept ones
//! (a full window is topped up from the members before it); a workflow whose members move is
//! read again. The step counts of the turns walked wait here too, and are written once a batch;
//! and which turns may be members of a workflow at all (the highest member turn when first
//! asked, and the turns placed since). When another connection committed between batches,
//! everything read is read again.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, params};

use super::mine::{CHANGE_STEP, Obs, TurnSeq, consensus_numbered};

/// Members of a workflow read for its core, latest first.
pub const CORE_MEMBERS: usize = 60;

/// Members of a workflow read for the ask it recurs with, first first.
const ASK_MEMBERS: usize = 8;

/// Per workflow: its latest members (at most [`CORE_MEMBERS`]) with their (turn, iteration), in
/// (turn, iteration) order, latest first (the primary key read backwards); and the ask its first
/// sessions share, with how many members that was read from and the last one's place.
#[derive(Default)]
pub struct Memo {
    /// `workflow_index` as read and written this run.
    pub index: super::index::Index,
    latest: HashMap<i64, Latest>,
    /// The step keys and session keys of the kept members, numbered.
    keys: Numbers,
    sessions: Numbers,
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
    /// What the driven rules read of turns and sessions (the history does not change in a pass).
    pub facts: super::driven::Facts,
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

/// Each member's session and steps' keys, by number.
#[derive(Default)]
struct Latest {
    at: Vec<(i64, i64)>,
    members: Vec<(u32, Vec<u32>)>,
}

/// Numbers for strings: the same string, the same number, for as long as they are kept.
#[derive(Default)]
struct Numbers {
    of: HashMap<String, u32>,
    names: Vec<String>,
}

impl Numbers {
    fn number(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.of.get(name) {
            return n;
        }
        let n = self.names.len() as u32;
        self.of.insert(name.to_string(), n);
        self.names.push(name.to_string());
        n
    }
}

/// Step keys and session keys numbered before the kept members are dropped and read again
/// (a long history's distinct file paths would otherwise only grow).
const NUMBERED: usize = 1 << 16;

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

    /// Another connection committed since the last batch: what was read may have changed, so
    /// all of it is read again (the counts not written yet are this run's own and stay).
    pub fn changed_elsewhere(&mut self) {
        self.index.clear();
        self.latest.clear();
        self.keys = Numbers::default();
        self.sessions = Numbers::default();
        self.asks.clear();
        self.placed = None;
        self.facts = Default::default();
    }

    /// Workflow `id`'s core: the steps at least two sessions of its latest members share, without
    /// the change marker (`mine::consensus_keys`). Its members are read from the database the
    /// first time.
    pub fn core(&mut self, conn: &Connection, id: i64) -> Result<Vec<String>> {
        if !self.latest.contains_key(&id) {
            self.keep_numbers_bounded();
            let latest = read(conn, id, (&mut self.keys, &mut self.sessions))?;
            self.latest.insert(id, latest);
        }
        let latest = &self.latest[&id];
        let members: Vec<(u32, &[u32])> =
            latest.members.iter().map(|(session, keys)| (*session, keys.as_slice())).collect();
        Ok(consensus_numbered(&members, &self.keys.names, 2, 1)
            .into_iter()
            .filter(|k| *k != CHANGE_STEP)
            .map(str::to_string)
            .collect())
    }

    /// Drops the kept members and their numbers once too many strings are numbered.
    fn keep_numbers_bounded(&mut self) {
        if self.keys.names.len() + self.sessions.names.len() >= NUMBERED {
            self.latest.clear();
            self.keys = Numbers::default();
            self.sessions = Numbers::default();
        }
    }

    /// A member stored for workflow `id` at (`turn_id`, `iteration`), from session `session_key`
    /// with `steps`.
    pub fn added(
        &mut self,
        id: i64,
        (turn_id, iteration): (i64, i64),
        session_key: &str,
        steps: &[Obs],
    ) {
        if self.asks.get(&id).is_some_and(|a| a.read < ASK_MEMBERS || (turn_id, iteration) < a.last)
        {
            self.asks.remove(&id);
        }
        let Some(latest) = self.latest.get(&id) else { return };
        let at = latest.at.partition_point(|&k| k > (turn_id, iteration));
        if at >= CORE_MEMBERS {
            return;
        }
        self.keep_numbers_bounded();
        let session = self.sessions.number(session_key);
        let keys: Vec<u32> = steps.iter().map(|o| self.keys.number(&o.0)).collect();
        let Some(latest) = self.latest.get_mut(&id) else { return };
        latest.at.insert(at, (turn_id, iteration));
        latest.members.insert(at, (session, keys));
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

    /// Task `turn_id`'s members left workflow `id` (already deleted from the table). The kept
    /// members lose theirs; a full window of members is filled again from the ones before it,
    /// rather than read whole again (a task that grows is taken back and placed again, often
    /// in the same workflow).
    pub fn removed(&mut self, conn: &Connection, id: i64, turn_id: i64) -> Result<()> {
        self.asks.remove(&id);
        let Some(latest) = self.latest.get_mut(&id) else { return Ok(()) };
        let full = latest.at.len() >= CORE_MEMBERS;
        let before = latest.at.len();
        let mut keep = latest.at.iter().map(|k| k.0 != turn_id);
        latest.members.retain(|_| keep.next().unwrap_or(true));
        latest.at.retain(|k| k.0 != turn_id);
        let gone = before - latest.at.len();
        if !full || gone == 0 {
            return Ok(());
        }
        let Some(&oldest) = latest.at.last() else {
            self.latest.remove(&id);
            return Ok(());
        };
        self.keep_numbers_bounded();
        let Some(latest) = self.latest.get_mut(&id) else { return Ok(()) };
        let older = read_rows(conn, id, Some(oldest), gone, (&mut self.keys, &mut self.sessions))?;
        latest.at.extend(older.at);
        latest.members.extend(older.members);
        Ok(())
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

fn read(conn: &Connection, id: i64, numbers: (&mut Numbers, &mut Numbers)) -> Result<Latest> {
    read_rows(conn, id, None, CORE_MEMBERS, numbers)
}

/// Workflow `id`'s latest `limit` members before (`turn_id`, `iteration`) `below` (all when
/// `None`), latest first.
fn read_rows(
    conn: &Connection,
    id: i64,
    below: Option<(i64, i64)>,
    limit: usize,
    (keys, sessions): (&mut Numbers, &mut Numbers),
) -> Result<Latest> {
    let mut stmt = conn.prepare_cached(
        "SELECT turn_id, iteration, session_key, steps FROM workflow_members
         WHERE workflow_id = ?1 AND (turn_id, iteration) < (?2, ?3)
         ORDER BY turn_id DESC, iteration DESC LIMIT ?4",
    )?;
    let (turn, iteration) = below.unwrap_or((i64::MAX, i64::MAX));
    let mut latest = Latest::default();
    let rows = stmt.query_map(params![id, turn, iteration, limit as i64], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    for row in rows {
        let (turn_id, iteration, session_key, steps) = row?;
        let steps: Vec<Obs> = serde_json::from_str(&steps)?;
        latest.at.push((turn_id, iteration));
        latest.members.push((
            sessions.number(&session_key),
            steps.iter().map(|o| keys.number(&o.0)).collect(),
        ));
    }
    Ok(latest)
}

#[cfg(test)]
mod tests {
    use super::super::store_with_workflows;
    use super::*;

    /// A turn is known to be in no workflow only above the highest member when first asked and
    /// when not added since; a member stored after that is seen.
    #[test]
    fn a_turn_is_placed_nowhere_only_when_it_cannot_be_a_member() {
        let store = store_with_workflows(&[1]);
        let conn = store.conn();
        conn.execute(
            "INSERT INTO workflow_members (workflow_id, turn_id, iteration, session_key, steps,
                                           request, success)
                 VALUES (1, 5, 0, 's', '[]', 'r', 1)",
            [],
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

    /// The kept members after a task's members leave are what reading them afresh gives: a
    /// full window is filled again from the members before it, a partial one only loses them.
    #[test]
    fn members_taken_back_leave_what_a_fresh_read_gives() {
        let store = store_with_workflows(&[1, 2]);
        let conn = store.conn();
        let mut add = conn
            .prepare(
                "INSERT INTO workflow_members (workflow_id, turn_id, iteration, session_key, steps,
                                               request, success) VALUES (?1, ?2, ?3, ?4, ?5, 'r', 1)",
            )
            .expect("prepare");
        let steps =
            |turn: i64| format!(r#"[["sh:a",null],["sh:b{}",null],["sh:c",null]]"#, turn % 3);
        // Workflow 1 holds more members than are kept; workflow 2 fewer. Turn 70 has two
        // iterations in workflow 1.
        for turn in 1..=(CORE_MEMBERS as i64 + 12) {
            add.execute(params![1, turn, 0, format!("s{}", turn % 7), steps(turn)]).unwrap();
        }
        add.execute(params![1, 70, 1, "s0", steps(1)]).unwrap();
        for turn in 1..=5 {
            add.execute(params![2, turn, 0, format!("s{turn}"), steps(turn)]).unwrap();
        }
        let mut memo = Memo::default();
        memo.core(conn, 1).unwrap();
        memo.core(conn, 2).unwrap();
        for (id, turn) in [(1, 70), (1, 71), (2, 3), (1, 5)] {
            conn.execute(
                "DELETE FROM workflow_members WHERE workflow_id = ?1 AND turn_id = ?2",
                params![id, turn],
            )
            .unwrap();
            memo.removed(conn, id, turn).unwrap();
            let mut fresh = Memo::default();
            assert_eq!(memo.core(conn, id).unwrap(), fresh.core(conn, id).unwrap());
            let names = |m: &Memo| -> Vec<(i64, i64, String, Vec<String>)> {
                let latest = &m.latest[&id];
                latest
                    .at
                    .iter()
                    .zip(&latest.members)
                    .map(|(&(t, i), (s, keys))| {
                        let keys = keys.iter().map(|k| m.keys.names[*k as usize].clone());
                        (t, i, m.sessions.names[*s as usize].clone(), keys.collect())
                    })
                    .collect()
            };
            assert_eq!(names(&memo), names(&fresh), "after turn {turn} left workflow {id}");
        }
        assert_eq!(memo.latest[&1].at.len(), CORE_MEMBERS);
        assert_eq!(memo.latest[&2].at.len(), 4);
    }
}
