//! Team skills on a member's machine. The server is untrusted input: `team pull` writes a team
//! skill live only when the team recorded a promotion of it and its text is, byte for byte, the
//! text that promotion reviewed (its SHA-256 is in the decision). Anything else, and any change,
//! goes to the member's own queue of proposals (`team::proposals`), never live. Every row first
//! passes the gates a local draft passes (a safe name, the 1 MiB cap, no control, bidirectional
//! or invisible characters, no injection flags, no secret, the Agent Skills spec); a row that
//! fails one is skipped and named, and the rest proceed. Reviewed text that runs a dangerous
//! command is proposed, not written live, until the member accepts it with `--yes`.
//!
//! A live team skill's folder holds a marker naming its team and the hashes written; it goes in
//! as one journaled step (staged, renamed into place, registered in the catalog in the team's
//! namespace), so a crash leaves either the old folder or the new one. A folder without the
//! marker (the member's or the repository's own) is never overwritten; a team skill edited here
//! since its last pull is kept as edited. The team's retire and archive decisions take it out of
//! the live folder.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::gate::gate_text;
use super::items::Skipped;
use super::proposals;
use super::shared::TeamSkill;
use crate::catalog::EventKind;
use crate::catalog::skills;
use crate::catalog::{Scope, SkillStatus, VersionSource};
use crate::draft::live;
use crate::fsio;
use crate::journal;
use crate::lifecycle::files;
use crate::lifecycle::register::{NewSkill, insert_in};
use crate::store;
use crate::text::hex::sha256_hex;
use crate::workspace::Workspace;

/// The marker file in a pulled team skill's folder.
pub const MARKER: &str = ".skilldeck-team.json";

/// What the marker records: the skill's exact identity, the hash of the SKILL.md written here
/// (an edit changes it) and of the server text it came from (the reviewed hash).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    pub team: String,
    pub name: String,
    pub version: i32,
    pub sha256: String,
    #[serde(default)]
    pub source_sha256: String,
}

pub fn read_marker(folder: &Path) -> Option<Marker> {
    let bytes = fsio::read_capped(&folder.join(MARKER), 64 * 1024).ok()?;
    serde_json::from_slice(&bytes).ok()
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
    /// A folder of this name without the team's marker is there: it wins, nothing is written.
    PrivateWins,
    /// Edited here since the last pull: kept.
    EditedHere,
    /// Not reviewed by the team as it stands: in this member's proposals, not live.
    Proposed,
    /// The team retired or archived it: not live here.
    Retired,
}

#[derive(Debug, Clone, Serialize)]
pub struct PullLine {
    pub name: String,
    pub version: i32,
    pub status: SkillStatus,
    pub pinned: bool,
    pub pulled: Pulled,
    /// Why, for a proposal or a retired skill.
    pub reason: Option<String>,
    pub path: Option<PathBuf>,
    /// What was done in the team's own skills folder (`[team] skills_dir`), when configured.
    pub team_folder: Option<Pulled>,
}

/// What a pull did: each usable team skill, and each row skipped with its reason.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PullReport {
    pub skills: Vec<PullLine>,
    pub skipped: Vec<Skipped>,
    /// Proposals this pull added to the member's queue (not those already waiting).
    pub new_proposals: usize,
}

/// The Agent Skills name rule (lowercase letters, digits and single hyphens, at most 64).
fn spec_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The gates a team row passes before anything is written: its text, or why it is skipped.
pub fn gate(skill: &TeamSkill) -> std::result::Result<String, String> {
    if skill.name_bytes > 255 {
        return Err(format!("name: {} bytes, longer than a folder name", skill.name_bytes));
    }
    if !spec_name(&skill.name) {
        return Err("name: not a skill name (lowercase letters, digits and single hyphens, \
                    at most 64, one plain folder name)"
            .into());
    }
    let Some(text) = &skill.skill_md else {
        return Err(format!(
            "skill_md: {} bytes, over the {} byte cap",
            skill.text_bytes,
            fsio::SKILL_MD_CAP
        ));
    };
    gate_text(&skill.name, text)
}

/// Whether the team reviewed this text: the latest promotion recorded its hash.
fn reviewed(skill: &TeamSkill, sha: &str) -> std::result::Result<(), String> {
    match &skill.reviewed_sha256 {
        None => Err("no team decision promoted it".into()),
        Some(h) if h != sha => {
            Err("its text is not the text the team reviewed (changed after the promotion)".into())
        }
        Some(_) => Ok(()),
    }
}

