//! Where approved lessons reach the agent: a playbook skill folder in the live skills folder
//! (`<skills_dir>/<lessons.playbook_name>/SKILL.md`), and managed blocks in projects'
//! CLAUDE.md / AGENTS.md. Only the text between the markers is skilldeck's: everything outside
//! is kept byte for byte, a rewrite with nothing new changes no byte, and uninstalling removes
//! exactly what installing added. Every write is atomic.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::Connection;

use super::{Lesson, LessonStatus, db, retention};
use crate::text::safe;
use crate::workspace::Workspace;

pub const BEGIN: &str =
    "<!-- skilldeck:lessons:begin (written by skilldeck; edit outside these markers) -->";
pub const END: &str = "<!-- skilldeck:lessons:end -->";
/// `meta` key: JSON array of the project folders `lessons install` put a block in.
const PROJECTS: &str = "lessons.projects";
/// Instruction files a managed block goes in, the first existing one (CLAUDE.md when none).
const INSTRUCTION_FILES: &[&str] = &["CLAUDE.md", "AGENTS.md"];

pub use db::live_stamp;

/// What a rewrite touched.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Written {
    pub files_changed: Vec<PathBuf>,
    pub files_unchanged: Vec<PathBuf>,
}

impl Written {
    pub fn changed(&self) -> bool {
        !self.files_changed.is_empty()
    }
}

/// The lessons the playbook holds now, in order (the cap and trim order of `retention`).
pub fn selected(ws: &Workspace) -> Result<Vec<Lesson>> {
    let cfg = &ws.config.lessons;
    let live = db::list(ws.store.conn(), &[LessonStatus::Approved, LessonStatus::Pinned], cfg)?;
    Ok(retention::playbook_order(live, cfg.max))
}

/// The markdown between the markers.
pub fn block(lessons: &[Lesson]) -> String {
    let mut out = format!("{BEGIN}\n");
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
    out.push_str(END);
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

/// `text` with its managed block replaced by `block`, or `block` appended after one newline.
pub fn with_block(text: &str, block: &str) -> String {
    if let Some((start, end)) = span(text) {
        return format!("{}{block}{}", &text[..start], &text[end..]);
    }
    if text.is_empty() {
        return format!("{block}\n");
    }
    format!("{text}\n{block}\n")
}

/// `text` without its managed block and the two newlines appending it added.
pub fn without_block(text: &str) -> Option<String> {
    let (start, mut end) = span(text)?;
    if text[end..].starts_with('\n') {
        end += 1;
    }
    let start = if start > 0 && text[..start].ends_with('\n') { start - 1 } else { start };
    Some(format!("{}{}", &text[..start], &text[end..]))
}

fn span(text: &str) -> Option<(usize, usize)> {
    let start = text.find(BEGIN)?;
    let end = start + text[start..].find(END)? + END.len();
    Some((start, end))
}

/// Writes `path` only when its bytes change; true when they did.
fn write_if_changed(path: &Path, text: &str) -> Result<bool> {
    let old = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if old.as_deref() == Some(text.as_bytes()) {
        return Ok(false);
    }
    crate::fsio::atomic_write(path, text.as_bytes())?;
    Ok(true)
}

fn read_text(path: &Path) -> Result<String> {
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).with_context(|| format!("{} is not UTF-8", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

pub fn skill_md_path(ws: &Workspace) -> PathBuf {
    ws.paths.skills_dir.join(&ws.config.lessons.playbook_name).join("SKILL.md")
}

/// Rewrites the playbook SKILL.md (created at the first live lesson) and every installed
/// project's block.
pub fn write_all(ws: &Workspace) -> Result<Written> {
    let lessons = selected(ws)?;
    let block = block(&lessons);
    let mut written = Written::default();
    let path = skill_md_path(ws);
    let text = if path.exists() {
        with_block(&read_text(&path)?, &block)
    } else if lessons.is_empty() {
        String::new()
    } else {
        new_skill_md(&ws.config.lessons.playbook_name, &block)
    };
    if !text.is_empty() {
        note(&mut written, &path, write_if_changed(&path, &text)?);
    }
    let mut projects = installed(ws.store.conn())?;
    if ws.config.lessons.managed_block {
        for p in lesson_projects(&lessons) {
            if !projects.contains(&p) && p.is_dir() {
                projects.push(p);
            }
        }
    }
    for dir in projects {
        let file = instruction_file(&dir);
        let text = with_block(&read_text(&file)?, &block);
        note(&mut written, &file, write_if_changed(&file, &text)?);
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

fn instruction_file(dir: &Path) -> PathBuf {
    INSTRUCTION_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .unwrap_or_else(|| dir.join(INSTRUCTION_FILES[0]))
}

pub fn installed(conn: &Connection) -> Result<Vec<PathBuf>> {
    let raw = crate::store::meta_get(conn, PROJECTS)?.unwrap_or_else(|| "[]".into());
    serde_json::from_str(&raw).context("reading the installed lesson projects")
}

fn set_installed(conn: &Connection, dirs: &[PathBuf]) -> Result<()> {
    crate::store::meta_set(conn, PROJECTS, &serde_json::to_string(dirs)?)
}

/// `lessons install --project DIR`: a managed block in DIR's CLAUDE.md (or AGENTS.md), kept
/// up to date from now on. Returns the file.
pub fn install(ws: &Workspace, dir: &Path) -> Result<PathBuf> {
    let dir =
        std::fs::canonicalize(dir).with_context(|| format!("{}: no such folder", dir.display()))?;
    let mut dirs = installed(ws.store.conn())?;
    if !dirs.contains(&dir) {
        dirs.push(dir.clone());
        set_installed(ws.store.conn(), &dirs)?;
    }
    let file = instruction_file(&dir);
    let text = with_block(&read_text(&file)?, &block(&selected(ws)?));
    write_if_changed(&file, &text)?;
    Ok(file)
}

/// `lessons uninstall --project DIR`: removes exactly the block; the file is otherwise as it
/// was (and removed when the block was all it held). Returns the file, when it had a block.
pub fn uninstall(ws: &Workspace, dir: &Path) -> Result<Option<PathBuf>> {
    let dir =
        std::fs::canonicalize(dir).with_context(|| format!("{}: no such folder", dir.display()))?;
    let mut dirs = installed(ws.store.conn())?;
    dirs.retain(|d| d != &dir);
    set_installed(ws.store.conn(), &dirs)?;
    for f in INSTRUCTION_FILES {
        let file = dir.join(f);
        let text = read_text(&file)?;
        if let Some(rest) = without_block(&text) {
            if rest.is_empty() {
                std::fs::remove_file(&file)
                    .with_context(|| format!("removing {}", file.display()))?;
            } else {
                crate::fsio::atomic_write(&file, rest.as_bytes())?;
            }
            return Ok(Some(file));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_then_uninstall_gives_the_same_bytes() {
        for original in ["", "# Project\n", "# Project\nno newline", "a\n\n\n"] {
            let with = with_block(original, &block(&[]));
            assert_eq!(with_block(&with, &block(&[])), with, "idempotent");
            assert_eq!(without_block(&with).as_deref(), Some(original), "{original:?}");
        }
    }
}
