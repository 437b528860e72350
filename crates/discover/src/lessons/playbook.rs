//! Where approved lessons reach the agent: a playbook skill folder in the live skills folder
//! (`<skills_dir>/<lessons.playbook_name>/SKILL.md`), and managed blocks in projects'
//! CLAUDE.md / AGENTS.md. Only the text between this workspace's markers is skilldeck's
//! (`text::managed`): everything outside is kept byte for byte, a rewrite with nothing new
//! changes no byte, and uninstalling removes exactly what installing added. Every write is
//! atomic, goes through a link to the file it names (a project's file only when the link stays
//! inside the project), and is re-read before its rename so a
//! person's edit meanwhile is never overwritten. A decision marks the files pending before it
//! changes the database; a process killed before the files follow leaves the mark, and the next
//! command ([`recover`]) writes them and clears the temporary files it left.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::Connection;

use super::{Lesson, LessonStatus, db, retention};
use crate::fsio;
use crate::store;
use crate::text::{managed, managed::Markers, safe};
use crate::workspace::Workspace;

const PREFIX: &str = "skilldeck:lessons";
const NOTE: &str = "written by skilldeck; edit outside these markers";
/// `meta` key: JSON array of the project folders `lessons install` put a block in.
const PROJECTS: &str = "lessons.projects";
/// `meta` key: this workspace's id in its markers, so two workspaces keep two blocks.
const BLOCK_ID: &str = "lessons.block_id";
/// `meta` key: JSON array of the instruction files `lessons install` created (removed again by
/// uninstall when the block is all they hold; a file the person had, even empty, is kept).
const CREATED: &str = "lessons.created";
/// `meta` key: the pid of a decision whose playbook and blocks are not written yet.
const PENDING: &str = "lessons.pending";
/// Instruction files a managed block goes in, the first existing one (CLAUDE.md when none).
const INSTRUCTION_FILES: &[&str] = &["CLAUDE.md", "AGENTS.md"];
/// The largest instruction file (or playbook) rewritten: 4 MiB.
pub const FILE_CAP: u64 = 4 << 20;
/// Rewrites tried when the file keeps changing between read and rename.
const ATTEMPTS: usize = 5;

pub use db::live_stamp;

/// What a rewrite touched.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Written {
    pub files_changed: Vec<PathBuf>,
    pub files_unchanged: Vec<PathBuf>,
    /// Projects whose block could not be written, with why (the others still are).
    pub problems: Vec<String>,
}

impl Written {
    pub fn changed(&self) -> bool {
        !self.files_changed.is_empty()
    }
}

/// This workspace's markers (its id made at the first block written).
pub fn markers(conn: &Connection) -> Result<Markers> {
    let id = match store::meta_get(conn, BLOCK_ID)? {
        Some(id) => id,
        None => {
            let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
            store::meta_set(conn, BLOCK_ID, &id)?;
            id
        }
    };
    Ok(Markers::new(PREFIX, &id, NOTE))
}

/// The lessons the playbook holds now, in order (the cap and trim order of `retention`).
pub fn selected(ws: &Workspace) -> Result<Vec<Lesson>> {
    let cfg = &ws.config.lessons;
    let live = db::list(ws.store.conn(), &[LessonStatus::Approved, LessonStatus::Pinned], cfg)?;
    Ok(retention::playbook_order(live, cfg.max))
}

/// The markdown between the markers.
pub fn body(lessons: &[Lesson]) -> String {
    let mut out = String::new();
    if lessons.is_empty() {
        out.push_str("No approved lessons yet.\n");
    }
    for l in lessons {
        let line = |t: &str| safe::inline(t).replace('\n', " ");
        out.push_str(&format!("\n### When {}\n", line(&l.trigger)));
        if !l.anti_pattern.is_empty() {
            out.push_str(&format!("- Avoid: {}\n", line(&l.anti_pattern)));
        }
        out.push_str(&format!("- Do: {}\n", line(&l.correct_pattern)));
    }
    out
}

/// A new SKILL.md for the playbook folder.
fn new_skill_md(name: &str, block: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Lessons learnt from what the user had to correct and from \
         failures fixed the same way in past sessions. Use when about to run the commands or do \
         the tasks they name, to avoid repeating a corrected mistake.\n---\n\n# Lessons\n\nEach lesson says \
         when it applies, what to avoid and what to do instead. A person reviewed every one.\n\n\
         {block}\n"
    )
}

