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
    pub a_id: i64,
    pub b_id: i64,
    #[serde(flatten)]
    pub overlap: Overlap,
}

/// Every pair of live skills of the same agent whose workflows or descriptions overlap strongly.
/// A skill a merge absorbed is left out, even once restored: it was consolidated already.
pub fn overlapping(ws: &Workspace) -> Result<Vec<Pair>> {
    let conn = ws.store.conn();
    let absorbed = crate::catalog::skills::absorbed(conn)?;
    let mut skills = Vec::new();
    for row in crate::catalog::skills::all(conn)? {
        if !row.status.is_live() || absorbed.contains(&row.id) {
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
                    a_id: a.id,
                    b_id: b.id,
                    overlap: o,
                });
            }
        }
    }
    Ok(out)
}
