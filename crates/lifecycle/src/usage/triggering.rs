//! "Not triggering" as a skill event: each sweep judges every live skill's uptake
//! (`missed::uptake`) and records a `not_triggering` event when a skill starts missing (with the
//! counts, its description and a request that should have triggered it) and a `triggering` event
//! when it stops (used again, or its misses no longer outnumber its uses two to one). Once per
//! transition: the newest of the two events is the skill's standing.

use anyhow::Result;

use super::missed::{self, DraftedSteps};
use crate::catalog::events::{self, EventKind};
use crate::catalog::skills;
use crate::lifecycle::TriggerChange;
use crate::store::now_rfc3339;
use crate::text::safe;
use crate::workspace::Workspace;

/// Judges every live skill's uptake and records the transitions. `flagged_only`: judge only the
/// skills standing as not triggering (when only invocations were added: a use can end a skill's
/// not triggering, never start it).
pub fn record_transitions(
    ws: &Workspace,
    flagged_only: bool,
    drafted: impl DraftedSteps,
) -> Result<Vec<TriggerChange>> {
    let conn = ws.store.conn();
    let mut out = Vec::new();
    let standing = events::not_triggering(conn)?;
    for row in skills::all(conn)? {
        if !row.status.is_live() || super::is_own_playbook(ws, &row.name) {
            continue;
        }
        let was = standing.contains(&row.id);
        if flagged_only && !was {
            continue;
        }
        let r = skills::uptake_ref(conn, row.id)?;
        // A skill with no specific steps to repeat cannot miss a trigger: no uptake to read.
        if !was && super::steps::specific(&missed::workflow_of(conn, &r, drafted)?.0).is_empty() {
            continue;
        }
        let u = missed::uptake(conn, &r, drafted)?;
        if u.not_triggering == was {
            continue;
        }
        let reason = if u.not_triggering {
            let example = u
                .missed
                .first()
                .map(|m| {
                    format!(
                        "; e.g. session {}: “{}”",
                        safe::inline(&m.session_key),
                        safe::inline(&clip(&m.request, 120))
                    )
                })
                .unwrap_or_default();
            format!(
                "{} missed triggers vs {} uses since {}: its workflow recurs without the skill, \
                 so its description (“{}”) is not making the agent pick it{example}",
                u.missed.len(),
                u.uses,
                u.since,
                safe::inline(&clip(&u.description, 200)),
            )
        } else {
            format!("triggering again: {} uses vs {} missed triggers", u.uses, u.missed.len())
        };
        let kind = if u.not_triggering { EventKind::NotTriggering } else { EventKind::Triggering };
        events::add(conn, row.id, &now_rfc3339(), kind, None, None, &reason)?;
        out.push(TriggerChange {
            agent: row.agent_id.clone(),
            name: row.name.clone(),
            not_triggering: u.not_triggering,
            reason,
        });
    }
    Ok(out)
}

fn clip(text: &str, max: usize) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}
