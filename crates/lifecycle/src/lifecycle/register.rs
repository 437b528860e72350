//! Creating a skill: the one registration path. Promotion, adoption of folders found on disk,
//! package imports and acquired code skills all record their skill here: the `skills` row,
//! version 1 with its sha256, a timeline event, and earlier invocations that named it linked.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::Connection;

use super::files::{self, skill_file};
use crate::catalog::EventKind;
use crate::catalog::events;
use crate::catalog::{
    NewSkillRow, Scope, SkillStatus, VersionSource, invocations, skills, versions,
};
use crate::fsio;
use crate::journal;
use crate::store::now_rfc3339;
use crate::text::hex::sha256_hex;
use crate::workspace;
use crate::workspace::Workspace;

/// Writes `<skills_dir>/<name>/SKILL.md`, inserts the `skills` row and its version 1 (with
/// `source`, e.g. `promote` or `import`), and links earlier invocations that named it. Returns the
/// skill id. An auto-created skill's approval is bound to these bytes (`approved_sha256`).
/// The folder is staged outside the skills folder and goes in with its rows, all or nothing
/// (`journal::install`): a crash never leaves it to be adopted as hand-made.
pub fn register_skill(
    ws: &mut Workspace,
    agent: &str,
    name: &str,
    content: &str,
    source: VersionSource,
    is_auto_created: bool,
    tool_sequence: Option<&str>,
) -> Result<i64> {
    check_name(name)?;
    let folder = fsio::child(&ws.paths.skills_dir, "skill name", name)?;
    if folder.exists() {
        bail!("{} already exists; choose another name or import it", folder.display());
    }
    let files = vec![(files::SKILL_FILE.to_string(), content.to_string())];
    let staged = fsio::stage(&folder, &files)?;
    journal::install(ws.store.conn_mut(), &staged, &folder, |tx| {
        let new = NewSkill {
            agent,
            name,
            folder: &folder,
            content,
            source,
            is_auto_created,
            tool_sequence,
            ..NewSkill::account()
        };
        insert_in(tx, &new, EventKind::Registered, &format!("version 1 ({source})"))
    })
}

/// The skills folder of each scope: the live folder, and the workspace folder when there is one.
pub fn scope_folders(ws: &Workspace) -> Vec<(Scope, PathBuf)> {
    let mut dirs = vec![(Scope::Account, ws.paths.skills_dir.clone())];
    if let Some(dir) = workspace::workspace_skills_dir(&ws.config) {
        dirs.push((Scope::Workspace, dir));
    }
    dirs
}

/// The one adoption path: registers a skill folder the database does not know yet (namespace
/// `default`, private, not auto-created) with its SKILL.md as version 1, source `adopt`, so a
/// hand-made skill takes part in resolution, shadowing, scoring and edit tracking. A folder
/// already known by its path, or by its name in the default namespace of `scope`, is left alone
/// (`Ok(None)`).
pub fn adopt_folder(
    conn: &Connection,
    agent: &str,
    folder: &Path,
    scope: Scope,
) -> Result<Option<i64>> {
    let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let path = folder.to_string_lossy();
    if skills::knows_folder(conn, agent, &name, scope, &path)? {
        return Ok(None);
    }
    let file = skill_file(folder);
    let content =
        fsio::read_skill_md_text(&file).with_context(|| format!("reading {}", file.display()))?;
    let new = NewSkill {
        agent,
        name: &name,
        folder,
        content: &content,
        source: VersionSource::Adopt,
        scope,
        ..NewSkill::account()
    };
    let reason = format!("found in the {scope} skills folder");
    Ok(Some(insert_in(conn, &new, EventKind::Adopted, &reason)?))
}

/// Adopts every unknown skill folder (a folder with a SKILL.md, not hidden) of the given scopes.
/// `strict`: the first folder that cannot be read is an error; otherwise it is left for the
/// next run (`record NAME` on it reports the reason). Returns how many were adopted.
pub fn adopt_folders(
    ws: &mut Workspace,
    agent: &str,
    scopes: &[Scope],
    strict: bool,
) -> Result<usize> {
    let dirs: Vec<(String, Scope, PathBuf)> = scope_folders(ws)
        .into_iter()
        .filter(|(s, _)| scopes.contains(s))
        .map(|(s, d)| (agent.to_string(), s, d))
        .collect();
    adopt_in(ws, &dirs, strict, false)
}

/// Every skills folder an agent loads: the configured agent's scopes, and Codex's folders as the
/// account scope of the Codex agent.
pub fn agent_folders(ws: &Workspace) -> Vec<(String, Scope, PathBuf)> {
    let agent = &ws.config.agent_id;
    let mut out: Vec<(String, Scope, PathBuf)> =
        scope_folders(ws).into_iter().map(|(s, d)| (agent.clone(), s, d)).collect();
    for dir in &ws.codex_skills_dirs {
        out.push((ws.config.codex.agent_id.clone(), Scope::Account, dir.clone()));
    }
    out
}

