//! `skilldeck team detect`: mine every member's pooled evidence for team candidates.

use anyhow::Result;

use super::{Outcome, print_json, skipped};
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let r = team::detect(ws, t)?;
    if json {
        return print_json(&r).map(|()| Outcome::Ok);
    }
    crate::out!(
        "team detection over {} pooled turns in {} ms: {} candidates, {} kept as evidence \
         only",
        r.turns,
        r.elapsed_ms,
        r.candidates.len(),
        r.evidence_only
    );
    for c in &r.candidates {
        crate::out!(
            "  #{} {}: {} ({} members)",
            c.id,
            inline(&c.name),
            inline(&c.summary),
            c.members
        );
    }
    skipped(&r.skipped);
    Ok(Outcome::Ok)
}
