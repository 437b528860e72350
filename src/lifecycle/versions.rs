//! Every version of every skill: external edits, diffs, rollbacks.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::files::{self, atomic_write, sha256_hex, skill_file};
use super::status::is_live;
use super::{SkillRow, add_event, all_skills, git, register, require_skill};
use crate::store::{Store, now_rfc3339};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
pub struct VersionView {
    pub version: i64,
    pub sha256: String,
    pub source: String,
    pub created_at: String,
    pub content: String,
}

pub fn versions(store: &Store, skill_id: i64) -> Result<Vec<VersionView>> {
    let mut stmt = store.conn().prepare(
        "SELECT version, sha256, source, created_at, content FROM skill_versions
         WHERE skill_id = ?1 ORDER BY version",
    )?;
    let rows = stmt.query_map([skill_id], |r| {
        Ok(VersionView {
            version: r.get(0)?,
            sha256: r.get(1)?,
            source: r.get(2)?,
            created_at: r.get(3)?,
            content: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A unified diff (3 lines of context), empty when the texts are equal.
pub fn diff_text(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("a", "b")
        .to_string()
}

fn latest(conn: &Connection, skill_id: i64) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT version, sha256 FROM skill_versions WHERE skill_id = ?1
             ORDER BY version DESC LIMIT 1",
            [skill_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Writes one kept version: the full text and its sha256. Every version row goes through here.
pub fn insert_version_row(
    conn: &Connection,
    skill_id: i64,
    version: i64,
    content: &str,
    source: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![skill_id, version, content, sha256_hex(content.as_bytes()), source, now_rfc3339()],
    )?;
    Ok(())
}

/// Appends a version row with `content` and points the skill at it (no file write).
pub(crate) fn add_version(
    conn: &Connection,
    skill: &SkillRow,
    content: &str,
    source: &str,
    reason: &str,
) -> Result<i64> {
    let next = latest(conn, skill.id)?.map_or(1, |(v, _)| v + 1);
    let now = now_rfc3339();
    let fm = files::front_matter(content);
    insert_version_row(conn, skill.id, next, content, source)?;
    let (mtime, size) = register::file_stamp(&skill_file(Path::new(&skill.path)));
    conn.execute(
        "UPDATE skills SET version = ?1, description = COALESCE(?2, description), triggers = ?3,
             file_mtime_ns = ?4, file_size = ?5, updated_at = ?6 WHERE id = ?7",
        params![
            next,
            fm.description,
            serde_json::to_string(&fm.triggers)?,
            mtime,
            size,
            now,
            skill.id
        ],
    )?;
    add_event(
        conn,
        skill.id,
        &now,
        "version",
        None,
        None,
        &format!("version {next} ({source}): {reason}"),
    )?;
    Ok(next)
}

/// Writes `content` as the skill's live SKILL.md (atomically) and records it as a new version,
/// first saving any edit made to the file since the last recorded version. `also` runs in the
/// same transaction as the version row; if that transaction fails, the old file comes back.
pub(crate) fn write_version(
    ws: &mut Workspace,
    skill: &SkillRow,
    content: &str,
    source: &str,
    reason: &str,
    also: impl FnOnce(&Connection) -> Result<()>,
) -> Result<i64> {
    if !is_live(&skill.status) {
        bail!("skill {:?} is {}; restore it first", skill.name, skill.status);
    }
    scan_one(ws, skill)?;
    let file = skill_file(Path::new(&skill.path));
    let old = crate::fsio::read_skill_md(&file).ok();
    atomic_write(&file, content.as_bytes())?;
    let result = (|| -> Result<i64> {
        let tx = ws.store.conn_mut().transaction()?;
        let version = add_version(&tx, skill, content, source, reason)?;
        also(&tx)?;
        tx.commit()?;
        Ok(version)
    })();
    let version = match result {
        Ok(v) => v,
        Err(e) => {
            if let Some(old) = old {
                let _ = atomic_write(&file, &old);
            }
            return Err(e);
        }
    };
    let message = format!("skilldeck: {} v{version} ({source}): {reason}", skill.name);
    if let Err(e) = git::commit(&ws.paths.skills_dir, Path::new(&skill.path), &message) {
        add_event(ws.store.conn(), skill.id, &now_rfc3339(), "git", None, None, &format!("{e:#}"))?;
    }
    Ok(version)
}

/// Restores `version`'s text as a new version (source `rollback`). Returns the new version.
pub fn rollback(ws: &mut Workspace, agent: &str, skill: &str, version: i64) -> Result<i64> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    let content: String = ws
        .store
        .conn()
        .query_row(
            "SELECT content FROM skill_versions WHERE skill_id = ?1 AND version = ?2",
            params![row.id, version],
            |r| r.get(0),
        )
        .optional()?
        .with_context(|| format!("skill {skill:?} has no version {version}"))?;
    let reason = format!("back to version {version}");
    // Rolling back is a person's decision: an auto-created skill's approval follows it.
    write_version(ws, &row, &content, "rollback", &reason, |tx| {
        if row.is_auto_created {
            tx.execute(
                "UPDATE skills SET approved_sha256 = ?1, needs_review = 0 WHERE id = ?2",
                params![sha256_hex(content.as_bytes()), row.id],
            )?;
        }
        Ok(())
    })
}

/// Records every live SKILL.md changed outside skilldeck as a version (source `edit`), and
/// imports skill folders in the live dir that have no row yet (source `import`, config agent).
/// Files whose size and mtime match the last read are not reread. Returns versions recorded.
pub fn scan_edits(ws: &mut Workspace) -> Result<usize> {
    let mut changed = Vec::new();
    {
        let mut stmt = ws.store.conn().prepare(
            "SELECT id, path, file_mtime_ns, file_size FROM skills
             WHERE status NOT IN ('retired', 'archived')",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path = Path::new(r.get_ref(1)?.as_str()?);
            let stamp = register::file_stamp(&skill_file(path));
            if stamp.0.is_some() && stamp != (r.get(2)?, r.get(3)?) {
                changed.push(r.get::<_, i64>(0)?);
            }
        }
    }
    let mut recorded = 0;
    for id in changed {
        let skill = super::skill_by_id(ws.store.conn(), id)?;
        match scan_one(ws, &skill) {
            Ok(added) => recorded += usize::from(added),
            // One unreadable file must not stop every sweep: note it on the skill's timeline
            // and remember its stamp, so it is looked at again only once it changes.
            Err(e) => {
                let conn = ws.store.conn();
                add_event(conn, id, &now_rfc3339(), "scan_error", None, None, &format!("{e:#}"))?;
                let (mtime, size) = register::file_stamp(&skill_file(Path::new(&skill.path)));
                conn.execute(
                    "UPDATE skills SET file_mtime_ns = ?1, file_size = ?2 WHERE id = ?3",
                    params![mtime, size, id],
                )?;
            }
        }
    }
    let folders = live_folders(&ws.paths.skills_dir)?;
    if folders.is_empty() {
        return Ok(recorded);
    }
    let known: HashSet<String> = all_skills(ws.store.conn())?.into_iter().map(|s| s.path).collect();
    let agent = ws.config.agent_id.clone();
    for name in folders {
        let path = ws.paths.skills_dir.join(&name);
        let known_name = super::find_skill(ws.store.conn(), &agent, &name)?.is_some();
        // A folder that cannot be imported (unreadable SKILL.md) is left for the next sweep;
        // `record NAME` on it reports the reason.
        if !known_name
            && !known.contains(path.to_string_lossy().as_ref())
            && import_live(ws, &agent, &name).is_ok()
        {
            recorded += 1;
        }
    }
    Ok(recorded)
}

/// Records the live file of `skill` as an `edit` version if its bytes differ from the newest
/// version. An approved auto-draft whose bytes no longer match its approval goes back to review
/// when `review_on_edit` is on. Returns whether a version was added.
pub(crate) fn scan_one(ws: &mut Workspace, skill: &SkillRow) -> Result<bool> {
    let file = skill_file(Path::new(&skill.path));
    let bytes = match crate::fsio::read_skill_md(&file) {
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
        add_version(&tx, skill, &content, "edit", "changed outside skilldeck")?;
        let unbound = skill.is_auto_created
            && review_on_edit
            && !skill.needs_review
            && skill.approved_sha256.as_deref().is_some_and(|a| a != sha);
        if unbound {
            tx.execute("UPDATE skills SET needs_review = 1 WHERE id = ?1", [skill.id])?;
            let reason = "bytes differ from the approved version; approve again to clear";
            add_event(&tx, skill.id, &now_rfc3339(), "needs_review", None, None, reason)?;
        }
    } else {
        // Same bytes (first look at a row created elsewhere, or a touched file): remember the
        // stamp, and the trigger phrases `suggest` reads.
        let (mtime, size) = register::file_stamp(&file);
        let triggers = serde_json::to_string(&files::front_matter(&content).triggers)?;
        tx.execute(
            "UPDATE skills SET file_mtime_ns = ?1, file_size = ?2, triggers = ?3 WHERE id = ?4",
            params![mtime, size, triggers, skill.id],
        )?;
    }
    tx.commit()?;
    Ok(changed)
}

/// Registers an existing live folder `<skills_dir>/<name>` (source `import`, not auto-created).
pub(crate) fn import_live(ws: &mut Workspace, agent: &str, name: &str) -> Result<i64> {
    let folder = ws.paths.skills_dir.join(name);
    let file = skill_file(&folder);
    let content = crate::fsio::read_skill_md_text(&file).with_context(|| {
        format!("no skill named {name:?} for agent {agent:?} and no readable {}", file.display())
    })?;
    register::insert(ws, agent, name, &folder, &content, "import", false, None)
}

fn live_folders(dir: &Path) -> Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && skill_file(&entry.path()).is_file() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}
