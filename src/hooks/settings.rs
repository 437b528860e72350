//! Hook entries in a JSON settings file: Claude Code's `settings.json` and Codex's `hooks.json`
//! share the shape `{"hooks": {EVENT: [{"matcher"?: …, "hooks": [{"type": "command", "command": …}]}]}}`.
//!
//! The file is parsed with key order kept and written back with the indent it had, so a file that
//! was pretty-printed the usual way (two spaces, or a tab) comes back byte for byte apart from what
//! was added. Removing takes out exactly the groups skilldeck added, and the `hooks` object or event
//! arrays when they are left empty, so an install followed by an uninstall restores the bytes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::lifecycle::files::atomic_write;

/// What skilldeck's command hooks are recognised by: their command runs `… ingest --hook`
/// with a program named `skilldeck` (a user's `skilldeck-notify ingest --hook` is not ours).
pub fn is_ours(command: &str) -> bool {
    let Some(rest) = command.trim_end().strip_suffix("ingest --hook") else { return false };
    let rest = rest.trim_start();
    let program = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].split(q).next().unwrap_or(""),
        _ => rest.split_whitespace().next().unwrap_or(""),
    };
    Path::new(program).file_name().is_some_and(|n| n == "skilldeck" || n == "skilldeck.exe")
}

/// The bytes of the settings file at `path` (`None` when there is none). Anything but a regular
/// file (a FIFO, a device, a folder) is refused before it is opened, so nothing blocks on it.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => bail!(
            "{}: not a regular file ({}); the file was left untouched",
            path.display(),
            crate::fsio::kind_of(&m)
        ),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A settings file read for editing: its parsed object and how it was laid out.
pub struct SettingsFile {
    pub path: PathBuf,
    /// The bytes on disk, `None` when the file does not exist.
    pub original: Option<Vec<u8>>,
    pub root: Map<String, Value>,
    indent: Vec<u8>,
    trailing_newline: bool,
}

/// What an edit did to one file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileChange {
    pub file: PathBuf,
    /// `added`, `removed`, `unchanged`, `refused`.
    pub action: &'static str,
    /// Events touched (`SessionEnd`, `Stop`, `notify`).
    pub events: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl SettingsFile {
    /// Reads `path`; a missing file is an empty object. A file that is not a JSON object is
    /// refused with its line and column, and left untouched.
    pub fn read(path: &Path) -> Result<SettingsFile> {
        let original = read_regular(path)?;
        let bytes = original.as_deref().unwrap_or(b"{}");
        let blank = bytes.iter().all(u8::is_ascii_whitespace);
        let value: Value = if blank {
            Value::Object(Map::new())
        } else {
            serde_json::from_slice(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}:{}: not valid JSON ({e}); the file was left untouched",
                    path.display(),
                    e.line(),
                    e.column()
                )
            })?
        };
        let Value::Object(root) = value else {
            bail!("{}:1: not a JSON object; the file was left untouched", path.display());
        };
        Ok(SettingsFile {
            path: path.to_path_buf(),
            indent: detect_indent(bytes),
            trailing_newline: original.is_none() || bytes.ends_with(b"\n"),
            original,
            root,
        })
    }

    /// The object as this file lays it out.
    pub fn render(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(&self.indent);
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        self.root.serialize(&mut ser)?;
        if self.trailing_newline {
            out.push(b'\n');
        }
        Ok(out)
    }

    /// Whether writing the parsed object back keeps the file's bytes (its layout is the usual one).
    pub fn layout_kept(&self) -> bool {
        match &self.original {
            Some(orig) => self.render().ok().as_deref() == Some(orig.as_slice()),
            None => true,
        }
    }

    /// Writes the object atomically, backing the original up once beside it.
    pub fn write(&self) -> Result<()> {
        write_backed_up(&self.path, self.original.as_deref(), &self.render()?)
    }

    /// Event names whose groups run `command` (ours or not).
    pub fn events_with_ours(&self) -> Vec<String> {
        let Some(Value::Object(hooks)) = self.root.get("hooks") else { return Vec::new() };
        hooks
            .iter()
            .filter(|(_, groups)| groups.as_array().is_some_and(|g| g.iter().any(group_is_ours)))
            .map(|(event, _)| event.clone())
            .collect()
    }

    /// Adds a group running `command` to each event that has none of ours yet, and points ours
    /// that run another command (another path, other options) at `command`; returns the events
    /// added to or updated.
    pub fn add(
        &mut self,
        events: &[&str],
        command: &str,
        timeout_secs: u64,
    ) -> Result<Vec<String>> {
        let hooks = self.root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(hooks) = hooks else {
            bail!("{}: `hooks` is not an object; the file was left untouched", self.path.display());
        };
        let mut added = Vec::new();
        for event in events {
            let groups = hooks.entry(*event).or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(groups) = groups else {
                bail!(
                    "{}: `hooks.{event}` is not an array; the file was left untouched",
                    self.path.display()
                );
            };
            if groups.iter().any(group_is_ours) {
                // One of ours from another path or with other options: made this command.
                let mut updated = false;
                for group in groups.iter_mut() {
                    let Some(Value::Array(entries)) = group.get_mut("hooks") else { continue };
                    for entry in entries.iter_mut().filter(|e| entry_is_ours(e)) {
                        if entry.get("command").and_then(Value::as_str) != Some(command) {
                            entry["command"] = Value::String(command.to_string());
                            updated = true;
                        }
                    }
                }
                if updated {
                    added.push(event.to_string());
                }
                continue;
            }
            groups.push(serde_json::json!({
                "hooks": [{"type": "command", "command": command, "timeout": timeout_secs}]
            }));
            added.push(event.to_string());
        }
        Ok(added)
    }

    /// Removes every group skilldeck added (and a hook entry of ours inside a user's group), then
    /// event arrays and the `hooks` object that are left empty. Returns the events removed from.
    pub fn remove_ours(&mut self) -> Vec<String> {
        let Some(Value::Object(hooks)) = self.root.get_mut("hooks") else { return Vec::new() };
        let mut removed = Vec::new();
        for (event, groups) in hooks.iter_mut() {
            let Value::Array(groups) = groups else { continue };
            let before = serde_json::to_string(groups).unwrap_or_default();
            groups.retain(|g| !group_is_ours(g) || !only_ours(g));
            for group in groups.iter_mut() {
                if let Some(Value::Array(entries)) = group.get_mut("hooks") {
                    entries.retain(|e| !entry_is_ours(e));
                }
            }
            if serde_json::to_string(groups).unwrap_or_default() != before {
                removed.push(event.clone());
            }
        }
        hooks.retain(|event, groups| {
            !(removed.contains(event) && groups.as_array().is_some_and(Vec::is_empty))
        });
        if hooks.is_empty() && !removed.is_empty() {
            self.root.shift_remove("hooks");
        }
        removed
    }
}

