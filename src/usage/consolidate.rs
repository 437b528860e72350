//! Live skills of one agent that overlap strongly (`overlap::measure`), the first half of
//! consolidation: what would be proposed as a merge.

use anyhow::Result;
use serde::Serialize;

use super::overlap::{self, Overlap};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    pub agent: String,
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub overlap: Overlap,
}

/// Every pair of live skills of the same agent whose workflows or descriptions overlap strongly.
pub fn overlapping(ws: &Workspace) -> Result<Vec<Pair>> {
    let conn = ws.store.conn();
    let mut skills = Vec::new();
    for row in crate::catalog::skills::all(conn)? {
        if !row.status.is_live() {
            continue;
        }
        let r = crate::catalog::skills::uptake_ref(conn, row.id)?;
        let (steps, _) = super::missed::workflow_of(conn, &r)?;
        skills.push((r, steps));
    }
    let mut out = Vec::new();
    for (i, (a, sa)) in skills.iter().enumerate() {
        for (b, sb) in &skills[i + 1..] {
            if a.agent != b.agent {
                continue;
            }
            let o = overlap::measure(sa, sb, &a.description, &b.description);
            if o.strong.is_some() {
                out.push(Pair {
                    agent: a.agent.clone(),
                    a: a.name.clone(),
                    b: b.name.clone(),
                    overlap: o,
                });
            }
        }
    }
    Ok(out)
}
