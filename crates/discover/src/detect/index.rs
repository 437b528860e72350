//! `workflow_index` as the walk has read it, for one run. Every turn's lookup reads the
//! workflows filed under a few of its steps and request keys, the same few hundred keys over and
//! over; each (agent, key) is read once here and kept in step with what the walk writes (the
//! writes still go to the table, which `workflows` owns). Kept with each id: whether its workflow
//! still exists, since a request key's row outlives a workflow taken back or absorbed.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, params};

/// Ids kept (all are dropped when the count is reached: a long history's common steps file
/// many workflows).
const IDS_KEPT: usize = 1 << 16;

#[derive(Default)]
pub struct Index {
    /// By agent and key, the workflow ids filed under it, ascending.
    filed: HashMap<String, HashMap<String, Vec<i64>>>,
    held: usize,
    /// Whether a workflow exists, as read or as the walk made it.
    exists: HashMap<i64, bool>,
}

impl Index {
    /// The latest `limit` workflows filed under `key` for `agent`, latest first, as
    /// `... ORDER BY workflow_id DESC LIMIT limit` reads them.
    pub fn latest(
        &mut self,
        conn: &Connection,
        agent: &str,
        key: &str,
        limit: usize,
    ) -> Result<Vec<i64>> {
        self.load(conn, agent, key)?;
        Ok(self.filed[agent][key].iter().rev().take(limit).copied().collect())
    }

