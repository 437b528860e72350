//! Changes a person makes by hand: pin, archive, restore.

use std::path::Path;

use anyhow::{Result, bail};

use super::rules::{Judged, judge};
use super::tally::tally_one;
use super::{register, require_skill, versions};
use crate::catalog::EventKind;
use crate::catalog::SkillStatus::{Archived, Healthy, Retired};
use crate::catalog::events;
use crate::catalog::{SkillStatus, skills};
use crate::fsio;
use crate::journal;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// Pins (`protected = true`) or unpins a skill. One rule, the sweep's: a pinned skill is judged
/// like any other but never worse than `warning` (never deprecated, degraded, retired or
/// archived for disuse), and its rate still shows. Pinning and unpinning both re-judge it at
/// once under that rule, with one event that carries the change, so the state on screen is the
/// one the next sweep would give. Unpinning never moves a folder: a skill can only be retired
/// once flagged, so an unpinned skill that should retire is flagged now and retired later.
pub fn set_protected(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    protected: bool,
) -> Result<SkillStatus> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    if row.protected == protected {
        return Ok(row.status);
    }
    let now = now_rfc3339();
    let judged = if row.status.is_live() {
        let cfg = ws.config.lifecycle.clone();
        let reset = skills::streak_reset_at(ws.store.conn(), row.id)?;
        let tally = tally_one(ws.store.conn(), row.id, cfg.window, reset.as_deref())?;
        let skill = Judged {
            status: row.status,
            protected,
            is_auto_created: row.is_auto_created,
            flag_mark: None,
        };
        Some((judge(&skill, &tally, &cfg), tally.newest_id))
    } else {
        None
    };
    let tx = ws.store.conn_mut().transaction()?;
    skills::set_protected(&tx, row.id, protected, &now)?;
    let (kind, mut reason) = if protected {
        (EventKind::Pinned, "pinned by hand".to_string())
    } else {
        (EventKind::Unpinned, "unpinned by hand".to_string())
    };
    let mut to = row.status;
    let changed = judged.filter(|(v, _)| v.status != row.status && v.status != Retired);
    if let Some((v, newest)) = changed {
        let mark = v.status.is_flagged().then_some(newest);
        skills::set_judged_status(&tx, row.id, v.status, &row.path, mark, &now)?;
        reason = format!("{reason}; {}", v.reason);
        to = v.status;
    }
    events::add(&tx, row.id, &now, kind, Some(row.status), Some(to), &reason)?;
    tx.commit()?;
    Ok(to)
}

/// What pin and unpin say, in the console and on the command line alike.
pub fn pin_said(name: &str, protected: bool, now: SkillStatus) -> String {
    match protected {
        true => format!("pinned {name}: now {now}, never worse than warning"),
        false => format!("unpinned {name}: now {now}, judged like any skill"),
    }
}

/// Moves a live skill to the archive folder.
pub fn archive(ws: &mut Workspace, agent: &str, skill: &str) -> Result<()> {
    archive_with_reason(ws, agent, skill, "archived by hand")
}

/// `archive` with the reason its event records (the staleness rules give theirs).
pub fn archive_with_reason(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    reason: &str,
) -> Result<()> {
    archive_and(ws, agent, skill, reason, |_| Ok(()))
}

/// [`archive_with_reason`], running `also` in the transaction that parks the skill (a review
/// decision's rows commit with the move).
pub fn archive_and(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    reason: &str,
    also: impl FnOnce(&rusqlite::Connection) -> Result<()>,
) -> Result<()> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    if !row.status.is_live() {
        bail!(
            "skill {skill:?} is already {}; `skilldeck restore {skill}` brings it back",
            row.status
        );
    }
    // Keep any edit made to the live file before it leaves.
    versions::scan_one(ws, &row)?;
    let to = register::parked_path(&ws.paths.archive_dir, agent, skill)?;
    park(ws, &row.path, &to, row.id, row.status, Archived, reason, also)
}

/// [`archive_with_reason`] for many skills, (agent, name, reason) each, as one durable step
/// (`journal::moved_many`): the staleness rules archive thousands at once on a first sweep.
/// Skills no longer live are skipped. Returns how many were archived.
pub fn archive_many(ws: &mut Workspace, skills_in: &[(String, String, String)]) -> Result<usize> {
    let mut moves = Vec::with_capacity(skills_in.len());
    let mut rows = Vec::with_capacity(skills_in.len());
    for (agent, name, reason) in skills_in {
        let row = require_skill(ws.store.conn(), agent, name)?;
        if !row.status.is_live() {
            continue;
        }
        // Keep any edit made to the live file before it leaves.
        versions::scan_one(ws, &row)?;
        let to = register::parked_path(&ws.paths.archive_dir, agent, name)?;
        moves.push((std::path::PathBuf::from(&row.path), to));
        rows.push((row.id, row.status, reason));
    }
    let now = now_rfc3339();
    journal::moved_many(ws.store.conn_mut(), &moves, |tx| {
        for ((id, old, reason), (_, to)) in rows.iter().zip(&moves) {
            skills::set_status_and_path(tx, *id, Archived, &to.to_string_lossy(), &now)?;
            events::add(tx, *id, &now, EventKind::Status, Some(*old), Some(Archived), reason)?;
        }
        Ok(())
    })?;
    Ok(rows.len())
}

