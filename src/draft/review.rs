//! A person's decisions on a candidate: promote it live, dismiss it, and undo either.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::candidates::{CandidateView, get_candidate};
use super::stage;
use crate::lifecycle::{self, NewSkill};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
pub struct Promoted {
    pub candidate_id: i64,
    pub skill_id: i64,
    pub name: String,
    pub path: PathBuf,
}

fn staged_folder(ws: &Workspace, c: &CandidateView) -> PathBuf {
    ws.paths.staging_dir.join(&c.name)
}

/// Makes sure the candidate's draft is on disk in `folder`, rewriting it from the stored text
/// when the folder was removed by hand.
fn ensure_draft(folder: &Path, c: &CandidateView) -> Result<()> {
    if folder.join("SKILL.md").is_file() {
        return Ok(());
    }
    match &c.skill_md {
        Some(text) => stage::write_draft(folder, text, None),
        None => bail!(
            "the draft of candidate {} is missing: {} has no SKILL.md and none is stored",
            c.id,
            folder.display()
        ),
    }
}

/// Moves the staged draft (as a person may have edited it) into the live skills folder and
/// records the skill with version 1. A draft that breaks the spec is refused.
pub fn promote(ws: &mut Workspace, candidate_id: i64) -> Result<Promoted> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != "candidate" {
        bail!(
            "candidate {candidate_id} ({}) is {}: only an open candidate can be promoted",
            c.name,
            c.status
        );
    }
    if let Some(skill) = c.target_skill_id {
        bail!(
            "candidate {candidate_id} ({}) proposes a new version of skill {skill}: approve it instead",
            c.name
        );
    }
    let live = ws.paths.skills_dir.join(&c.name);
    if live.exists() {
        bail!(
            "cannot promote candidate {candidate_id}: a live skill folder already exists at {}",
            live.display()
        );
    }
    let exists: bool = ws.store.conn().query_row(
        "SELECT EXISTS(SELECT 1 FROM skills WHERE agent_id = ?1 AND name = ?2)",
        params![c.agent_id, c.name],
        |r| r.get(0),
    )?;
    if exists {
        bail!(
            "cannot promote candidate {candidate_id}: agent {} already has a skill named {}",
            c.agent_id,
            c.name
        );
    }
    let staged = staged_folder(ws, &c);
    ensure_draft(&staged, &c)?;
    let errors: Vec<String> = crate::spec::validate_skill(&staged)?
        .into_iter()
        .filter(|p| p.severity == crate::spec::Severity::Error)
        .map(|p| p.to_string())
        .collect();
    if !errors.is_empty() {
        bail!(
            "cannot promote candidate {candidate_id}: its draft breaks the Agent Skills spec:\n{}",
            errors.join("\n")
        );
    }
    let skill_md_path = staged.join("SKILL.md");
    let content = crate::fsio::read_skill_md_text(&skill_md_path)
        .with_context(|| format!("reading {}", skill_md_path.display()))?;
    stage::move_folder(&staged, &live)?;
    match record_promotion(ws, &c, &live, &content) {
        Ok(skill_id) => Ok(Promoted { candidate_id, skill_id, name: c.name, path: live }),
        Err(e) => {
            // Leave the disk as the database says: the draft goes back to staging.
            let _ = stage::move_folder(&live, &staged);
            Err(e)
        }
    }
}

fn record_promotion(
    ws: &mut Workspace,
    c: &CandidateView,
    live: &Path,
    content: &str,
) -> Result<i64> {
    let tool_sequence = serde_json::to_string(&c.tool_sequence)?;
    let tx = ws.store.conn_mut().transaction()?;
    let new = NewSkill {
        agent: &c.agent_id,
        name: &c.name,
        folder: live,
        content,
        source: "promote",
        is_auto_created: true,
        tool_sequence: Some(&tool_sequence),
        scope: "account",
    };
    let reason = format!("promoted from candidate {} ({})", c.id, c.source);
    let skill_id = lifecycle::record_new_skill(&tx, &new, "promoted", &reason)?;
    tx.execute("UPDATE skills SET candidate_id = ?2 WHERE id = ?1", params![skill_id, c.id])?;
    tx.execute(
        "UPDATE skill_candidates SET status = 'promoted', promoted_at = ?2, staged_path = NULL
         WHERE id = ?1",
        params![c.id, now_rfc3339()],
    )?;
    tx.commit()?;
    Ok(skill_id)
}

