//! The one resolver: a requested selection → exact skill refs, applying workspace-over-account
//! shadowing and refusing to guess between namespaces.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use super::Selection;
use crate::packages::slug;
use crate::store::{
    Store,
    rusqlite::{Row, params},
};

/// An exact skill identity, plus where it lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRef {
    pub skill_id: i64,
    pub namespace: String,
    pub is_public: bool,
    pub name: String,
    pub scope: String,
    pub path: String,
    pub status: String,
}

impl std::fmt::Display for SkillRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let vis = if self.is_public { "public:" } else { "" };
        write!(
            f,
            "{vis}{}/{} (#{}, {} scope)",
            self.namespace, self.name, self.skill_id, self.scope
        )
    }
}

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

const COLUMNS: &str = "id, namespace, is_public, name, scope, path, status";

fn skill_ref(r: &Row) -> crate::store::rusqlite::Result<SkillRef> {
    Ok(SkillRef {
        skill_id: r.get(0)?,
        namespace: r.get(1)?,
        is_public: r.get::<_, i64>(2)? != 0,
        name: r.get(3)?,
        scope: r.get(4)?,
        path: r.get(5)?,
        status: r.get(6)?,
    })
}

/// Resolves one selection for `agent` against the skills visible now (retired and archived
/// skills are not visible).
pub fn resolve(store: &Store, agent: &str, sel: &Selection) -> Result<Resolution> {
    if let Some(id) = sel.skill_id {
        let sql = format!("SELECT {COLUMNS} FROM skills WHERE id = ?1 AND agent_id = ?2");
        let mut stmt = store.conn().prepare(&sql)?;
        let found = stmt.query_map(params![id, agent], skill_ref)?.next().transpose()?;
        return Ok(match found {
            Some(skill) => {
                let shadows = shadowing(store, skill.skill_id)?.1;
                Resolution::Resolved { requested: sel.clone(), skill, shadows }
            }
            None => Resolution::NotFound { requested: sel.clone() },
        });
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM skills
         WHERE agent_id = ?1 AND status NOT IN ('retired', 'archived')
           AND (name = ?2 OR name = ?3 OR lower(display_name) = lower(?2))
         ORDER BY namespace, is_public, scope"
    );
    let mut stmt = store.conn().prepare(&sql)?;
    let rows = stmt.query_map(params![agent, sel.name, slug(&sel.name)], skill_ref)?;
    // Group by identity minus the id: (namespace, is_public). Workspace wins within a group.
    let mut groups: BTreeMap<(String, bool), Vec<SkillRef>> = BTreeMap::new();
    for row in rows {
        let row = row?;
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
            group.sort_by_key(|r| if r.scope == "workspace" { 0 } else { 1 });
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
    let sql = format!(
        "SELECT o.{} FROM skills s JOIN skills o
           ON o.agent_id = s.agent_id AND o.name = s.name AND o.namespace = s.namespace
          AND o.is_public = s.is_public AND o.id != s.id
          AND o.status NOT IN ('retired', 'archived')
         WHERE s.id = ?1 AND s.scope != o.scope",
        COLUMNS.replace(", ", ", o.")
    );
    let mut stmt = store.conn().prepare(&sql)?;
    let others: Vec<SkillRef> = stmt.query_map([skill_id], skill_ref)?.collect::<Result<_, _>>()?;
    let mut shadowed_by = None;
    let mut shadows = Vec::new();
    for other in others {
        if other.scope == "workspace" {
            shadowed_by = Some(other);
        } else {
            shadows.push(other);
        }
    }
    Ok((shadowed_by, shadows))
}
