//! The implicit signal: after a skill invocation, the agent retries the same task
//! signature with different tools in the same session → the invocation failed.
//!
//! For each successful invocation tied to a turn with a non-empty signature, the first later turn
//! of the same session with that signature, which does not invoke the same skill and whose set
//! of tool names differs, is the retry. The pass adds one `implicit` failure (at the retry turn's
//! time, `call_id` `implicit:<invocation id>` so reruns add nothing) and marks the original
//! success `superseded`, so the use counts once, as a failure.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::Connection;

use crate::catalog::InvocationSource;
use crate::catalog::invocations::{self, NewInvocation};
use crate::ingest;
use crate::model::Outcome;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// The pairs are found by reads outside any write transaction; the write lock is held only for
/// the inserts (idempotent: a pair another process recorded meanwhile adds nothing).
pub fn implicit_failures(ws: &mut Workspace) -> Result<usize> {
    let conn = ws.store.conn();
    let mut retries = Vec::new();
    for p in retry_pairs(conn)? {
        if ingest::tool_set(conn, p.turn_id)? != ingest::tool_set(conn, p.retry_turn_id)? {
            retries.push(p);
        }
    }
    if retries.is_empty() {
        return Ok(0);
    }
    let tx = ws.store.conn_mut().transaction()?;
    let mut added = 0;
    for p in retries {
        let note = format!("retried in turn {} with different tools", p.retry_turn_id);
        let call_id = format!("implicit:{}", p.invocation_id);
        let at = p.retry_at.clone().unwrap_or_else(now_rfc3339);
        let n = invocations::insert(
            &tx,
            &NewInvocation {
                agent: &p.agent_id,
                skill_name: &p.skill_name,
                skill_id: p.skill_id,
                outcome: Outcome::Failure,
                source: InvocationSource::Implicit,
                session_key: p.session_key.as_deref(),
                turn_id: Some(p.retry_turn_id),
                call_id: Some(&call_id),
                note: Some(&note),
                at: &at,
            },
        )?;
        invocations::supersede(&tx, p.invocation_id)?;
        added += n;
    }
    tx.commit()?;
    Ok(added)
}

/// A successful invocation tied to a turn, and the later turn of the same session that retried
/// the same task signature without invoking the same skill.
pub struct RetryPair {
    pub invocation_id: i64,
    pub agent_id: String,
    pub skill_name: String,
    pub skill_id: Option<i64>,
    pub session_key: Option<String>,
    pub turn_id: i64,
    pub retry_turn_id: i64,
    pub retry_at: Option<String>,
}

/// Every retry pair not yet turned into an implicit failure: for each successful use tied to a
/// turn with a signature, the first later turn of its session with that signature that does not
/// use the same skill. Linear in the turns: each (session, signature, skill) run of turns is
/// walked once, backwards, instead of one scan of the later turns per use.
fn retry_pairs(conn: &Connection) -> Result<Vec<RetryPair>> {
    /// A session and a task signature.
    type Group = (i64, String);
    let uses = invocations::successful_turn_uses(conn)?;
    if uses.is_empty() {
        return Ok(Vec::new());
    }
    let used = invocations::skills_by_turn(conn)?;
    // Turns with a signature, grouped by (session, signature) in id order.
    let mut groups: HashMap<Group, Vec<(i64, Option<String>)>> = HashMap::new();
    for t in ingest::signed_turns(conn)? {
        groups.entry((t.session_id, t.signature)).or_default().push((t.id, t.at));
    }
    let mut place: HashMap<i64, (Group, usize)> = HashMap::new();
    for (key, turns) in &groups {
        for (i, (id, _)) in turns.iter().enumerate() {
            place.insert(*id, (key.clone(), i));
        }
    }
    // For a group and a skill: at each position, the next position whose turn does not use it.
    let mut next_without: HashMap<(Group, String), Vec<Option<usize>>> = HashMap::new();
    let mut pairs = Vec::new();
    for u in uses {
        let Some((key, at)) = place.get(&u.turn_id) else { continue };
        let turns = &groups[key];
        let next = next_without.entry((key.clone(), u.skill_name.clone())).or_insert_with(|| {
            let mut out = vec![None; turns.len()];
            let mut next = None;
            for i in (0..turns.len()).rev() {
                out[i] = next;
                if !used.get(&turns[i].0).is_some_and(|s| s.contains(&u.skill_name)) {
                    next = Some(i);
                }
            }
            out
        });
        let Some(retry) = next[*at] else { continue };
        let (retry_turn_id, retry_at) = turns[retry].clone();
        pairs.push(RetryPair {
            invocation_id: u.id,
            agent_id: u.agent_id,
            skill_name: u.skill_name,
            skill_id: u.skill_id,
            session_key: u.session_key,
            turn_id: u.turn_id,
            retry_turn_id,
            retry_at,
        });
    }
    pairs.sort_by_key(|p| p.invocation_id);
    Ok(pairs)
}