/// Writes `bytes` to `path` atomically, first copying `original` (the bytes on disk, if any) to
/// `<file>.skilldeck-backup` with the file's mode unless a backup already exists. A link is
/// written through (the file it points to changes, the link stays), and a file that changed
/// since it was read (a save the user made meanwhile) is left alone with an error.
pub fn write_backed_up(path: &Path, original: Option<&[u8]>, bytes: &[u8]) -> Result<()> {
    let is_link = path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link && path.exists() {
        std::fs::canonicalize(path).with_context(|| format!("following {}", path.display()))?
    } else {
        path.to_path_buf()
    };
    if read_regular(&target)?.as_deref() != original {
        bail!(
            "{} changed while skilldeck was editing it; nothing was written: run the command again",
            path.display()
        );
    }
    if let Some(orig) = original {
        let backup = backup_path(path);
        if !backup.exists() {
            write_new_like(&backup, orig, &target)
                .with_context(|| format!("backing up to {}", backup.display()))?;
        }
    }
    atomic_write(&target, bytes)
}

/// Creates `path` holding `bytes`, with the permissions of `like`.
fn write_new_like(path: &Path, bytes: &[u8], like: &Path) -> Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Ok(m) = std::fs::metadata(like) {
        options.mode(m.permissions().mode() & 0o7777);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(())
}

pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".skilldeck-backup");
    path.with_file_name(name)
}

fn entry_is_ours(entry: &Value) -> bool {
    entry.get("command").and_then(Value::as_str).is_some_and(is_ours)
}

fn group_is_ours(group: &Value) -> bool {
    group.get("hooks").and_then(Value::as_array).is_some_and(|e| e.iter().any(entry_is_ours))
}

/// A group holding nothing but our entries (and no matcher a user wrote).
fn only_ours(group: &Value) -> bool {
    let keys_ok = group.as_object().is_some_and(|o| o.keys().all(|k| k == "hooks"));
    keys_ok
        && group.get("hooks").and_then(Value::as_array).is_some_and(|e| e.iter().all(entry_is_ours))
}

/// The indent of the first indented line (spaces or tabs); two spaces when there is none.
fn detect_indent(bytes: &[u8]) -> Vec<u8> {
    for line in bytes.split(|&b| b == b'\n').skip(1) {
        let n = line.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        if n > 0 && n < line.len() {
            return line[..n].to_vec();
        }
    }
    b"  ".to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_skilldeck_ingest_hooks() {
        assert!(is_ours("/usr/local/bin/skilldeck ingest --hook"));
        assert!(is_ours("'/home/a b/skilldeck' --db /x/db ingest --hook"));
        assert!(!is_ours("python3 hook.py ingest --hook"));
        assert!(!is_ours("skilldeck ingest"));
    }

    #[test]
    fn indent_is_detected() {
        assert_eq!(detect_indent(b"{\n    \"a\": 1\n}\n"), b"    ");
        assert_eq!(detect_indent(b"{\n\t\"a\": 1\n}"), b"\t");
        assert_eq!(detect_indent(b"{}"), b"  ");
    }
}
