//! The Agent Skills spec validator. Errors match the reference validator (`agentskills validate`,
//! PyPI skills-ref 0.1.1) check for check; warnings add what the spec asks for but the reference
//! does not check.

pub mod frontmatter;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Serialize;

use frontmatter::{Entry, Node};

use crate::fsio;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The reference validator rejects the skill for this.
    Error,
    /// The spec advises against it; the skill still validates.
    Warning,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// SKILL.md, or the folder when there is none.
    pub path: PathBuf,
    /// 1-based line in SKILL.md, where one applies.
    pub line: Option<usize>,
    /// Frontmatter field, or `SKILL.md`, `frontmatter`, `body`.
    pub field: String,
    pub reason: String,
    pub severity: Severity,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.line {
            Some(line) => {
                write!(f, "{}:{line}: {sev}: {}: {}", self.path.display(), self.field, self.reason)
            }
            None => write!(f, "{}: {sev}: {}: {}", self.path.display(), self.field, self.reason),
        }
    }
}

const ALLOWED_FIELDS: [&str; 6] =
    ["allowed-tools", "compatibility", "description", "license", "metadata", "name"];
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
const MAX_COMPATIBILITY: usize = 500;
const MAX_BODY_LINES: usize = 500;
/// Nesting of folders-of-skill-folders followed below `dir`.
const MAX_DEPTH: usize = 4;

/// Lints `dir`: a skill folder (holding SKILL.md), a SKILL.md file, or a folder of skill folders
/// (followed down to a few levels). A folder with neither SKILL.md nor subfolders is reported as
/// not a skill folder, as the reference validator does.
pub fn validate_dir(dir: &Path) -> Result<Vec<Problem>> {
    if !dir.exists() {
        bail!("{}: no such file or folder", dir.display());
    }
    let dir = if dir.is_file() && is_skill_md_name(dir) {
        dir.parent().unwrap_or(Path::new("."))
    } else if dir.is_file() {
        bail!("{}: not a folder or a SKILL.md file", dir.display());
    } else {
        dir
    };
    let mut problems = Vec::new();
    for folder in skill_folders(dir)? {
        problems.extend(validate_skill(&folder)?);
    }
    Ok(problems)
}

/// The skill folders `validate_dir` would check, in the order it checks them.
pub fn skill_folders(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    collect(dir, 0, &mut out)?;
    Ok(out)
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
    let subdirs = subfolders(dir)?;
    if find_skill_md(dir).is_some() || subdirs.is_empty() || depth >= MAX_DEPTH {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    for sub in subdirs {
        collect(&sub, depth + 1, out)?;
    }
    Ok(())
}

fn subfolders(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut subs: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot read folder: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    subs.sort();
    Ok(subs)
}

fn is_skill_md_name(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("skill.md"))
}

/// SKILL.md, else skill.md, like the reference.
fn find_skill_md(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"].iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

struct Report<'a> {
    path: &'a Path,
    problems: Vec<Problem>,
}

impl Report<'_> {
    fn push(&mut self, severity: Severity, line: Option<usize>, field: &str, reason: String) {
        self.problems.push(Problem {
            path: self.path.to_path_buf(),
            line,
            field: field.to_string(),
            reason,
            severity,
        });
    }
    fn error(&mut self, line: Option<usize>, field: &str, reason: String) {
        self.push(Severity::Error, line, field, reason);
    }
    fn warn(&mut self, line: Option<usize>, field: &str, reason: String) {
        self.push(Severity::Warning, line, field, reason);
    }
}

