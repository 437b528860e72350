//! Creating a live skill: folder + `skills` row + version 1, as one step.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Transaction, params};

use super::files::{self, atomic_write, sha256_hex, skill_file};
use super::{add_event, tally};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// Writes `<skills_dir>/<name>/SKILL.md`, inserts the `skills` row and its version 1 (with
/// `source`, e.g. `promote` or `import`), and links earlier invocations that named it. Returns the
/// skill id. An auto-created skill's approval is bound to these bytes (`approved_sha256`).
/// If the database step fails, the new folder is removed again.
pub fn register_skill(
    ws: &mut Workspace,
    agent: &str,
    name: &str,
    content: &str,
    source: &str,
    is_auto_created: bool,
    tool_sequence: Option<&str>,
) -> Result<i64> {
    check_name(name)?;
    let folder = ws.paths.skills_dir.join(name);
    if folder.exists() {
        bail!("{} already exists; choose another name or import it", folder.display());
    }
    atomic_write(&skill_file(&folder), content.as_bytes())?;
    match insert(ws, agent, name, &folder, content, source, is_auto_created, tool_sequence) {
        Ok(id) => Ok(id),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&folder);
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn insert(
    ws: &mut Workspace,
    agent: &str,
    name: &str,
    folder: &Path,
    content: &str,
    source: &str,
    is_auto_created: bool,
    tool_sequence: Option<&str>,
) -> Result<i64> {
    let tx = ws.store.conn_mut().transaction()?;
    let new = NewSkill {
        agent,
        name,
        folder,
        content,
        source,
        is_auto_created,
        tool_sequence,
        scope: "account",
    };
    let id = insert_in(&tx, &new, "registered", &format!("version 1 ({source})"))?;
    tx.commit()?;
    Ok(id)
}

/// A live skill about to be recorded: its folder already holds `content` as SKILL.md.
pub struct NewSkill<'a> {
    pub agent: &'a str,
    pub name: &'a str,
    pub folder: &'a Path,
    pub content: &'a str,
    /// Where version 1 came from: `promote`, `import`, ...
    pub source: &'a str,
    pub is_auto_created: bool,
    pub tool_sequence: Option<&'a str>,
    /// `account` (the live skills folder) or `workspace` (a project's folder).
    pub scope: &'a str,
}

/// Records `new` inside the caller's transaction: the `skills` row, version 1 with its sha256,
/// an event of `kind`, and links earlier invocations that named it. An auto-created skill's
/// approval is bound to these bytes (`approved_sha256`).
pub fn insert_in(tx: &Transaction, new: &NewSkill, kind: &str, reason: &str) -> Result<i64> {
    let now = now_rfc3339();
    let sha = sha256_hex(new.content.as_bytes());
    let fm = files::front_matter(new.content);
    let (mtime, size) = file_stamp(&skill_file(new.folder));
    tx.execute(
        "INSERT INTO skills(agent_id, name, description, path, status, version, is_auto_created,
             tool_sequence, approved_sha256, triggers, file_mtime_ns, file_size, created_at, updated_at,
             scope)
         VALUES (?1, ?2, ?3, ?4, 'healthy', 1, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12)",
        params![
            new.agent,
            new.name,
            fm.description,
            new.folder.to_string_lossy(),
            new.is_auto_created,
            new.tool_sequence,
            new.is_auto_created.then_some(&sha),
            serde_json::to_string(&fm.triggers)?,
            mtime,
            size,
            now,
            new.scope
        ],
    )
    .with_context(|| format!("registering skill {:?} for agent {:?}", new.name, new.agent))?;
    let id = tx.last_insert_rowid();
    super::versions::insert_version_row(tx, id, 1, new.content, new.source)?;
    add_event(tx, id, &now, kind, None, Some("healthy"), reason)?;
    tally::link_invocations(tx)?;
    Ok(id)
}

/// A SKILL.md's modification time (ns) and size, to notice edits without rereading every file.
pub(crate) fn file_stamp(path: &Path) -> (Option<i64>, Option<i64>) {
    match std::fs::metadata(path) {
        Ok(m) => {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
            (mtime, i64::try_from(m.len()).ok())
        }
        Err(_) => (None, None),
    }
}

/// Skill names become folder names: refuse anything that could escape the skills dir.
fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && !name.starts_with('.');
    if !ok {
        bail!("invalid skill name {name:?}: use letters, digits, '-', '_' or '.' (at most 64)");
    }
    Ok(())
}

/// Where a skill of `agent` lives when retired or archived: `<dir>/<agent>/<name>`.
pub(crate) fn parked_path(dir: &Path, agent: &str, name: &str) -> PathBuf {
    dir.join(agent).join(name)
}
