//! Live skills of one agent that overlap strongly (`overlap::measure`), the first half of
//! consolidation: what would be proposed as a merge.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Result;
use serde::Serialize;

use super::missed::DraftedSteps;
use super::overlap::{self, Overlap};
use crate::catalog;
use crate::catalog::skills;
use crate::workspace::Workspace;

/// Skills sharing one step or word beyond which it no longer pairs them by itself.
pub const MAX_SHARED: usize = 50;

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

/// Every pair of skills of the same agent whose workflows or descriptions overlap strongly, at
/// least one of them live: an archived skill takes part (a merge folds it into a live one, so
/// what it knew is not lost). A skill a merge absorbed is left out, even once restored: it was
/// consolidated already.
pub fn overlapping(ws: &Workspace, drafted: impl DraftedSteps) -> Result<Vec<Pair>> {
    let conn = ws.store.conn();
    let absorbed = skills::absorbed(conn)?;
    let mut skills = Vec::new();
    let mut live = HashSet::new();
    for row in skills::all(conn)? {
        let archived = row.status == catalog::SkillStatus::Archived;
        if !(row.status.is_live() || archived)
            || absorbed.contains(&row.id)
            || super::is_own_playbook(ws, &row.name)
        {
            continue;
        }
        if row.status.is_live() {
            live.insert(row.id);
        }
        let r = skills::uptake_ref(conn, row.id)?;
        let (steps, _) = super::missed::workflow_of(conn, &r, drafted)?;
        skills.push((r, steps));
    }
    // Only skills that share a specific step or a description word can overlap strongly: pair
    // those through an index instead of every pair (quadratic at thousands of skills). A step or
    // word more than `MAX_SHARED` skills have says nothing of a pair and pairs nobody by itself.
    let mut index: HashMap<(&str, String), Vec<usize>> = HashMap::new();
    for (i, (r, steps)) in skills.iter().enumerate() {
        let keys = super::steps::specific(steps).into_iter().map(|k| format!("step {k}")).chain(
            super::overlap::content_words(&r.description).into_iter().map(|w| format!("word {w}")),
        );
        for key in keys.collect::<HashSet<_>>() {
            index.entry((r.agent.as_str(), key)).or_default().push(i);
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    for members in index.values().filter(|m| m.len() <= MAX_SHARED) {
        for (n, &i) in members.iter().enumerate() {
            pairs.extend(members[n + 1..].iter().map(|&j| (i.min(j), i.max(j))));
        }
    }
    let mut out = Vec::new();
    for (i, j) in pairs {
        let ((a, sa), (b, sb)) = (&skills[i], &skills[j]);
        if !live.contains(&a.id) && !live.contains(&b.id) {
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
    Ok(out)
}
