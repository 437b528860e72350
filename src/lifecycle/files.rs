//! File helpers: atomic writes, folder moves, content hashes and the SKILL.md front matter.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub const SKILL_FILE: &str = "SKILL.md";

pub use crate::text::hex::sha256_hex;

/// Writes `path` through a temporary file in the same folder and a rename, so a reader sees
/// either the old bytes or the new ones, never half.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("file path without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("replacing {}", path.display()));
    }
    Ok(())
}

/// Moves a skill folder; a missing source is not an error (the row may outlive its folder).
pub fn move_dir(from: &Path, to: &Path) -> Result<()> {
    if !from.exists() {
        return Ok(());
    }
    if to.exists() {
        anyhow::bail!("{} already exists; move or delete it first", to.display());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    // Different file systems: copy, then remove the original.
    copy_dir(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    std::fs::remove_dir_all(from).with_context(|| format!("removing {}", from.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

pub fn skill_file(folder: &Path) -> PathBuf {
    folder.join(SKILL_FILE)
}

/// The parts of a SKILL.md's YAML front matter that skilldeck reads.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `triggers:` list items (top level or under `metadata:`) and a description's "Use when" clause.
    pub triggers: Vec<String>,
}

/// Reads the small YAML subset skill files use: `key: value`, folded `>`/`|` blocks, `- item` lists.
pub fn front_matter(text: &str) -> FrontMatter {
    let mut fm = FrontMatter::default();
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("---") {
        return fm;
    }
    let body: Vec<&str> = lines.take_while(|l| l.trim() != "---").collect();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        i += 1;
        let trimmed = line.trim_start();
        let Some((key, value)) = trimmed.split_once(':') else { continue };
        let key = key.trim();
        let value = value.trim();
        let indent = line.len() - trimmed.len();
        let block = |i: &mut usize| {
            let mut parts = Vec::new();
            while *i < body.len() {
                let l = body[*i];
                let ind = l.len() - l.trim_start().len();
                if !l.trim().is_empty() && ind <= indent {
                    break;
                }
                parts.push(l.trim());
                *i += 1;
            }
            parts
        };
        match key {
            "name" if indent == 0 => fm.name = Some(unquote(value)),
            "description" if indent == 0 => {
                if value.starts_with('>') || value.starts_with('|') || value.is_empty() {
                    let parts = block(&mut i);
                    fm.description = Some(parts.join(" ").trim().to_string());
                } else {
                    fm.description = Some(unquote(value));
                }
            }
            "triggers" => {
                if value.starts_with('[') {
                    let inner = value.trim_start_matches('[').trim_end_matches(']');
                    fm.triggers.extend(inner.split(',').map(unquote).filter(|t| !t.is_empty()));
                } else {
                    for item in block(&mut i) {
                        if let Some(t) = item.strip_prefix("- ") {
                            fm.triggers.push(unquote(t));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(desc) = &fm.description {
        let lower = desc.to_lowercase();
        if let Some(pos) = lower.find("use when") {
            let clause = desc[pos + "use when".len()..].split(['.', ';']).next().unwrap_or("");
            let clause = clause.trim();
            if !clause.is_empty() {
                fm.triggers.push(clause.to_string());
            }
        }
    }
    fm
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s);
    let s = s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).unwrap_or(s);
    s.trim().to_string()
}

/// `text` with its front matter's top-level `name:` set to `name` (a proposed version drafted under
/// a candidate's name must carry the skill's own name, which the spec ties to the folder).
pub fn with_name(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len() + name.len());
    let mut in_front = false;
    let mut done = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if n == 0 && bare.trim() == "---" {
            in_front = true;
        } else if in_front && bare.trim() == "---" {
            in_front = false;
        } else if in_front && !done && bare.starts_with("name:") {
            out.push_str(&format!("name: {name}\n"));
            done = true;
            continue;
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_folded_description_triggers_and_use_when() {
        let fm = front_matter(
            "---\nname: \"pdf-tools\"\ndescription: >\n  Fill PDF forms.\n  Use when the user asks for a form; not otherwise.\nmetadata:\n  triggers:\n    - fill form\n    - sign pdf\n---\nbody\n",
        );
        assert_eq!(fm.name.as_deref(), Some("pdf-tools"));
        assert_eq!(
            fm.description.as_deref(),
            Some("Fill PDF forms. Use when the user asks for a form; not otherwise.")
        );
        assert_eq!(fm.triggers, ["fill form", "sign pdf", "the user asks for a form"]);
    }

    #[test]
    fn renames_only_the_front_matter_name() {
        let text = "---\nname: draft-x\ndescription: d\n---\nname: stays\n";
        assert_eq!(with_name(text, "real"), "---\nname: real\ndescription: d\n---\nname: stays\n");
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/SKILL.md");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path().join("a")).unwrap().count(), 1);
    }
}