/// Checks one skill folder.
pub fn validate_skill(dir: &Path) -> Result<Vec<Problem>> {
    let Some(skill_md) = find_skill_md(dir) else {
        let mut r = Report { path: dir, problems: Vec::new() };
        r.error(None, "SKILL.md", "not a skill folder: Missing required file: SKILL.md".into());
        return Ok(r.problems);
    };
    let mut r = Report { path: &skill_md, problems: Vec::new() };
    // A file that cannot be read (over the cap, not a regular file) is this folder's error; the
    // other folders are still checked.
    let bytes = match fsio::read_skill_md(&skill_md) {
        Ok(bytes) => bytes,
        Err(e) => {
            r.error(None, "SKILL.md", format!("cannot be read: {e}"));
            return Ok(r.problems);
        }
    };
    let content = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count();
            r.error(Some(line), "SKILL.md", format!("not valid UTF-8 (byte {at})"));
            return Ok(r.problems);
        }
    };
    if skill_md.file_name().is_some_and(|n| n == "skill.md") {
        r.warn(None, "SKILL.md", "file is named skill.md; the spec names it SKILL.md".into());
    }
    let parsed = match frontmatter::parse(&content) {
        Ok(p) => p,
        Err(e) => {
            r.error(e.line, "frontmatter", e.reason);
            return Ok(r.problems);
        }
    };
    check_fields(&mut r, &parsed.fields, dir);
    check_body(&mut r, &parsed.body, parsed.body_line);
    Ok(r.problems)
}

fn field<'a>(fields: &'a [Entry], key: &str) -> Option<&'a Entry> {
    fields.iter().find(|e| e.key == key)
}

fn text(node: &Node) -> Option<&str> {
    match node {
        Node::Str(s) => Some(s),
        _ => None,
    }
}

fn check_fields(r: &mut Report, fields: &[Entry], dir: &Path) {
    for e in fields.iter().filter(|e| !ALLOWED_FIELDS.contains(&e.key.as_str())) {
        r.error(
            Some(e.line),
            &e.key,
            format!(
                "Unexpected field in frontmatter: {}. Only {} are allowed; put extra fields under metadata",
                e.key,
                ALLOWED_FIELDS.join(", ")
            ),
        );
    }
    match field(fields, "name") {
        None => r.error(Some(1), "name", "Missing required field in frontmatter: name".into()),
        Some(e) => check_name(r, e, dir),
    }
    match field(fields, "description") {
        None => r.error(
            Some(1),
            "description",
            "Missing required field in frontmatter: description".into(),
        ),
        Some(e) => {
            match text(&e.value).filter(|s| !s.trim().is_empty()) {
                None => r.error(
                    Some(e.line),
                    "description",
                    "Field 'description' must be a non-empty string".into(),
                ),
                Some(d) => {
                    let len = d.chars().count();
                    if len > MAX_DESCRIPTION {
                        r.error(
                        Some(e.line),
                        "description",
                        format!("Description exceeds {MAX_DESCRIPTION} character limit ({len} chars)"),
                    );
                    }
                    if !says_when(d) {
                        r.warn(
                            Some(e.line),
                            "description",
                            "does not say when to use the skill (e.g. \"Use when ...\")".into(),
                        );
                    }
                }
            }
        }
    }
    if let Some(e) = field(fields, "compatibility") {
        match text(&e.value) {
            None => r.error(
                Some(e.line),
                "compatibility",
                "Field 'compatibility' must be a string".into(),
            ),
            Some(c) if c.chars().count() > MAX_COMPATIBILITY => r.error(
                Some(e.line),
                "compatibility",
                format!(
                    "Compatibility exceeds {MAX_COMPATIBILITY} character limit ({} chars)",
                    c.chars().count()
                ),
            ),
            Some(c) if c.trim().is_empty() => r.warn(
                Some(e.line),
                "compatibility",
                "is empty; the spec asks for 1-500 characters".into(),
            ),
            Some(_) => {}
        }
    }
    if let Some(e) = field(fields, "metadata") {
        match &e.value {
            Node::Map(entries) => {
                for m in entries.iter().filter(|m| text(&m.value).is_none()) {
                    r.warn(
                        Some(m.line),
                        "metadata",
                        format!(
                            "value of '{}' is not a string; the spec wants a map of strings",
                            m.key
                        ),
                    );
                }
            }
            Node::Str(s) if s.is_empty() => {}
            _ => r.warn(
                Some(e.line),
                "metadata",
                "should be a map from string keys to string values".into(),
            ),
        }
    }
    for key in ["license", "allowed-tools"] {
        if let Some(e) = field(fields, key)
            && text(&e.value).is_none()
        {
            r.warn(Some(e.line), key, "should be a string".into());
        }
    }
}

