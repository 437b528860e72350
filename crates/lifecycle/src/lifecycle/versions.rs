//! Every version of every skill: external edits, diffs, rollbacks.

use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::Connection;

use super::files::{self, skill_file};
use super::{SkillRow, git, register, require_skill};
use crate::catalog::EventKind;
use crate::catalog::events;
use crate::catalog::versions::{VersionView, latest};
use crate::catalog::{self, Scope, VersionSource, skills};
use crate::fsio;
use crate::journal;
use crate::store::{Store, now_rfc3339};
use crate::text::hex::sha256_hex;
use crate::workspace::Workspace;

/// Every version of a skill, oldest first.
pub fn versions(store: &Store, skill_id: i64) -> Result<Vec<VersionView>> {
    catalog::versions::list(store.conn(), skill_id)
}

/// A unified diff (3 lines of context), empty when the texts are equal.
pub fn diff_text(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("a", "b")
        .to_string()
}

/// Appends a version row with `content` and points the skill at it (no file write).
pub fn add_version(
    conn: &Connection,
    skill: &SkillRow,
    content: &str,
    source: VersionSource,
    reason: &str,
) -> Result<i64> {
    let next = latest(conn, skill.id)?.map_or(1, |(v, _)| v + 1);
    let now = now_rfc3339();
    let fm = files::front_matter(content);
    catalog::versions::insert(conn, skill.id, next, content, source)?;
    let stamp = register::file_stamp(&skill_file(Path::new(&skill.path)));
    let triggers = serde_json::to_string(&fm.triggers)?;
    skills::set_version(conn, skill.id, next, fm.description.as_deref(), &triggers, stamp, &now)?;
    events::add(
        conn,
        skill.id,
        &now,
        EventKind::Version,
        None,
        None,
        &format!("version {next} ({source}): {reason}"),
    )?;
    Ok(next)
}

/// Writes `content` as the skill's live SKILL.md (atomically) and records it as a new version,
/// first saving any edit made to the file since the last recorded version. `also` runs in the
/// same transaction as the version row; if that transaction fails (or the process dies before
/// it commits), the old file comes back ([`crate::journal::written`]).
pub fn write_version(
    ws: &mut Workspace,
    skill: &SkillRow,
    content: &str,
    source: VersionSource,
    reason: &str,
    also: impl FnOnce(&Connection) -> Result<()>,
) -> Result<i64> {
    if !skill.status.is_live() {
        bail!("skill {:?} is {}; restore it first", skill.name, skill.status);
    }
    scan_one(ws, skill)?;
    let file = skill_file(Path::new(&skill.path));
    // The file and its version row change as one step: a crash between them is undone by the
    // next command's recovery (the old bytes come back), never recorded as an outside edit.
    let version = journal::written(ws.store.conn_mut(), &file, content.as_bytes(), |tx| {
        let version = add_version(tx, skill, content, source, reason)?;
        also(tx)?;
        Ok(version)
    })?;
    let message = format!("skilldeck: {} v{version} ({source}): {reason}", skill.name);
    if let Err(e) = git::commit(&ws.paths.skills_dir, Path::new(&skill.path), &message) {
        events::add(
            ws.store.conn(),
            skill.id,
            &now_rfc3339(),
            EventKind::Git,
            None,
            None,
            &format!("{e:#}"),
        )?;
    }
    Ok(version)
}

/// Restores `version`'s text as a new version (source `rollback`). Returns the new version.
pub fn rollback(ws: &mut Workspace, agent: &str, skill: &str, version: i64) -> Result<i64> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    let content = catalog::versions::content(ws.store.conn(), row.id, version)?
        .with_context(|| format!("skill {skill:?} has no version {version}"))?;
    // An edit on disk is a version first, so "the same text" means what is live now.
    scan_one(ws, &row)?;
    let row = require_skill(ws.store.conn(), agent, skill)?;
    let same = sha256_hex(content.as_bytes());
    if let Some((live, _)) = latest(ws.store.conn(), row.id)?.filter(|(_, sha)| *sha == same) {
        bail!("{skill} already has the text of version {version} (v{live}): nothing to roll back");
    }
    let reason = format!("back to version {version}");
    // Rolling back is a person's decision: an auto-created skill's approval follows it.
    write_version(ws, &row, &content, VersionSource::Rollback, &reason, |tx| {
        if row.is_auto_created {
            skills::bind_approval(tx, row.id, &sha256_hex(content.as_bytes()))?;
        }
        Ok(())
    })
}

/// Records the live file of `skill` as an `edit` version if its bytes differ from the newest
/// version. An approved auto-draft whose bytes no longer match its approval goes back to review
/// when `review_on_edit` is on. Returns whether a version was added.
pub fn scan_one(ws: &mut Workspace, skill: &SkillRow) -> Result<bool> {
    let file = skill_file(Path::new(&skill.path));
    let bytes = match fsio::read_skill_md(&file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    let sha = sha256_hex(&bytes);
    let content = String::from_utf8(bytes)
        .with_context(|| format!("{}: SKILL.md is not UTF-8 text", file.display()))?;
    let review_on_edit = ws.config.lifecycle.review_on_edit;
    let tx = ws.store.conn_mut().transaction()?;
    let changed = latest(&tx, skill.id)?.is_none_or(|(_, last)| last != sha);
    if changed {
        add_version(&tx, skill, &content, VersionSource::Edit, "changed outside skilldeck")?;
        let unbound = skill.is_auto_created
            && review_on_edit
            && !skill.needs_review
            && skill.approved_sha256.as_deref().is_some_and(|a| a != sha);
        if unbound {
            skills::mark_needs_review(&tx, skill.id)?;
            let reason = "bytes differ from the approved version; approve again to clear";
            events::add(&tx, skill.id, &now_rfc3339(), EventKind::NeedsReview, None, None, reason)?;
        }
    } else {
        // Same bytes (first look at a row created elsewhere, or a touched file): remember the
        // stamp, and the trigger phrases `suggest` reads.
        let stamp = register::file_stamp(&file);
        let triggers = serde_json::to_string(&files::front_matter(&content).triggers)?;
        skills::set_file_stamp(&tx, skill.id, stamp, Some(&triggers))?;
    }
    tx.commit()?;
    Ok(changed)
}

/// Adopts the live folder `<skills_dir>/<name>` (source `adopt`, not auto-created), for an
/// outcome recorded against a skill the database does not know yet.
pub fn adopt_live(ws: &mut Workspace, agent: &str, name: &str) -> Result<i64> {
    fsio::check_component("agent id", agent)?;
    let folder = fsio::child(&ws.paths.skills_dir, "skill name", name)?;
    let file = skill_file(&folder);
    if !file.is_file() {
        bail!("no skill named {name:?} for agent {agent:?} and no readable {}", file.display());
    }
    let tx = ws.store.conn_mut().transaction()?;
    let id = register::adopt_folder(&tx, agent, &folder, Scope::Account)
        .with_context(|| format!("no skill named {name:?} for agent {agent:?}"))?;
    tx.commit()?;
    match id {
        Some(id) => Ok(id),
        None => bail!("the folder {} is already registered to another skill", folder.display()),
    }
}