/// Whether `reconcile` would adopt anything: a loadable skill folder the database does not know.
/// Reads only, so a read-only command can ask before it opens the database for writing.
pub fn has_unknown_folders(ws: &Workspace) -> Result<bool> {
    let conn = ws.store.conn();
    for (agent, scope, dir) in agent_folders(ws) {
        for folder in skill_folders(&dir).unwrap_or_default() {
            let name = folder.file_name().map(|n| n.to_string_lossy().into_owned());
            let path = folder.to_string_lossy();
            if !skills::knows_folder(conn, &agent, &name.unwrap_or_default(), scope, &path)?
                && loadable(&folder)
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn loadable(folder: &Path) -> bool {
    std::fs::read_to_string(skill_file(folder))
        .is_ok_and(|text| files::front_matter(&text).description.is_some_and(|d| !d.is_empty()))
}

pub(super) fn adopt_in(
    ws: &mut Workspace,
    dirs: &[(String, Scope, PathBuf)],
    strict: bool,
    loadable_only: bool,
) -> Result<usize> {
    let tx = ws.store.conn_mut().transaction()?;
    let mut added = 0;
    for (agent, scope, dir) in dirs {
        let folders = match skill_folders(dir) {
            Ok(f) => f,
            Err(e) if strict => return Err(e),
            Err(_) => continue,
        };
        for folder in folders {
            if loadable_only {
                let name = folder.file_name().map(|n| n.to_string_lossy().into_owned());
                let path = folder.to_string_lossy();
                let known =
                    skills::knows_folder(&tx, agent, &name.unwrap_or_default(), *scope, &path)?;
                if known || !loadable(&folder) {
                    continue;
                }
            }
            match adopt_folder(&tx, agent, &folder, *scope) {
                Ok(Some(_)) => added += 1,
                Ok(None) => {}
                Err(e) if strict => return Err(e),
                Err(_) => {}
            }
        }
    }
    if added > 0 {
        tx.commit()?;
    }
    Ok(added)
}

/// Skill folders in `dir`: not hidden, holding a SKILL.md, sorted.
pub fn skill_folders(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(e).with_context(|| format!("reading skills folder {}", dir.display()));
        }
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if !hidden && skill_file(&path).is_file() {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// A skill about to be recorded: its folder already holds `content` as SKILL.md.
pub struct NewSkill<'a> {
    pub agent: &'a str,
    pub name: &'a str,
    pub folder: &'a Path,
    pub content: &'a str,
    /// Where version 1 came from.
    pub source: VersionSource,
    pub is_auto_created: bool,
    pub tool_sequence: Option<&'a str>,
    /// The account's live skills folder or a project's folder.
    pub scope: Scope,
    pub namespace: &'a str,
    pub is_public: bool,
    /// The description to store; `None` reads it from the SKILL.md front matter.
    pub description: Option<&'a str>,
}

impl NewSkill<'static> {
    /// The defaults: an account-scope private skill in the `default` namespace.
    pub fn account() -> NewSkill<'static> {
        NewSkill {
            agent: "",
            name: "",
            folder: Path::new(""),
            content: "",
            source: VersionSource::Import,
            is_auto_created: false,
            tool_sequence: None,
            scope: Scope::Account,
            namespace: "default",
            is_public: false,
            description: None,
        }
    }
}

/// Records `new` inside the caller's transaction: the `skills` row, version 1 with its sha256,
/// an event of `kind`, and links earlier invocations that named it. An auto-created skill's
/// approval is bound to these bytes (`approved_sha256`).
pub fn insert_in(conn: &Connection, new: &NewSkill, kind: EventKind, reason: &str) -> Result<i64> {
    let now = now_rfc3339();
    let sha = sha256_hex(new.content.as_bytes());
    let fm = files::front_matter(new.content);
    let (mtime, size) = file_stamp(&skill_file(new.folder));
    let path = new.folder.to_string_lossy();
    let row = NewSkillRow {
        agent: new.agent,
        name: new.name,
        namespace: new.namespace,
        is_public: new.is_public,
        scope: new.scope,
        description: new.description.or(fm.description.as_deref()),
        path: &path,
        is_auto_created: new.is_auto_created,
        tool_sequence: new.tool_sequence,
        approved_sha256: new.is_auto_created.then_some(sha.as_str()),
        triggers: &serde_json::to_string(&fm.triggers)?,
        file_mtime_ns: mtime,
        file_size: size,
        now: &now,
    };
    let id = skills::insert(conn, &row)?;
    versions::insert(conn, id, 1, new.content, new.source)?;
    events::add(conn, id, &now, kind, None, Some(SkillStatus::Healthy), reason)?;
    invocations::link_all(conn)?;
    Ok(id)
}

/// A SKILL.md's modification time (ns) and size, to notice edits without rereading every file.
pub fn file_stamp(path: &Path) -> (Option<i64>, Option<i64>) {
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
pub fn parked_path(dir: &Path, agent: &str, name: &str) -> Result<PathBuf> {
    let agent_dir = fsio::child(dir, "agent id", agent)?;
    let path = fsio::existing_child(&agent_dir, "skill name", name)?;
    fsio::inside(dir, &path)?;
    Ok(path)
}