fn check_name(r: &mut Report, e: &Entry, dir: &Path) {
    let line = Some(e.line);
    let Some(name) = text(&e.value).map(str::trim).filter(|s| !s.is_empty()) else {
        r.error(line, "name", "Field 'name' must be a non-empty string".into());
        return;
    };
    let len = name.chars().count();
    if len > MAX_NAME {
        r.error(
            line,
            "name",
            format!("Skill name '{name}' exceeds {MAX_NAME} character limit ({len} chars)"),
        );
    }
    if name.to_lowercase() != name {
        r.error(line, "name", format!("Skill name '{name}' must be lowercase"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        r.error(line, "name", "Skill name cannot start or end with a hyphen".into());
    }
    if name.contains("--") {
        r.error(line, "name", "Skill name cannot contain consecutive hyphens".into());
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
        r.error(
            line,
            "name",
            format!("Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens are allowed."),
        );
    } else if !name.is_ascii() {
        r.warn(line, "name", "uses letters outside a-z0-9; some agents accept only those".into());
    }
    let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if folder != name {
        r.error(line, "name", format!("Directory name '{folder}' must match skill name '{name}'"));
    }
}

/// The spec asks a description to say when to use the skill; the reference does not check it.
fn says_when(description: &str) -> bool {
    let lower = description.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    words.iter().any(|w| matches!(*w, "when" | "whenever" | "if" | "trigger" | "triggers"))
        || ["use for", "use to", "use this", "use it", "used for", "used to"]
            .iter()
            .any(|p| lower.contains(p))
}

fn check_body(r: &mut Report, body: &str, body_line: usize) {
    if body.is_empty() {
        r.warn(Some(body_line), "body", "no instructions after the frontmatter".into());
        return;
    }
    let lines = body.lines().count();
    if lines > MAX_BODY_LINES {
        r.warn(
            Some(body_line),
            "body",
            format!("{lines} lines; the spec recommends under {MAX_BODY_LINES} (move detail to references/)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(root: &Path, folder: &str, text: &str) -> PathBuf {
        let dir = root.join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("SKILL.md"), text).unwrap();
        dir
    }

    fn errors(problems: &[Problem]) -> Vec<String> {
        problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| p.reason.clone())
            .collect()
    }

    #[test]
    fn name_rules() {
        let tmp = tempfile::tempdir().unwrap();
        for (name, want) in [
            ("Bad-Name", "must be lowercase"),
            ("-bad", "start or end with a hyphen"),
            ("a--b", "consecutive hyphens"),
            ("a_b", "invalid characters"),
        ] {
            let dir = skill(
                tmp.path(),
                name,
                &format!("---\nname: {name}\ndescription: x. Use when y.\n---\nbody\n"),
            );
            let errs = errors(&validate_dir(&dir).unwrap());
            assert!(errs.iter().any(|e| e.contains(want)), "{name}: {errs:?}");
        }
        let long = "a".repeat(65);
        let dir = skill(
            tmp.path(),
            &long,
            &format!("---\nname: {long}\ndescription: x when y\n---\nb\n"),
        );
        assert!(errors(&validate_dir(&dir).unwrap())[0].contains("64 character limit"));
    }

    #[test]
    fn fields_and_warnings() {
        let tmp = tempfile::tempdir().unwrap();
        let body = "line\n".repeat(501);
        let dir = skill(
            tmp.path(),
            "ok",
            &format!(
                "---\nname: ok\ndescription: Does things.\nversion: 2\nmetadata:\n  a:\n    b: c\n---\n{body}"
            ),
        );
        let problems = validate_dir(&dir).unwrap();
        let version = problems.iter().find(|p| p.field == "version").unwrap();
        assert_eq!((version.severity, version.line), (Severity::Error, Some(4)));
        let warned: Vec<_> = problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .map(|p| p.field.as_str())
            .collect();
        assert_eq!(warned, ["description", "metadata", "body"]);
    }

    #[test]
    fn folder_of_folders_and_non_skill_folders() {
        let tmp = tempfile::tempdir().unwrap();
        skill(tmp.path(), "good", "---\nname: good\ndescription: Use when good.\n---\nb\n");
        fs::create_dir_all(tmp.path().join("_notes")).unwrap();
        let problems = validate_dir(tmp.path()).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].reason.contains("not a skill folder"));
        assert!(problems[0].path.ends_with("_notes"));
    }
}