/// Brings the team's skills into the member's skills folder (and the team's own folder when
/// configured): see the module's rules.
pub fn pull(ws: &mut Workspace, team: &str, skills: &[TeamSkill]) -> Result<PullReport> {
    let skills_dir = ws.paths.skills_dir.clone();
    std::fs::create_dir_all(&skills_dir)?;
    let mut report = PullReport::default();
    for skill in skills {
        let text = match gate(skill) {
            Ok(text) => text,
            Err(reason) => {
                report.skipped.push(Skipped::new("team_skills", &skill.name, "row", &reason));
                continue;
            }
        };
        let sha = sha256_hex(text.as_bytes());
        let retired = skill
            .decided_status
            .is_some_and(|s| matches!(s, SkillStatus::Retired | SkillStatus::Archived));
        let line = |pulled, reason: Option<String>, path| PullLine {
            name: skill.name.clone(),
            version: skill.version,
            status: skill.decided_status.unwrap_or(SkillStatus::Healthy),
            pinned: skill.decided_pin.unwrap_or(false),
            pulled,
            reason,
            path,
            team_folder: None,
        };
        if retired {
            let path = retire(ws, team, &skill.name)?;
            report.skills.push(line(
                Pulled::Retired,
                skill.decided_status.map(|s| s.to_string()),
                path,
            ));
            continue;
        }
        let folder = fsio::child(&skills_dir, "team skill", &skill.name)?;
        // Reviewed text that runs a dangerous command still waits for this member's yes.
        let unconfirmed = || {
            let found = super::gate::dangers(&text);
            (!found.is_empty()).then(|| {
                format!(
                    "runs a dangerous command ({}): read it, then `skilldeck team accept {} --yes`",
                    found.join("; "),
                    skill.name
                )
            })
        };
        if let Some(reason) = reviewed(skill, &sha).err().or_else(unconfirmed) {
            let accepted =
                read_marker(&folder).is_some_and(|m| m.team == team && m.source_sha256 == sha);
            if accepted {
                report.skills.push(line(Pulled::Unchanged, None, Some(folder)));
            } else {
                if proposals::propose(ws, team, skill, &text, &sha, &reason)? {
                    report.new_proposals += 1;
                }
                report.skills.push(line(Pulled::Proposed, Some(reason), None));
            }
            continue;
        }
        let team_folder = match ws.config.team.skills_dir.clone() {
            Some(dir) => Some(place(None, &dir, team, skill, &text, &sha)?),
            None => None,
        };
        let pulled = place(Some(ws), &skills_dir, team, skill, &text, &sha)?;
        report.skills.push(PullLine { team_folder, ..line(pulled, None, Some(folder)) });
    }
    Ok(report)
}

/// Writes reviewed team text `text` (hash `sha`) into `dir` as one journaled step, registering
/// it in the catalog when `ws` is the member's workspace. Never over a folder without the
/// team's marker, nor over an edit made here.
pub fn place(
    ws: Option<&mut Workspace>,
    dir: &Path,
    team: &str,
    skill: &TeamSkill,
    text: &str,
    sha: &str,
) -> Result<Pulled> {
    let folder = fsio::child(dir, "team skill", &skill.name)?;
    let file = files::skill_file(&folder);
    let live = live::live_text(text, &skill.name);
    let marker = Marker {
        team: team.into(),
        name: skill.name.clone(),
        version: skill.version,
        sha256: sha256_hex(live.as_bytes()),
        source_sha256: sha.to_string(),
    };
    let pulled = if folder.exists() {
        let Some(old) = read_marker(&folder).filter(|m| m.team == team) else {
            return Ok(Pulled::PrivateWins);
        };
        let here = fsio::read_skill_md(&file).map(|b| sha256_hex(&b)).unwrap_or_default();
        if here != old.sha256 {
            return Ok(Pulled::EditedHere);
        }
        if old == marker {
            return Ok(Pulled::Unchanged);
        }
        Pulled::Updated
    } else {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        Pulled::Added
    };
    let files = vec![
        ("SKILL.md".to_string(), live.clone()),
        (MARKER.to_string(), serde_json::to_string_pretty(&marker)?),
    ];
    let staged = fsio::stage(&folder, &files)?;
    let Some(ws) = ws else {
        let mut scratch = store::Store::open_in_memory()?;
        journal::install(scratch.conn_mut(), &staged, &folder, |_| Ok(()))?;
        return Ok(pulled);
    };
    let agent = ws.config.agent_id.clone();
    let path = folder.to_string_lossy().into_owned();
    journal::install(ws.store.conn_mut(), &staged, &folder, |tx| {
        if skills::knows_folder(tx, &agent, &skill.name, Scope::Account, &path)? {
            return Ok(());
        }
        let new = NewSkill {
            agent: &agent,
            name: &skill.name,
            folder: &folder,
            content: &live,
            source: VersionSource::Import,
            namespace: team,
            ..NewSkill::account()
        };
        let by = skill.decided_by.as_deref().unwrap_or("?");
        insert_in(
            tx,
            &new,
            EventKind::Pulled,
            &format!("pulled from team {team}, promoted by {by}"),
        )?;
        Ok(())
    })?;
    Ok(pulled)
}

/// Takes a retired team skill out of the live folder (into the retired folder), when it is
/// there with this team's marker and unedited; returns where it went.
fn retire(ws: &mut Workspace, team: &str, name: &str) -> Result<Option<PathBuf>> {
    let folder = fsio::child(&ws.paths.skills_dir, "team skill", name)?;
    let Some(marker) = read_marker(&folder).filter(|m| m.team == team) else { return Ok(None) };
    let file = files::skill_file(&folder);
    let here = fsio::read_skill_md(&file).map(|b| sha256_hex(&b)).unwrap_or_default();
    if here != marker.sha256 {
        // Edited here: the member's copy now, left where it is.
        return Ok(None);
    }
    std::fs::create_dir_all(&ws.paths.retired_dir)?;
    let to = fsio::child(&ws.paths.retired_dir, "retired skill", &format!("{team}.{name}"))?;
    let to = if to.exists() {
        fsio::child(
            &ws.paths.retired_dir,
            "retired skill",
            &format!("{team}.{name}.{}", store::now_rfc3339().replace(':', "")),
        )?
    } else {
        to
    };
    let (from_s, to_s) = (folder.to_string_lossy().into_owned(), to.to_string_lossy().into_owned());
    journal::moved(ws.store.conn_mut(), &folder, &to, |tx| {
        if let Some(id) = skills::id_at_path(tx, &from_s)? {
            let now = store::now_rfc3339();
            skills::set_status_and_path(tx, id, SkillStatus::Retired, &to_s, &now)?;
        }
        Ok(())
    })?;
    Ok(Some(to))
}
