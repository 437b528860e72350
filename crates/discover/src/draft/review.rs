//! Every review decision, in one place: promote a candidate live, dismiss it, undo either,
//! approve a proposed version (or the current bytes of a skill that went back to review), and
//! reject a proposed version.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::candidates::{self, CandidateSource, CandidateStatus, CandidateView, get_candidate};
use super::{folder, stage};
use crate::catalog::{EventKind, SkillStatus, VersionSource, events, skills, versions};
use crate::fsio;
use crate::journal;
use crate::lifecycle::{self, NewSkill};
use crate::spec::{self, Severity};
use crate::store::now_rfc3339;
use crate::text::hex::sha256_hex;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
pub struct Promoted {
    pub candidate_id: i64,
    pub skill_id: i64,
    pub name: String,
    pub path: PathBuf,
    /// The agent that loads it from `path` (the candidate's).
    pub agent_id: String,
}

fn staged_folder(ws: &Workspace, c: &CandidateView) -> PathBuf {
    ws.paths.staging_dir.join(&c.name)
}

/// The open new-skill candidate `candidate_id`, for an action (`verb`) only such a candidate
/// takes; a proposed version is refused with what to do `instead`.
fn open_new_skill(
    ws: &Workspace,
    candidate_id: i64,
    verb: &str,
    instead: &str,
) -> Result<CandidateView> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Candidate {
        bail!(
            "candidate {candidate_id} ({}) is {}: only an open candidate can be {verb}",
            c.name,
            c.status
        );
    }
    if let Some(skill) = c.target_skill_id {
        bail!(
            "candidate {candidate_id} ({}) proposes a new version of skill {skill}: {instead}",
            c.name
        );
    }
    Ok(c)
}

/// A new-skill candidate's draft file (what `skilldeck edit ID` and the console's `e` open).
/// A draft whose folder was removed by hand is written back from the stored text first.
pub fn draft_file(ws: &Workspace, candidate_id: i64) -> Result<PathBuf> {
    let c = open_new_skill(ws, candidate_id, "edited", "approve it, then edit the skill")?;
    let folder = staged_folder(ws, &c);
    ensure_draft(&folder, &c)?;
    Ok(folder.join("SKILL.md"))
}

/// The staged SKILL.md of the new-skill candidate `name` as saved now (what promote moves
/// live), if it is there and readable.
pub fn staged_text(staging_dir: &Path, name: &str) -> Option<String> {
    fsio::read_skill_md_text(&staging_dir.join(name).join("SKILL.md")).ok()
}

/// What deciding on the candidate would write now: a new skill's staged SKILL.md as saved (the
/// stored draft when the file is gone), a proposed version's text named as its skill.
pub fn decision_text(ws: &Workspace, candidate_id: i64) -> Result<String> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    let stored = c.skill_md.clone().unwrap_or_default();
    Ok(match c.target_skill_id {
        Some(id) => approval_text(&stored, &skills::by_id(ws.store.conn(), id)?.name),
        None => staged_text(&ws.paths.staging_dir, &c.name).unwrap_or(stored),
    })
}

/// Binds a decision to what the reviewer saw: refused when the text it would write is not the
/// one whose sha256 is `seen` (the draft was edited, or re-drafted, since).
pub fn ensure_seen(ws: &Workspace, candidate_id: i64, seen: &str) -> Result<()> {
    let now = decision_text(ws, candidate_id)?;
    if sha256_hex(now.as_bytes()) != seen {
        let name = get_candidate(ws.store.conn(), candidate_id)?.name;
        bail!(
            "{name} changed since it was reviewed (the draft as saved now is shown); review it \
             and decide again"
        );
    }
    Ok(())
}

