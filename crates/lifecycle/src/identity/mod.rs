//! Skill identity and scopes.
//!
//! A skill's identity is `(skill_id, namespace, is_public)`. Skills live in two scopes: the
//! account folder (the live `skills_dir`) and the workspace folder (`workspace_skills_dir`); a
//! workspace skill shadows an account skill with the same name, namespace and visibility.
//! [`resolve`] is the one place that turns a requested selection into exact refs; a name found in
//! several namespaces is ambiguous and reported with its candidates, never guessed.

mod resolver;
mod selections;

pub use resolver::{Resolution, SkillRef, resolve, resolve_one, shadowing};
pub use selections::{load_selection, save_selection};

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::store::Store;
use crate::workspace::Workspace;

pub use crate::catalog::Scope;
use crate::catalog::skills;
use crate::lifecycle;
pub use crate::workspace::workspace_skills_dir;

/// What a person asked for, as typed: `NAME`, `NAMESPACE/NAME`, `public:NAMESPACE/NAME`,
/// `private:NAME`, or `#ID` (an exact skill id, which is runtime state and never saved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selection {
    pub requested: String,
    pub name: String,
    pub namespace: Option<String>,
    pub is_public: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<i64>,
}

impl Selection {
    pub fn parse(text: &str) -> Result<Selection> {
        let requested = text.to_string();
        let text = text.trim();
        if let Some(id) = text.strip_prefix('#') {
            let skill_id =
                id.parse().with_context(|| format!("{requested:?}: #ID needs a number"))?;
            return Ok(Selection {
                requested,
                name: String::new(),
                namespace: None,
                is_public: None,
                skill_id: Some(skill_id),
            });
        }
        let (is_public, rest) = if let Some(rest) = text.strip_prefix("public:") {
            (Some(true), rest)
        } else if let Some(rest) = text.strip_prefix("private:") {
            (Some(false), rest)
        } else {
            (None, text)
        };
        let (namespace, name) = match rest.rsplit_once('/') {
            Some((ns, name)) => (Some(ns.to_string()), name),
            None => (None, rest),
        };
        if name.trim().is_empty() || namespace.as_deref().is_some_and(|ns| ns.trim().is_empty()) {
            bail!("{requested:?} is not NAME, NAMESPACE/NAME, public:NAMESPACE/NAME or #ID");
        }
        Ok(Selection { requested, name: name.to_string(), namespace, is_public, skill_id: None })
    }
}

/// The folder skills of `scope` are written to.
pub fn scope_dir(ws: &Workspace, scope: Scope) -> Result<PathBuf> {
    match scope {
        Scope::Account => Ok(ws.paths.skills_dir.clone()),
        Scope::Workspace => workspace_skills_dir(&ws.config).context(
            "no workspace skills folder: set workspace_skills_dir in the config, or create ./.claude/skills",
        ),
    }
}

/// Registers skill folders found in either scope's folder that the database does not know yet
/// (namespace `default`, private), with their SKILL.md as version 1 (source `adopt`), so
/// hand-made skills take part in resolution, shadowing, scoring and edit tracking.
pub fn register_folders(ws: &mut Workspace, agent: &str) -> Result<usize> {
    lifecycle::adopt_folders(ws, agent, Scope::ALL, true)
}

/// Resolves `text` to one skill the way every command does: folders in both scopes are
/// registered first, so a hand-made workspace skill shadows an imported account one here too.
pub fn resolve_for_command(ws: &mut Workspace, agent: &str, text: &str) -> Result<SkillRef> {
    register_folders(ws, agent)?;
    resolve_one(&ws.store, agent, text)
}

/// Looks a skill's agent up, for commands handed a bare id.
pub fn skill_agent(store: &Store, skill_id: i64) -> Result<String> {
    skills::agent_of(store.conn(), skill_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_forms() {
        let s = Selection::parse("public:team/lint").unwrap();
        assert_eq!(
            (s.namespace.as_deref(), s.name.as_str(), s.is_public),
            (Some("team"), "lint", Some(true))
        );
        let s = Selection::parse("lint").unwrap();
        assert_eq!((s.namespace, s.is_public), (None, None));
        assert_eq!(Selection::parse("#7").unwrap().skill_id, Some(7));
        assert!(Selection::parse("team/").is_err());
        assert!(Selection::parse("#x").is_err());
    }
}
