//! A member's queue of team proposals: team text that may not go live by itself (no team
//! decision promoted it, or it changed after the promotion), kept beside the database where the
//! agent never loads it, until the member accepts it (it goes live, as reviewed by this member)
//! or rejects it (the same text is not proposed again). Each proposal is a folder
//! `<data dir>/team-proposals/<team>/<name>/` with the proposed SKILL.md and `proposal.json`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::shared::TeamSkill;
use crate::fsio;
use crate::store;
use crate::text::hex;
use crate::workspace::Workspace;

const META: &str = "proposal.json";
const REJECTED: &str = "rejected.json";

/// What a proposal records beside its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub team: String,
    pub name: String,
    pub version: i32,
    /// SHA-256 of the proposed text.
    pub sha256: String,
    /// Why it is not live.
    pub reason: String,
    pub proposed_at: String,
    /// Its SKILL.md no longer hashes to `sha256`: changed on this machine since the pull.
    #[serde(skip)]
    pub tampered: bool,
}

fn root(ws: &Workspace, team: &str) -> Result<PathBuf> {
    let data = ws.paths.db.parent().unwrap_or(Path::new("."));
    fsio::child(&data.join("team-proposals"), "team", team)
}

fn rejected(dir: &Path) -> Vec<(String, String)> {
    std::fs::read(dir.join(REJECTED))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Queues `text` (already through the gates) for the member; nothing when the same text is
/// queued already or was rejected. Returns whether it is new.
pub fn propose(
    ws: &Workspace,
    team: &str,
    skill: &TeamSkill,
    text: &str,
    sha: &str,
    reason: &str,
) -> Result<bool> {
    let dir = root(ws, team)?;
    if rejected(&dir).iter().any(|(n, h)| n == &skill.name && h == sha) {
        return Ok(false);
    }
    let folder = fsio::child(&dir, "team skill", &skill.name)?;
    // A proposal changed here since is written again from the server's text.
    if read(&folder).is_some_and(|(p, _)| p.sha256 == sha && !p.tampered) {
        return Ok(false);
    }
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let p = Proposal {
        team: team.into(),
        name: skill.name.clone(),
        version: skill.version,
        sha256: sha.into(),
        reason: reason.into(),
        proposed_at: store::now_rfc3339(),
        tampered: false,
    };
    fsio::atomic_write(&folder.join("SKILL.md"), text.as_bytes())?;
    fsio::atomic_write(&folder.join(META), serde_json::to_string_pretty(&p)?.as_bytes())?;
    Ok(true)
}

/// A proposal and its text, `tampered` when the text no longer hashes to what it records.
fn read(folder: &Path) -> Option<(Proposal, String)> {
    let meta = fsio::read_capped(&folder.join(META), 64 * 1024).ok()?;
    let mut p: Proposal = serde_json::from_slice(&meta).ok()?;
    let text = fsio::read_skill_md_text(&folder.join("SKILL.md")).ok()?;
    p.tampered = hex::sha256_hex(text.as_bytes()) != p.sha256;
    Some((p, text))
}

/// The team's open proposals with their text, by name; tampered ones included, marked.
pub fn list(ws: &Workspace, team: &str) -> Result<Vec<(Proposal, String)>> {
    let dir = root(ws, team)?;
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut out: Vec<(Proposal, String)> =
        entries.flatten().filter_map(|e| read(&e.path())).collect();
    out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    Ok(out)
}

/// The open proposal `name`; an error when its text was changed here since the pull.
pub fn get(ws: &Workspace, team: &str, name: &str) -> Result<(Proposal, String)> {
    let folder = fsio::child(&root(ws, team)?, "team skill", name)?;
    match read(&folder) {
        Some((p, _)) if p.tampered => bail!(
            "team proposal {name} was changed on this machine since the pull (its SKILL.md no \
             longer has the hash recorded): `skilldeck team pull` writes it again from the \
             server, or `skilldeck team reject {name}`"
        ),
        Some(found) => Ok(found),
        None => bail!("no team proposal {name} (see `skilldeck team proposals`)"),
    }
}

/// Removes proposal `name`; `reject` remembers its text so it is not proposed again.
pub fn close(ws: &Workspace, team: &str, name: &str, reject: bool) -> Result<()> {
    let dir = root(ws, team)?;
    let folder = fsio::child(&dir, "team skill", name)?;
    if reject && let Some((p, _)) = read(&folder) {
        let mut list = rejected(&dir);
        list.push((p.name, p.sha256));
        fsio::atomic_write(&dir.join(REJECTED), serde_json::to_string(&list)?.as_bytes())?;
    }
    std::fs::remove_dir_all(&folder).with_context(|| format!("removing {}", folder.display()))
}