/// Makes sure the candidate's draft is on disk in `folder`, rewriting it from the stored text
/// when the folder was removed by hand.
fn ensure_draft(folder: &Path, c: &CandidateView) -> Result<()> {
    if folder.join("SKILL.md").is_file() {
        return Ok(());
    }
    match &c.skill_md {
        Some(text) => folder::write_draft(folder, text, None),
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
    let c = open_new_skill(ws, candidate_id, "promoted", "approve it instead")?;
    if c.evidence_only {
        bail!(
            "candidate {candidate_id} ({}) is recorded as evidence only (no specific steps): it has \
             no draft to promote",
            c.name
        );
    }
    // Live where the candidate's agent loads skills: Codex's folder for a Codex candidate.
    let live = fsio::child(ws.live_dir(&c.agent_id), "skill name", &c.name)?;
    if live.exists() {
        bail!(
            "cannot promote candidate {candidate_id}: a live skill folder already exists at {}",
            live.display()
        );
    }
    if skills::exists_named(ws.store.conn(), &c.agent_id, &c.name)? {
        bail!(
            "cannot promote candidate {candidate_id}: agent {} already has a skill named {}",
            c.agent_id,
            c.name
        );
    }
    let staged = staged_folder(ws, &c);
    ensure_draft(&staged, &c)?;
    let errors: Vec<String> = spec::validate_skill(&staged)?
        .into_iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.to_string())
        .collect();
    if !errors.is_empty() {
        bail!(
            "cannot promote candidate {candidate_id}: its draft breaks the Agent Skills spec:\n{}",
            errors.join("\n")
        );
    }
    let skill_md_path = staged.join("SKILL.md");
    let draft = fsio::read_skill_md_text(&skill_md_path)
        .with_context(|| format!("reading {}", skill_md_path.display()))?;
    // What goes live is the draft without its staging-only parts (notice, draft metadata).
    let content = super::live::live_text(&draft, &c.name);
    if content != draft {
        fsio::atomic_write(&skill_md_path, content.as_bytes())?;
    }
    // The folder moves live and the rows that make it a promoted skill commit as one step: a
    // crash between them is undone by the next command (the draft goes back to staging), so the
    // folder is never adopted as hand-made and a re-run promotes it.
    let skill_id = journal::moved(ws.store.conn_mut(), &staged, &live, |tx| {
        record_promotion(tx, &c, &live, &content)
    })?;
    Ok(Promoted { candidate_id, skill_id, name: c.name, path: live, agent_id: c.agent_id })
}

fn record_promotion(
    tx: &rusqlite::Connection,
    c: &CandidateView,
    live: &Path,
    content: &str,
) -> Result<i64> {
    let tool_sequence = serde_json::to_string(&c.tool_sequence)?;
    let new = NewSkill {
        agent: &c.agent_id,
        name: &c.name,
        folder: live,
        content,
        source: VersionSource::Promote,
        is_auto_created: true,
        tool_sequence: Some(&tool_sequence),
        ..NewSkill::account()
    };
    let reason = format!("promoted from candidate {} ({})", c.id, c.source);
    let skill_id = lifecycle::register::insert_in(tx, &new, EventKind::Promoted, &reason)?;
    skills::set_candidate(tx, skill_id, c.id)?;
    candidates::set_promoted(tx, c.id, &now_rfc3339(), true)?;
    Ok(skill_id)
}

/// Marks an open candidate dismissed: detection keeps counting its evidence but never proposes
/// it again. The draft moves to `<staging>/.dismissed/` so `undo_dismiss` can restore it.
pub fn dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Candidate {
        bail!(
            "candidate {candidate_id} ({}) is {}: only an open candidate can be dismissed",
            c.name,
            c.status
        );
    }
    let staged = staged_folder(ws, &c);
    let parked = stage::dismissed_folder(&ws.paths.staging_dir, &c.name);
    if staged.exists() && parked.exists() {
        fs::remove_dir_all(&parked).with_context(|| format!("clearing {}", parked.display()))?;
    }
    let now = now_rfc3339();
    let parked_path =
        (staged.exists() || parked.exists()).then(|| parked.to_string_lossy().into_owned());
    journal::moved(ws.store.conn_mut(), &staged, &parked, |tx| {
        candidates::set_dismissed(tx, candidate_id, &now, Some(parked_path.as_deref()))
    })?;
    Ok(())
}

