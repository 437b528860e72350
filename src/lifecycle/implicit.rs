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

pub fn implicit_failures(ws: &mut Workspace) -> Result<usize> {
    let tx = ws.store.conn_mut().transaction()?;
    let pairs = invocations::retry_pairs(&tx)?;
    let mut added = 0;
    for p in pairs {
        if crate::ingest::tool_set(&tx, p.turn_id)?
            == crate::ingest::tool_set(&tx, p.retry_turn_id)?
        {
            continue;
        }
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