/// Marks an open candidate dismissed: detection keeps counting its evidence but never proposes
/// it again. The draft moves to `<staging>/.dismissed/` so `undo_dismiss` can restore it.
pub fn dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != "candidate" {
        bail!(
            "candidate {candidate_id} ({}) is {}: only an open candidate can be dismissed",
            c.name,
            c.status
        );
    }
    let staged = staged_folder(ws, &c);
    let parked = stage::dismissed_folder(&ws.paths.staging_dir, &c.name);
    if staged.exists() {
        if parked.exists() {
            fs::remove_dir_all(&parked)
                .with_context(|| format!("clearing {}", parked.display()))?;
        }
        stage::move_folder(&staged, &parked)?;
    }
    let now = now_rfc3339();
    let changed = ws.store.conn().execute(
        "UPDATE skill_candidates SET status = 'dismissed', dismissed_at = ?2, staged_path = ?3
         WHERE id = ?1 AND status = 'candidate'",
        params![candidate_id, now, parked.exists().then(|| parked.to_string_lossy().into_owned())],
    );
    if let Err(e) = changed {
        if parked.exists() {
            let _ = stage::move_folder(&parked, &staged);
        }
        return Err(e.into());
    }
    Ok(())
}

/// Reopens a dismissed candidate and puts its draft back in staging.
pub fn undo_dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != "dismissed" {
        bail!("candidate {candidate_id} ({}) is {}, not dismissed", c.name, c.status);
    }
    let staged = staged_folder(ws, &c);
    let parked = stage::dismissed_folder(&ws.paths.staging_dir, &c.name);
    if parked.exists() {
        stage::move_folder(&parked, &staged)?;
    }
    ws.store.conn().execute(
        "UPDATE skill_candidates SET status = 'candidate', dismissed_at = NULL, staged_path = ?2
         WHERE id = ?1",
        params![candidate_id, staged.to_string_lossy()],
    )?;
    Ok(())
}

/// Takes a promoted skill back out of the live folder into staging, removes its skill rows, and
/// reopens the candidate. Edits made to the live SKILL.md travel back with it.
pub fn undo_promote(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != "promoted" {
        bail!("candidate {candidate_id} ({}) is {}, not promoted", c.name, c.status);
    }
    let skill: Option<(i64, String)> = ws
        .store
        .conn()
        .query_row(
            "SELECT id, path FROM skills WHERE candidate_id = ?1 AND agent_id = ?2",
            params![candidate_id, c.agent_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let staged = staged_folder(ws, &c);
    if staged.exists() {
        bail!("cannot undo: {} is in the way in the staging folder", staged.display());
    }
    let live = skill.as_ref().map(|(_, p)| PathBuf::from(p));
    let mut moved = false;
    if let Some(live) = &live
        && live.exists()
    {
        stage::move_folder(live, &staged)?;
        moved = true;
    }
    let skill_md = crate::fsio::read_skill_md_text(&staged.join("SKILL.md")).ok();
    let result = (|| -> Result<()> {
        let tx = ws.store.conn_mut().transaction()?;
        if let Some((skill_id, _)) = &skill {
            tx.execute(
                "UPDATE skill_invocations SET skill_id = NULL WHERE skill_id = ?1",
                [skill_id],
            )?;
            tx.execute("DELETE FROM skill_events WHERE skill_id = ?1", [skill_id])?;
            tx.execute("DELETE FROM skill_versions WHERE skill_id = ?1", [skill_id])?;
            tx.execute("DELETE FROM skills WHERE id = ?1", [skill_id])?;
        }
        tx.execute(
            "UPDATE skill_candidates SET status = 'candidate', promoted_at = NULL, staged_path = ?2,
             skill_md = COALESCE(?3, skill_md) WHERE id = ?1",
            params![candidate_id, staged.to_string_lossy(), skill_md],
        )?;
        tx.commit()?;
        Ok(())
    })();
    if let (Err(_), true, Some(live)) = (&result, moved, &live) {
        let _ = stage::move_folder(&staged, live);
    }
    result
}
