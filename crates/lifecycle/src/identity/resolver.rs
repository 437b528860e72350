//! The one resolver: a requested selection → exact skill refs, applying workspace-over-account
//! shadowing and refusing to guess between namespaces.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use super::Selection;
use crate::catalog::{Scope, skills};
use crate::store::Store;
use crate::text::slug::slug;

/// An exact skill identity, plus where it lives.
pub use crate::catalog::skills::SkillRef;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Resolution {
    Resolved {
        requested: Selection,
        skill: SkillRef,
        /// Account skills this workspace skill overrides.
        shadows: Vec<SkillRef>,
    },
    Ambiguous {
        requested: Selection,
        candidates: Vec<SkillRef>,
    },
    NotFound {
        requested: Selection,
    },
}

pub fn resolve(store: &Store, agent: &str, sel: &Selection) -> Result<Resolution> {
    if let Some(id) = sel.skill_id {
        let found = skills::ref_by_id(store.conn(), id, agent)?;
        return Ok(match found {
            Some(skill) => {
                let shadows = shadowing(store, skill.skill_id)?.1;
                Resolution::Resolved { requested: sel.clone(), skill, shadows }
            }
            None => Resolution::NotFound { requested: sel.clone() },
        });
    }
    let rows = skills::refs_named(store.conn(), agent, &sel.name, &slug(&sel.name))?;
    // Group by identity minus the id: (namespace, is_public). Workspace wins within a group.
    let mut groups: BTreeMap<(String, bool), Vec<SkillRef>> = BTreeMap::new();
    for row in rows {
        if sel.namespace.as_ref().is_some_and(|ns| *ns != row.namespace)
            || sel.is_public.is_some_and(|p| p != row.is_public)
        {
            continue;
        }
        groups.entry((row.namespace.clone(), row.is_public)).or_default().push(row);
    }
    let mut winners: Vec<(SkillRef, Vec<SkillRef>)> = groups
        .into_values()
        .map(|mut group| {
            group.sort_by_key(|r| if r.scope == Scope::Workspace { 0 } else { 1 });
            let winner = group.remove(0);
            (winner, group)
        })
        .collect();
    Ok(match winners.len() {
        0 => Resolution::NotFound { requested: sel.clone() },
        1 => {
            let (skill, shadows) = winners.remove(0);
            Resolution::Resolved { requested: sel.clone(), skill, shadows }
        }
        _ => Resolution::Ambiguous {
            requested: sel.clone(),
            candidates: winners.into_iter().map(|(w, _)| w).collect(),
        },
    })
}

/// Resolves `text` to exactly one skill, or fails with a message listing the candidates.
pub fn resolve_one(store: &Store, agent: &str, text: &str) -> Result<SkillRef> {
    let sel = Selection::parse(text)?;
    match resolve(store, agent, &sel)? {
        Resolution::Resolved { skill, .. } => Ok(skill),
        Resolution::Ambiguous { candidates, .. } => {
            let list: Vec<String> = candidates.iter().map(ToString::to_string).collect();
            bail!(
                "skill {text:?} is ambiguous for agent {agent}: it exists in several namespaces ({}); name one, e.g. NAMESPACE/NAME",
                list.join("; ")
            )
        }
        Resolution::NotFound { .. } => bail!("no skill {text:?} for agent {agent}"),
    }
}

/// For a skill: the workspace skill that shadows it (if any) and the account skills it shadows.
pub fn shadowing(store: &Store, skill_id: i64) -> Result<(Option<SkillRef>, Vec<SkillRef>)> {
    let others = skills::same_identity_other_scope(store.conn(), skill_id)?;
    let mut shadowed_by = None;
    let mut shadows = Vec::new();
    for other in others {
        if other.scope == Scope::Workspace {
            shadowed_by = Some(other);
        } else {
            shadows.push(other);
        }
    }
    Ok((shadowed_by, shadows))
}