    /// As [`Index::latest`], of the workflows that still exist (the index joined with
    /// `workflows`).
    pub fn latest_existing(
        &mut self,
        conn: &Connection,
        agent: &str,
        key: &str,
        limit: usize,
    ) -> Result<Vec<i64>> {
        self.load(conn, agent, key)?;
        let Index { filed, exists, .. } = self;
        let mut out = Vec::new();
        for &id in filed[agent][key].iter().rev() {
            if out.len() >= limit {
                break;
            }
            if still_exists(conn, exists, id)? {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// Reads the workflows filed under `key` for `agent` unless they are kept.
    fn load(&mut self, conn: &Connection, agent: &str, key: &str) -> Result<()> {
        if self.filed.get(agent).is_some_and(|f| f.contains_key(key)) {
            return Ok(());
        }
        if self.held >= IDS_KEPT {
            self.filed.clear();
            self.held = 0;
        }
        let ids: Vec<i64> = conn
            .prepare_cached(
                "SELECT workflow_id FROM workflow_index WHERE agent_id = ?1 AND step = ?2
                 ORDER BY workflow_id",
            )?
            .query_map(params![agent, key], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        self.held += ids.len();
        let by_key = match self.filed.get_mut(agent) {
            Some(by_key) => by_key,
            None => self.filed.entry(agent.to_string()).or_default(),
        };
        by_key.insert(key.to_string(), ids);
        Ok(())
    }

    fn list(&mut self, agent: &str, key: &str) -> Option<&mut Vec<i64>> {
        self.filed.get_mut(agent)?.get_mut(key)
    }

    /// `(agent, key, id)` was inserted, or ignored as already there.
    pub fn inserted(&mut self, agent: &str, key: &str, id: i64) {
        let Some(ids) = self.list(agent, key) else { return };
        if let Err(at) = ids.binary_search(&id) {
            ids.insert(at, id);
            self.held += 1;
        }
    }

    /// `(agent, key, id)` was deleted.
    pub fn deleted(&mut self, agent: &str, key: &str, id: i64) {
        let Some(ids) = self.list(agent, key) else { return };
        if let Ok(at) = ids.binary_search(&id) {
            ids.remove(at);
        }
    }

    /// `(agent, key, from)` was updated to `into`, or left when `(agent, key, into)` was there.
    pub fn repointed(&mut self, agent: &str, key: &str, from: i64, into: i64) {
        let Some(ids) = self.list(agent, key) else { return };
        if ids.binary_search(&into).is_ok() {
            return;
        }
        if let Ok(at) = ids.binary_search(&from) {
            ids.remove(at);
            let at = ids.binary_search(&into).unwrap_or_else(|at| at);
            ids.insert(at, into);
        }
    }

    /// Workflow `id` was inserted (`true`) or deleted (`false`).
    pub fn workflow(&mut self, id: i64, exists: bool) {
        self.exists.insert(id, exists);
    }

    /// Forgets everything read.
    pub fn clear(&mut self) {
        *self = Index::default();
    }
}

/// Whether workflow `id` exists, as kept in `exists` or read (and then kept).
fn still_exists(conn: &Connection, exists: &mut HashMap<i64, bool>, id: i64) -> Result<bool> {
    if let Some(&e) = exists.get(&id) {
        return Ok(e);
    }
    if exists.len() >= IDS_KEPT {
        exists.clear();
    }
    let e: bool = conn
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM workflows WHERE id = ?1)")?
        .query_row([id], |r| r.get(0))?;
    exists.insert(id, e);
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::super::store_with_workflows;
    use super::*;

    /// After each write the walk makes (and mirrors), the kept lists and existence answer what
    /// reading the table afresh answers.
    #[test]
    fn kept_lookups_answer_what_the_table_answers() {
        let store = store_with_workflows(&[1, 2, 3]);
        let conn = store.conn();
        conn.execute_batch(
            "INSERT INTO workflow_index (agent_id, step, workflow_id)
                 VALUES ('a', 'k', 1), ('a', 'k', 2), ('a', 'k', 3), ('a', 'j', 2),
                        ('a', 'j', 9), ('b', 'k', 4);",
        )
        .expect("rows");
        let mut index = Index::default();
        let check = |index: &mut Index| {
            let mut fresh = Index::default();
            for (agent, key) in [("a", "k"), ("a", "j"), ("b", "k"), ("a", "new")] {
                for limit in [1, 2, 16] {
                    assert_eq!(
                        index.latest(conn, agent, key, limit).unwrap(),
                        fresh.latest(conn, agent, key, limit).unwrap(),
                        "{agent} {key} {limit}"
                    );
                    assert_eq!(
                        index.latest_existing(conn, agent, key, limit).unwrap(),
                        fresh.latest_existing(conn, agent, key, limit).unwrap(),
                        "{agent} {key} {limit}, existing"
                    );
                }
            }
        };
        check(&mut index);
        assert_eq!(index.latest_existing(conn, "a", "j", 16).unwrap(), [2], "9 does not exist");
        let insert = "INSERT OR IGNORE INTO workflow_index (agent_id, step, workflow_id)
                      VALUES (?1, ?2, ?3)";
        conn.execute(insert, params!["a", "j", 5]).unwrap();
        index.inserted("a", "j", 5);
        conn.execute(insert, params!["a", "k", 2]).unwrap();
        index.inserted("a", "k", 2);
        conn.execute(insert, params!["a", "new", 7]).unwrap();
        index.inserted("a", "new", 7);
        conn.execute(
            "INSERT INTO workflows (id, agent_id, steps, members, sessions, updated_at)
                      VALUES (5, 'a', '[]', 0, 0, 'T')",
            [],
        )
        .unwrap();
        index.workflow(5, true);
        check(&mut index);
        let repoint = "UPDATE OR IGNORE workflow_index SET workflow_id = ?3
                       WHERE agent_id = ?1 AND step = ?2 AND workflow_id = ?4";
        // Into an id already filed under the key: the row stays; else it moves.
        for (key, from, into) in [("k", 1, 3), ("j", 2, 6), ("k", 8, 1)] {
            conn.execute(repoint, params!["a", key, into, from]).unwrap();
            index.repointed("a", key, from, into);
        }
        conn.execute(
            "DELETE FROM workflow_index WHERE agent_id = 'a' AND step = 'k' AND workflow_id = 3",
            [],
        )
        .unwrap();
        index.deleted("a", "k", 3);
        conn.execute("DELETE FROM workflows WHERE id = 2", []).unwrap();
        index.workflow(2, false);
        check(&mut index);
    }
}