/// Archives the live skill `absorbed` because an approved merge folded it into `into`: the
/// same move as `archive`, and `absorbed_into` set in the same transaction (so it is never
/// proposed for a merge again), with an `absorbed` event on the survivor.
pub fn absorb(ws: &mut Workspace, absorbed: i64, into: i64, reason: &str) -> Result<()> {
    let row = super::skill_by_id(ws.store.conn(), absorbed)?;
    if row.status == Archived {
        // Already parked: it stays where it is, marked absorbed.
        let now = now_rfc3339();
        let note = format!("absorbed {} (archived): {reason}", row.name);
        let tx = ws.store.conn_mut().transaction()?;
        skills::set_absorbed_into(&tx, absorbed, Some(into))?;
        events::add(&tx, into, &now, EventKind::Absorbed, None, None, &note)?;
        events::add(&tx, absorbed, &now, EventKind::AbsorbedWhileArchived, None, None, reason)?;
        tx.commit()?;
        return Ok(());
    }
    if !row.status.is_live() {
        bail!("skill {:?} is already {}", row.name, row.status);
    }
    versions::scan_one(ws, &row)?;
    let to = register::parked_path(&ws.paths.archive_dir, &row.agent_id, &row.name)?;
    let note = format!("absorbed {}: {reason}", row.name);
    park(ws, &row.path, &to, row.id, row.status, Archived, reason, |tx| {
        skills::set_absorbed_into(tx, absorbed, Some(into))?;
        events::add(tx, into, &now_rfc3339(), EventKind::Absorbed, None, None, &note)
    })
}

/// Takes an absorption back (its merge's approval was undone): the skill returns to the live
/// folder and may be proposed again.
pub fn unabsorb(ws: &mut Workspace, absorbed: i64) -> Result<()> {
    let row = super::skill_by_id(ws.store.conn(), absorbed)?;
    let was_archived =
        row.status == Archived && events::absorbed_while_archived(ws.store.conn(), absorbed)?;
    if row.status.is_live() || was_archived {
        return skills::set_absorbed_into(ws.store.conn(), absorbed, None);
    }
    // The move back and the mark's removal commit together, so neither is left without the other.
    let to = fsio::existing_child(ws.live_dir(&row.agent_id), "skill name", &row.name)?;
    let reason = format!("restored from {}: its merge was taken back", row.status);
    park(ws, &row.path, &to, row.id, row.status, Healthy, &reason, |tx| {
        skills::set_absorbed_into(tx, absorbed, None)
    })?;
    let back = super::skill_by_id(ws.store.conn(), row.id)?;
    versions::scan_one(ws, &back)?;
    Ok(())
}

/// Brings an archived or retired skill back to the live folder (a missing one: its last
/// version written back) with its history; Ghost's streak
/// rules count afresh from now, the rolling rate keeps every invocation.
pub fn restore(ws: &mut Workspace, agent: &str, skill: &str) -> Result<()> {
    restore_and(ws, agent, skill, |_| Ok(()))
}

/// [`restore`], running `also` in the transaction that brings the skill back.
pub fn restore_and(
    ws: &mut Workspace,
    agent: &str,
    skill: &str,
    also: impl FnOnce(&rusqlite::Connection) -> Result<()>,
) -> Result<()> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    if row.status == SkillStatus::Missing {
        return super::missing::restore(ws, &row);
    }
    if row.status != Archived && row.status != Retired {
        bail!("skill {skill:?} is {}, not archived, retired or missing", row.status);
    }
    let to = fsio::existing_child(ws.live_dir(agent), "skill name", skill)?;
    let reason = format!("restored from {}", row.status);
    park(ws, &row.path, &to, row.id, row.status, Healthy, &reason, also)?;
    // An edit made while it was parked becomes a version now, like any other edit.
    let back = super::skill_by_id(ws.store.conn(), row.id)?;
    versions::scan_one(ws, &back)?;
    Ok(())
}

/// Moves the skill's folder and points its row at the new place as one step
/// ([`crate::journal::moved`]): a crash between them is undone by the next command. `also` runs
/// in the same transaction (an absorption records `absorbed_into` there).
#[allow(clippy::too_many_arguments)]
fn park(
    ws: &mut Workspace,
    from: &str,
    to: &Path,
    id: i64,
    old: SkillStatus,
    new: SkillStatus,
    reason: &str,
    also: impl FnOnce(&rusqlite::Connection) -> Result<()>,
) -> Result<()> {
    let now = now_rfc3339();
    journal::moved(ws.store.conn_mut(), Path::new(from), to, |tx| {
        skills::set_status_and_path(tx, id, new, &to.to_string_lossy(), &now)?;
        events::add(tx, id, &now, EventKind::Status, Some(old), Some(new), reason)?;
        if new == Healthy {
            // Restored: Ghost's streak rules count afresh from now.
            skills::reset_streak(tx, id, &now)?;
        }
        also(tx)?;
        Ok(())
    })
}