/// Reopens a dismissed candidate and puts its draft back in staging.
pub fn undo_dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Dismissed {
        bail!("candidate {candidate_id} ({}) is {}, not dismissed", c.name, c.status);
    }
    let staged = staged_folder(ws, &c);
    let parked = stage::dismissed_folder(&ws.paths.staging_dir, &c.name);
    // A row kept as evidence only had no draft: it points at none once open again.
    let had_draft = parked.join("SKILL.md").is_file();
    journal::moved(ws.store.conn_mut(), &parked, &staged, |tx| {
        let at = staged.to_string_lossy();
        candidates::reopen_dismissed(tx, candidate_id, had_draft.then_some(at.as_ref()))
    })
}

/// Takes a promoted skill back out of the live folder into staging, removes its skill rows, and
/// reopens the candidate. Edits made to the live SKILL.md travel back with it.
pub fn undo_promote(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Promoted {
        bail!("candidate {candidate_id} ({}) is {}, not promoted", c.name, c.status);
    }
    let skill = skills::promoted_from(ws.store.conn(), candidate_id, &c.agent_id)?;
    let staged = staged_folder(ws, &c);
    if staged.exists() {
        bail!("cannot undo: {} is in the way in the staging folder", staged.display());
    }
    // With no row or no folder left, only the rows change.
    let live = skill.as_ref().map_or_else(|| staged.clone(), |(_, p)| PathBuf::from(p));
    journal::moved(ws.store.conn_mut(), &live, &staged, |tx| {
        let skill_md = fsio::read_skill_md_text(&staged.join("SKILL.md")).ok();
        if let Some((skill_id, _)) = &skill {
            skills::delete(tx, *skill_id)?;
        }
        candidates::reopen_promoted(
            tx,
            candidate_id,
            &staged.to_string_lossy(),
            skill_md.as_deref(),
        )
    })
}

/// Applies a proposed version: writes its SKILL.md (named as the skill) atomically as the next
/// version (source `approve`), takes over its tool sequence, binds an auto-created skill's
/// approval to the new bytes, and marks the candidate `promoted`.
pub fn approve(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Candidate {
        bail!("candidate {candidate_id} is already {}", c.status);
    }
    let target = c.target_skill_id.with_context(|| {
        format!(
            "candidate {candidate_id} is a new skill, not a proposed version: promote it instead"
        )
    })?;
    let skill_md =
        c.skill_md.with_context(|| format!("candidate {candidate_id} has no SKILL.md text"))?;
    let sequence = candidates::tool_sequence_json(ws.store.conn(), candidate_id)?;
    let skill = skills::by_id(ws.store.conn(), target)?;
    if c.source == CandidateSource::Restore {
        return approve_restore(ws, candidate_id, &skill);
    }
    if !skill.status.is_live() {
        bail!(
            "skill {:?} is {}; restore it before approving a new version",
            skill.name,
            skill.status
        );
    }
    let absorbs = candidates::absorbs(ws.store.conn(), candidate_id)?;
    if let Some(other) = absorbs {
        let other = skills::by_id(ws.store.conn(), other)?;
        // An archived skill may be absorbed (it stays archived); a retired one may not.
        if !other.status.is_live() && other.status != SkillStatus::Archived {
            bail!(
                "candidate {candidate_id} merges {:?} into {:?}, but {:?} is {}: reject it",
                other.name,
                skill.name,
                other.name,
                other.status
            );
        }
    }
    let content = approval_text(&skill_md, &skill.name);
    refuse_if_stale(ws, candidate_id, &skill, &content)?;
    let reason = format!("approved candidate {candidate_id}");
    let now = now_rfc3339();
    // A merge is two steps (the survivor's text, the absorbed skill's move) under one intent:
    // a crash between them is completed by the next command (`finish_merge`).
    let merge =
        absorbs.map(|_| journal::merge_begins(ws.store.conn(), candidate_id)).transpose()?;
    lifecycle::write_version(ws, &skill, &content, VersionSource::Approve, &reason, |tx| {
        skills::approve_evolution(tx, skill.id, &sequence, &sha256_hex(content.as_bytes()))?;
        candidates::set_promoted(tx, candidate_id, &now, false)?;
        events::add(tx, skill.id, &now, EventKind::Approved, None, None, &reason)?;
        Ok(())
    })
    .inspect_err(|_| end_merge(ws, merge))?;
    if let Some(intent) = merge {
        finish_merge(ws, candidate_id)?;
        journal::end(ws.store.conn(), intent)?;
    }
    super::rebase::rebase_open(ws, skill.id, Some(candidate_id))?;
    Ok(())
}

