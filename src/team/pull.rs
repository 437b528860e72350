//! Team skills on a member's machine: `team pull` writes each team skill into the member's
//! skills folder with a marker naming its team and version, and registers it in the catalog in
//! the team's namespace. A folder of the same name without the marker is the member's private
//! skill: it is never overwritten, and since resolution puts the default (private) namespace
//! first, the private skill wins for its owner. A team skill edited here since its last pull is
//! kept as edited until the member removes the edit.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::shared::TeamSkill;
use crate::catalog::{Scope, VersionSource};
use crate::lifecycle::register::{NewSkill, insert_in};
use crate::text::hex::sha256_hex;
use crate::workspace::Workspace;

/// The marker file in a pulled team skill's folder.
pub const MARKER: &str = ".skilldeck-team.json";

/// What the marker records: the skill's exact identity and the bytes last pulled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub team: String,
    pub name: String,
    pub version: i32,
    pub sha256: String,
}

pub fn read_marker(folder: &Path) -> Option<Marker> {
    let text = std::fs::read_to_string(folder.join(MARKER)).ok()?;
    serde_json::from_str(&text).ok()
}

/// The names of `team`'s skills pulled into `skills_dir`.
pub fn team_skill_names(skills_dir: &Path, team: &str) -> HashSet<String> {
    let Ok(entries) = std::fs::read_dir(skills_dir) else { return HashSet::new() };
    entries
        .flatten()
        .filter_map(|e| read_marker(&e.path()))
        .filter(|m| m.team == team)
        .map(|m| m.name)
        .collect()
}

/// What pulling did to one team skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pulled {
    Added,
    Updated,
    Unchanged,
    /// A private skill of the same name is in the folder: it wins, the team's is not written.
    PrivateWins,
    /// Edited here since the last pull: kept.
    EditedHere,
}

#[derive(Debug, Clone, Serialize)]
pub struct PullLine {
    pub name: String,
    pub version: i32,
    pub status: String,
    pub pulled: Pulled,
    pub path: PathBuf,
}

/// Writes one team skill into `skills_dir` (see the module's rules).
fn write_one(skills_dir: &Path, team: &str, skill: &TeamSkill) -> Result<(Pulled, PathBuf)> {
    let folder = crate::fsio::child(skills_dir, "team skill", &skill.name)?;
    let file = crate::lifecycle::files::skill_file(&folder);
    let sha = sha256_hex(skill.skill_md.as_bytes());
    let marker = Marker {
        team: team.into(),
        name: skill.name.clone(),
        version: skill.version,
        sha256: sha.clone(),
    };
    let pulled = if folder.exists() {
        let Some(old) = read_marker(&folder).filter(|m| m.team == team) else {
            return Ok((Pulled::PrivateWins, folder));
        };
        let here = std::fs::read(&file).map(|b| sha256_hex(&b)).unwrap_or_default();
        if here == sha {
            if old == marker {
                return Ok((Pulled::Unchanged, folder));
            }
            Pulled::Updated
        } else if here != old.sha256 {
            return Ok((Pulled::EditedHere, folder));
        } else {
            Pulled::Updated
        }
    } else {
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("creating {}", folder.display()))?;
        Pulled::Added
    };
    crate::fsio::atomic_write(&file, skill.skill_md.as_bytes())?;
    crate::fsio::atomic_write(
        &folder.join(MARKER),
        serde_json::to_string_pretty(&marker)?.as_bytes(),
    )?;
    Ok((pulled, folder))
}

/// Writes the team's skills into the member's skills folder (and the team's own folder, when
/// configured) and registers the new ones in the team's namespace.
pub fn pull(ws: &mut Workspace, team: &str, skills: &[TeamSkill]) -> Result<Vec<PullLine>> {
    let skills_dir = ws.paths.skills_dir.clone();
    std::fs::create_dir_all(&skills_dir)?;
    let agent = ws.config.agent_id.clone();
    let mut lines = Vec::new();
    for skill in skills {
        if let Some(dir) = ws.config.team.skills_dir.clone() {
            write_team_folder(&dir, skill)?;
        }
        let (pulled, folder) = write_one(&skills_dir, team, skill)?;
        if pulled == Pulled::Added {
            let tx = ws.store.conn_mut().transaction()?;
            let path = folder.to_string_lossy().into_owned();
            if !crate::catalog::skills::knows_folder(
                &tx,
                &agent,
                &skill.name,
                Scope::Account,
                &path,
            )? {
                let new = NewSkill {
                    agent: &agent,
                    name: &skill.name,
                    folder: &folder,
                    content: &skill.skill_md,
                    source: VersionSource::Import,
                    namespace: team,
                    ..NewSkill::account()
                };
                insert_in(
                    &tx,
                    &new,
                    "pulled",
                    &format!("pulled from team {team}, promoted by {}", skill.promoted_by),
                )?;
            }
            tx.commit()?;
        }
        lines.push(PullLine {
            name: skill.name.clone(),
            version: skill.version,
            status: skill.status.clone(),
            pulled,
            path: folder,
        });
    }
    Ok(lines)
}

/// Writes a team skill into the team's own skills folder (a repository's `.claude/skills`).
pub fn write_team_folder(dir: &Path, skill: &TeamSkill) -> Result<PathBuf> {
    let folder = crate::fsio::child(dir, "team skill", &skill.name)?;
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    crate::fsio::atomic_write(
        &crate::lifecycle::files::skill_file(&folder),
        skill.skill_md.as_bytes(),
    )?;
    Ok(folder)
}