/// A file a block is written in, as read: the file the path names (links followed) and its text
/// (`None`: no file yet).
struct PlaybookFile {
    real: PathBuf,
    text: Option<String>,
}

/// Reads `path` for a rewrite: a link is followed (a dangling one is refused, not replaced), and
/// only a regular file of at most [`FILE_CAP`] bytes of UTF-8 is read.
fn open_target(path: &Path) -> Result<PlaybookFile> {
    let real = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(PlaybookFile { real: path.to_path_buf(), text: None });
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => bail!(
                "{} is a link to {}, which does not exist: skilldeck writes through links, not \
                 over them; create the file or remove the link",
                path.display(),
                std::fs::read_link(path).unwrap_or_default().display()
            ),
        },
        Ok(_) => path.to_path_buf(),
    };
    let text = read_regular(path, &real)?;
    Ok(PlaybookFile { real, text: Some(text) })
}

fn read_regular(shown: &Path, real: &Path) -> Result<String> {
    let meta = std::fs::metadata(real).with_context(|| format!("reading {}", shown.display()))?;
    if !meta.is_file() {
        bail!(
            "{} is {}, not a regular file: no lessons block is written there",
            shown.display(),
            fsio::kind_of(&meta)
        );
    }
    let file = fsio::open_regular(real).with_context(|| format!("reading {}", shown.display()))?;
    let mut bytes = Vec::new();
    file.take(FILE_CAP + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", shown.display()))?;
    if bytes.len() as u64 > FILE_CAP {
        bail!(
            "{} is larger than {} MiB, the cap for a file holding the lessons block",
            shown.display(),
            FILE_CAP >> 20
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8 text", shown.display()))
}

/// What a rewrite does with a file's text.
enum Change {
    Keep,
    Write(String),
    Remove,
}

/// Rewrites `path` with `edit` (given the text, `None` for no file). The file is re-read right
/// before the rename: when someone wrote it meanwhile the edit is redone on their text. Returns
/// the file written (links followed) and whether its bytes changed.
fn rewrite(
    path: &Path,
    edit: &mut dyn FnMut(&Path, Option<&str>) -> Result<Change>,
) -> Result<(PathBuf, bool)> {
    for _ in 0..ATTEMPTS {
        let t = open_target(path)?;
        let unchanged = || -> Result<bool> {
            Ok(match &t.text {
                None => !t.real.exists(),
                Some(old) => read_regular(path, &t.real).is_ok_and(|now| &now == old),
            })
        };
        match edit(&t.real, t.text.as_deref())? {
            Change::Keep => return Ok((t.real, false)),
            Change::Write(new) if t.text.as_deref() == Some(new.as_str()) => {
                return Ok((t.real, false));
            }
            Change::Write(new) => {
                if fsio::atomic_write_checked(&t.real, new.as_bytes(), &unchanged)? {
                    return Ok((t.real, true));
                }
            }
            Change::Remove => {
                if unchanged()? {
                    std::fs::remove_file(&t.real)
                        .with_context(|| format!("removing {}", path.display()))?;
                    return Ok((t.real, true));
                }
            }
        }
    }
    bail!("{} kept changing while its lessons block was rewritten; try again", path.display())
}

/// `path` with its block set to `body` (appended when it has none).
fn put_block(path: &Path, m: &Markers, body: &str) -> Result<(PathBuf, bool)> {
    rewrite(path, &mut |_, text| {
        let text = text.unwrap_or("");
        let new = managed::with_block(text, m, body).map_err(|e| located(path, e))?;
        Ok(Change::Write(new))
    })
}

fn located(path: &Path, e: String) -> anyhow::Error {
    anyhow::anyhow!("{}: {e}", path.display())
}

pub fn skill_md_path(ws: &Workspace) -> PathBuf {
    ws.paths.skills_dir.join(&ws.config.lessons.playbook_name).join("SKILL.md")
}

/// Rewrites the playbook SKILL.md (created at the first live lesson) and every installed
/// project's block. A project whose folder is gone, or whose file cannot take a block (a FIFO, a
/// folder, unmatched markers), is reported in `problems` and skipped; the others are written.
pub fn write_all(ws: &Workspace) -> Result<Written> {
    let lessons = selected(ws)?;
    let body = body(&lessons);
    let m = markers(ws.store.conn())?;
    let mut written = Written::default();
    let path = skill_md_path(ws);
    let name = ws.config.lessons.playbook_name.clone();
    let empty = lessons.is_empty();
    let (file, changed) = rewrite(&path, &mut |_, text| {
        Ok(match text {
            Some(t) => {
                Change::Write(managed::with_block(t, &m, &body).map_err(|e| located(&path, e))?)
            }
            None if empty => Change::Keep,
            None => Change::Write(new_skill_md(&name, &managed::render(&m, &body, "\n"))),
        })
    })?;
    if changed || file.exists() {
        note(&mut written, &path, changed);
    }
    fsio::fault("lessons-skill");
    let mut projects = installed(ws.store.conn())?;
    if ws.config.lessons.managed_block {
        for p in lesson_projects(&lessons) {
            if !projects.contains(&p) && p.is_dir() {
                projects.push(p);
            }
        }
    }
    for dir in projects {
        if !dir.is_dir() {
            written.problems.push(format!(
                "{} is not a folder any more: its lessons block is not written (`lessons \
                 uninstall --project` it to stop)",
                dir.display()
            ));
            continue;
        }
        let put = instruction_file(&dir, &m).and_then(|file| {
            let (_, changed) = put_block(&file, &m, &body)?;
            Ok((file, changed))
        });
        match put {
            Ok((file, changed)) => note(&mut written, &file, changed),
            Err(e) => written.problems.push(format!("{e:#}")),
        }
        fsio::fault("lessons-block");
    }
    Ok(written)
}

fn note(w: &mut Written, path: &Path, changed: bool) {
    if changed {
        w.files_changed.push(path.to_path_buf());
    } else {
        w.files_unchanged.push(path.to_path_buf());
    }
}

fn lesson_projects(lessons: &[Lesson]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = lessons
        .iter()
        .flat_map(|l| l.evidence.iter().filter_map(|e| e.project.clone()))
        .map(PathBuf::from)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The file DIR's block goes in: the one holding it already, else the first instruction file
/// that exists, else CLAUDE.md.
fn instruction_file(dir: &Path, m: &Markers) -> Result<PathBuf> {
    let mut first = None;
    for f in INSTRUCTION_FILES {
        let path = dir.join(f);
        link_inside(dir, &path)?;
        let t = open_target(&path)?;
        let Some(text) = t.text else { continue };
        if managed::find(&text, m).map_err(|e| located(&path, e))?.is_some() {
            return Ok(path);
        }
        first.get_or_insert(path);
    }
    Ok(first.unwrap_or_else(|| dir.join(INSTRUCTION_FILES[0])))
}

fn paths_meta(conn: &Connection, key: &str) -> Result<Vec<PathBuf>> {
    let raw = store::meta_get(conn, key)?.unwrap_or_else(|| "[]".into());
    serde_json::from_str(&raw).with_context(|| format!("reading {key}"))
}

fn set_paths_meta(conn: &Connection, key: &str, paths: &[PathBuf]) -> Result<()> {
    store::meta_set(conn, key, &serde_json::to_string(paths)?)
}

pub fn installed(conn: &Connection) -> Result<Vec<PathBuf>> {
    paths_meta(conn, PROJECTS)
}

/// `lessons install --project DIR`: a managed block in DIR's CLAUDE.md (or AGENTS.md), kept
/// up to date from now on. The file is checked and written before the project is recorded, so
/// one that cannot take a block is never rewritten later. Returns the file.
pub fn install(ws: &Workspace, dir: &Path) -> Result<PathBuf> {
    let dir =
        std::fs::canonicalize(dir).with_context(|| format!("{}: no such folder", dir.display()))?;
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let conn = ws.store.conn();
    let m = markers(conn)?;
    let file = instruction_file(&dir, &m)?;
    let body = body(&selected(ws)?);
    mark_pending(conn)?;
    let mut created = None;
    rewrite(&file, &mut |real, text| {
        created = text.is_none().then(|| real.to_path_buf());
        let new =
            managed::with_block(text.unwrap_or(""), &m, &body).map_err(|e| located(&file, e))?;
        Ok(Change::Write(new))
    })?;
    if let Some(real) = created {
        let mut all = paths_meta(conn, CREATED)?;
        if !all.contains(&real) {
            all.push(real);
            set_paths_meta(conn, CREATED, &all)?;
        }
    }
    let mut dirs = installed(conn)?;
    if !dirs.contains(&dir) {
        dirs.push(dir.clone());
        set_paths_meta(conn, PROJECTS, &dirs)?;
    }
    clear_pending(conn)?;
    Ok(file)
}

/// Refuses an instruction file that is a link to a file outside the project `dir`: a project's
/// CLAUDE.md is written through a link only when the link stays in the project.
fn link_inside(dir: &Path, path: &Path) -> Result<()> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(());
    }
    let Ok(real) = std::fs::canonicalize(path) else { return Ok(()) }; // dangling: open_target says
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !real.starts_with(&root) {
        bail!(
            "{} is a link to {}, outside the project: skilldeck writes a lessons block only in \
             the project's own files; replace the link with a file, or link to one inside {}",
            path.display(),
            real.display(),
            root.display()
        );
    }
    Ok(())
}

/// `lessons uninstall --project DIR`: removes exactly this workspace's block from each of DIR's
/// instruction files; each file is otherwise as it was (and removed when the block was all it
/// held and install created it). Returns the files that had a block.
pub fn uninstall(ws: &Workspace, dir: &Path) -> Result<Vec<PathBuf>> {
    let dir =
        std::fs::canonicalize(dir).with_context(|| format!("{}: no such folder", dir.display()))?;
    let conn = ws.store.conn();
    let m = markers(conn)?;
    let mut created = paths_meta(conn, CREATED)?;
    let mut out = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    mark_pending(conn)?;
    for f in INSTRUCTION_FILES {
        let file = dir.join(f);
        link_inside(&dir, &file)?;
        let mut had = false;
        let (real, _) = rewrite(&file, &mut |real, text| {
            if seen.iter().any(|s| s == real) {
                return Ok(Change::Keep);
            }
            let Some(rest) =
                managed::without_block(text.unwrap_or(""), &m).map_err(|e| located(&file, e))?
            else {
                return Ok(Change::Keep);
            };
            had = true;
            Ok(if rest.is_empty() && created.iter().any(|c| c == real) {
                Change::Remove
            } else {
                Change::Write(rest)
            })
        })?;
        if had {
            created.retain(|c| c != &real);
            out.push(file);
        }
        seen.push(real);
    }
    set_paths_meta(conn, CREATED, &created)?;
    let mut dirs = installed(conn)?;
    dirs.retain(|d| d != &dir);
    set_paths_meta(conn, PROJECTS, &dirs)?;
    clear_pending(conn)?;
    Ok(out)
}

/// Marks the playbook and blocks as behind the database; call before a decision changes it.
pub fn mark_pending(conn: &Connection) -> Result<()> {
    store::meta_set(conn, PENDING, &std::process::id().to_string())
}

fn clear_pending(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM meta WHERE key = ?1", [PENDING])?;
    Ok(())
}

/// After a decision: the playbook and every block follow the database, then the mark is cleared.
pub fn follow(ws: &Workspace) -> Result<Written> {
    fsio::fault("lessons-db");
    let written = write_all(ws)?;
    clear_pending(ws.store.conn())?;
    Ok(written)
}

/// Run first by every command: a decision whose process died before its files followed it has
/// them written now, and the temporary files its writes left are removed. True when it did.
pub fn recover(ws: &Workspace) -> Result<bool> {
    let Some(pid) = store::meta_get(ws.store.conn(), PENDING)? else { return Ok(false) };
    if let Ok(pid) = pid.parse::<u32>()
        && (pid == std::process::id() || fsio::pid_alive(pid))
    {
        return Ok(false);
    }
    let mut files = vec![skill_md_path(ws)];
    for dir in installed(ws.store.conn())? {
        files.extend(INSTRUCTION_FILES.iter().map(|f| dir.join(f)));
    }
    for file in files {
        clear_temp(&std::fs::canonicalize(&file).unwrap_or(file));
    }
    follow(ws)?;
    Ok(true)
}

/// Removes the temporary files (`.NAME.*.tmp`) an atomic write of `file` left beside it.
fn clear_temp(file: &Path) {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else { return };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with(&prefix) && n.ends_with(".tmp") && e.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_between_read_and_rename_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("CLAUDE.md");
        std::fs::write(&file, "# P\n").unwrap();
        let m = Markers::new(PREFIX, "t", NOTE);
        let mut calls = 0;
        rewrite(&file, &mut |_, text| {
            calls += 1;
            if calls == 1 {
                // Another writer appends after the read, before the rename.
                std::fs::write(&file, "# P\nmine\n").unwrap();
            }
            Ok(Change::Write(managed::with_block(text.unwrap(), &m, "b\n").unwrap()))
        })
        .unwrap();
        let now = std::fs::read_to_string(&file).unwrap();
        assert!(now.starts_with("# P\nmine\n"), "{now}");
        assert_eq!(calls, 2);
    }
}