/// Refuses, once, to approve a proposal made against a text the skill no longer has (a hand
/// edit or another version since): the error shows the proposal against the current text, and
/// the proposal now stands against it, so approving again replaces what was just shown.
fn refuse_if_stale(
    ws: &mut Workspace,
    candidate_id: i64,
    skill: &skills::SkillRow,
    content: &str,
) -> Result<()> {
    let Some(base) = candidates::base_sha(ws.store.conn(), candidate_id)? else { return Ok(()) };
    lifecycle::scan_one(ws, skill)?;
    let live = versions::latest_content(ws.store.conn(), skill.id)?;
    let sha = sha256_hex(live.as_bytes());
    if sha == base {
        return Ok(());
    }
    candidates::set_base(ws.store.conn(), candidate_id, &sha)?;
    bail!(
        "{} changed since candidate {candidate_id} was proposed (a hand edit or a newer \
         version); approving would replace the current text. The proposal against it:\n{}\n\
         Run `skilldeck approve {candidate_id}` again to replace it, or `skilldeck reject \
         {candidate_id}`.",
        skill.name,
        lifecycle::diff_text(&live, content)
    )
}

/// Ends the merge intent of a step that failed before changing anything.
fn end_merge(ws: &Workspace, merge: Option<i64>) {
    if let Some(intent) = merge {
        let _ = journal::end(ws.store.conn(), intent);
    }
}

/// Brings merge candidate `candidate_id`'s absorbed skill in line with the candidate: archived
/// and marked absorbed while the candidate stands approved, live and unmarked once it is not.
/// The second step of approving a merge and of taking it back, and what recovery runs when a
/// crash came between the two.
pub fn finish_merge(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    let (Some(other), Some(target)) =
        (candidates::absorbs(ws.store.conn(), candidate_id)?, c.target_skill_id)
    else {
        return Ok(());
    };
    let absorbed = skills::by_id(ws.store.conn(), other)?;
    let marked = skills::absorbed_into(ws.store.conn(), other)?;
    if c.status == CandidateStatus::Promoted {
        if absorbed.status.is_live() {
            let into = skills::by_id(ws.store.conn(), target)?;
            let why = format!("absorbed into {} (merge candidate {candidate_id})", into.name);
            lifecycle::absorb(ws, other, target, &why)?;
        }
    } else if marked == Some(target) {
        lifecycle::unabsorb(ws, other)?;
    }
    Ok(())
}

/// Approves a restore proposal: the parked skill comes back live, the candidate is marked
/// approved in the same step.
fn approve_restore(ws: &mut Workspace, candidate_id: i64, skill: &skills::SkillRow) -> Result<()> {
    let now = now_rfc3339();
    let reason = format!("approved candidate {candidate_id}");
    lifecycle::restore_and(ws, &skill.agent_id, &skill.name, |tx| {
        candidates::set_promoted(tx, candidate_id, &now, false)?;
        events::add(tx, skill.id, &now, EventKind::Approved, None, None, &reason)
    })
}

