//! The implicit signal: after a skill invocation, the agent retries the same task
//! signature with different tools in the same session → the invocation failed.
//!
//! For each successful invocation tied to a turn with a non-empty signature, the first later turn
//! of the same session with that signature, which does not invoke the same skill and whose set
//! of tool names differs, is the retry. The pass adds one `implicit` failure (at the retry turn's
//! time, `call_id` `implicit:<invocation id>` so reruns add nothing) and marks the original
//! success `superseded`, so the use counts once, as a failure.

use anyhow::Result;

use crate::catalog::InvocationSource;
use crate::catalog::invocations::{self, NewInvocation};
use crate::model::Outcome;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// The pairs are found by reads outside any write transaction; the write lock is held only for
/// the inserts (idempotent: a pair another process recorded meanwhile adds nothing).
pub fn implicit_failures(ws: &mut Workspace) -> Result<usize> {
    let conn = ws.store.conn();
    let mut retries = Vec::new();
    for p in invocations::retry_pairs(conn)? {
        if crate::ingest::tool_set(conn, p.turn_id)?
            != crate::ingest::tool_set(conn, p.retry_turn_id)?
        {
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