/// The text approving proposed version `skill_md` writes for the skill `name`: the proposal
/// named as the skill, its staging-only parts stripped (`live::live_text`). The queue diffs this, so what it shows is what approve writes.
pub fn approval_text(skill_md: &str, name: &str) -> String {
    super::live::live_text(skill_md, name)
}

/// Takes an approval back: the skill returns to the text it had before (a new `rollback`
/// version, so the history keeps both) and the proposed version is open for review again. Refused
/// once the skill has changed since the approval (roll back by hand then).
pub fn undo_approve(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Promoted {
        bail!("candidate {candidate_id} ({}) is {}, not approved", c.name, c.status);
    }
    let target = c.target_skill_id.with_context(|| {
        format!(
            "candidate {candidate_id} ({}) was promoted as a new skill: undo-promote it",
            c.name
        )
    })?;
    let skill = skills::by_id(ws.store.conn(), target)?;
    if c.source == CandidateSource::Restore {
        let reason = format!("undid the approval of candidate {candidate_id}");
        return lifecycle::archive_and(ws, &skill.agent_id, &skill.name, &reason, |tx| {
            candidates::reopen_approved(tx, candidate_id)
        });
    }
    let history = versions::list(ws.store.conn(), skill.id)?;
    let approved = format!("approved candidate {candidate_id}");
    let Some(at) = history.iter().rposition(|v| v.source == VersionSource::Approve) else {
        bail!("skill {:?} has no approved version to take back", skill.name);
    };
    if at + 1 != history.len() || at == 0 {
        bail!(
            "skill {:?} changed since {approved}; roll it back by hand (skilldeck rollback)",
            skill.name
        );
    }
    let before = history[at - 1].content.clone();
    let reason = format!("undid the approval of candidate {candidate_id}");
    let now = now_rfc3339();
    let merge = candidates::absorbs(ws.store.conn(), candidate_id)?
        .map(|_| journal::merge_begins(ws.store.conn(), candidate_id))
        .transpose()?;
    lifecycle::write_version(ws, &skill, &before, VersionSource::Rollback, &reason, |tx| {
        if skill.is_auto_created {
            skills::bind_approval(tx, skill.id, &sha256_hex(before.as_bytes()))?;
        }
        candidates::reopen_approved(tx, candidate_id)?;
        events::add(tx, skill.id, &now, EventKind::ApprovalUndone, None, None, &reason)?;
        Ok(())
    })
    .inspect_err(|_| end_merge(ws, merge))?;
    if let Some(intent) = merge {
        finish_merge(ws, candidate_id)?;
        journal::end(ws.store.conn(), intent)?;
    }
    super::rebase::rebase_open(ws, skill.id, None)?;
    Ok(())
}

/// Re-approves a skill that went back to review: binds its approval to the current bytes.
/// `seen`: the sha256 of the text the reviewer saw; refused when the file now holds another.
pub fn approve_current(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    seen: Option<&str>,
) -> Result<()> {
    let row = skills::require(ws.store.conn(), agent, skill)?;
    lifecycle::scan_one(ws, &row)?;
    let content = versions::latest_content(ws.store.conn(), row.id)?;
    if seen.is_some_and(|seen| sha256_hex(content.as_bytes()) != seen) {
        bail!(
            "{skill} changed since it was reviewed (the edit as saved now is shown); review it and \
             approve again"
        );
    }
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    skills::approve_current(&tx, row.id, &sha256_hex(content.as_bytes()), &now)?;
    events::add(
        &tx,
        row.id,
        &now,
        EventKind::Approved,
        None,
        None,
        "current version approved by hand",
    )?;
    tx.commit()?;
    Ok(())
}

/// Dismisses a candidate (a proposed version or a new-skill candidate).
pub fn reject(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let c = get_candidate(ws.store.conn(), candidate_id)?;
    if c.status != CandidateStatus::Candidate {
        bail!("candidate {candidate_id} is already {}", c.status);
    }
    candidates::set_dismissed(ws.store.conn(), candidate_id, &now_rfc3339(), None)?;
    Ok(())
}
