//! Hook entries in a JSON settings file: Claude Code's `settings.json` and Codex's `hooks.json`
//! share the shape `{"hooks": {EVENT: [{"matcher"?: …, "hooks": [{"type": "command", "command": …}]}]}}`.
//!
//! The file is edited in place (`json_edit`): what is added is spliced into its text in the
//! file's own layout (one line or indented), and every other byte stays, numbers beyond 64 bits
//! included. Removing takes out exactly the groups skilldeck added, and the `hooks` object or
//! event arrays when they are left empty, so an install followed by an uninstall restores the
//! bytes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Map, Value};

use super::json_edit::{self, Node, Style};
use crate::fsio;
use crate::fsio::atomic_write;

/// What skilldeck's command hooks are recognised by: their command runs `… ingest --hook`
/// with a program named `skilldeck`, or the program running now whatever its file name (a
/// build installed as `skilldeck-rel` finds the hooks it wrote). A user's own
/// `skilldeck-notify ingest --hook` is not ours.
pub fn is_ours(command: &str) -> bool {
    program_of(command).is_some_and(|p| is_skilldeck(&p, std::env::current_exe().ok().as_deref()))
}

/// Whether `program` is skilldeck: named so, or the running program `me` (same file name, or
/// the same file reached another way).
fn is_skilldeck(program: &Path, me: Option<&Path>) -> bool {
    let name = program.file_name();
    if name.is_some_and(|n| n == "skilldeck" || n == "skilldeck.exe") {
        return true;
    }
    let Some(me) = me else { return false };
    if name.is_some_and(|n| Some(n) == me.file_name()) {
        return true;
    }
    let same = |p: &Path| std::fs::canonicalize(p).ok();
    program.is_absolute() && same(program).is_some_and(|p| Some(p) == same(me))
}

/// The program a `… ingest --hook` command runs (its first word, unquoted).
pub fn program_of(command: &str) -> Option<PathBuf> {
    let rest = command.trim_end().strip_suffix("ingest --hook")?.trim_start();
    let program = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].split(q).next().unwrap_or(""),
        _ => rest.split_whitespace().next().unwrap_or(""),
    };
    Some(PathBuf::from(program))
}

/// The bytes of the settings file at `path` (`None` when there is none). Anything but a regular
/// file (a FIFO, a device, a folder) is refused before it is opened, so nothing blocks on it.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => bail!(
            "{}: not a regular file ({}); the file was left untouched",
            path.display(),
            fsio::kind_of(&m)
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

/// A settings file read for editing: its parsed object (what the edits mean) and its text (what
/// they change, in place).
pub struct SettingsFile {
    pub path: PathBuf,
    /// The bytes on disk, `None` when the file does not exist.
    pub original: Option<Vec<u8>>,
    pub root: Map<String, Value>,
    text: Vec<u8>,
    style: Style,
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
        let bytes = original.as_deref().unwrap_or(b"{}\n");
        let blank = bytes.iter().all(u8::is_ascii_whitespace);
        let text = if blank { b"{}\n".to_vec() } else { bytes.to_vec() };
        let value: Value = serde_json::from_slice(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}:{}:{}: not valid JSON ({e}); the file was left untouched",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        let Value::Object(root) = value else {
            bail!("{}:1: not a JSON object; the file was left untouched", path.display());
        };
        Ok(SettingsFile {
            path: path.to_path_buf(),
            style: Style::of(&text, detect_indent(&text)),
            text,
            original,
            root,
        })
    }

    /// The text as edited: the file's bytes with only the edits spliced in.
    pub fn render(&self) -> &[u8] {
        &self.text
    }

    /// Writes the edited text atomically, backing the original up once beside it.
    pub fn write(&self) -> Result<()> {
        // The text edits and the object edits must agree; a file they read differently (say,
        // with a key twice) is left alone.
        let edited: Value = serde_json::from_slice(&self.text)?;
        if edited != Value::Object(self.root.clone()) {
            bail!(
                "{}: could not edit it in place (a key given twice?); the file was left untouched",
                self.path.display()
            );
        }
        write_backed_up(&self.path, self.original.as_deref(), &self.text)
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

    /// The programs skilldeck's hooks in this file run.
    pub fn our_programs(&self) -> Vec<PathBuf> {
        let Some(Value::Object(hooks)) = self.root.get("hooks") else { return Vec::new() };
        let mut out: Vec<PathBuf> = hooks
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|e| entry_is_ours(e))
            .filter_map(|e| e.get("command").and_then(Value::as_str).and_then(program_of))
            .collect();
        out.dedup();
        out
    }

    fn tree(&self) -> Result<Node> {
        json_edit::parse(&self.text)
    }

    /// Adds a group running `command` to each event that has none of ours yet, and points ours
    /// that run another command (another path, other options) at `command`; returns the events
    /// added to or updated. Each is a splice of the text: everything else keeps its bytes.
    pub fn add(
        &mut self,
        events: &[&str],
        command: &str,
        timeout_secs: u64,
    ) -> Result<Vec<String>> {
        let group = serde_json::json!({
            "hooks": [{"type": "command", "command": command, "timeout": timeout_secs}]
        });
        let mut added = Vec::new();
        for event in events {
            let root = self.tree()?;
            let Some(hooks) = root.member("hooks") else {
                let value = serde_json::json!({ *event: [group] });
                let child = json_edit::member("hooks", &value, 1, &self.style)?;
                json_edit::append(&mut self.text, &root, 0, &child, &self.style);
                let mut map = Map::new();
                map.insert(event.to_string(), Value::Array(vec![group.clone()]));
                self.root.insert("hooks".into(), Value::Object(map));
                added.push(event.to_string());
                continue;
            };
            let Some(Value::Object(hooks_value)) = self.root.get_mut("hooks") else {
                bail!(
                    "{}: `hooks` is not an object; the file was left untouched",
                    self.path.display()
                );
            };
            let Some(groups) = hooks.member(event) else {
                let child =
                    json_edit::member(event, &Value::Array(vec![group.clone()]), 2, &self.style)?;
                json_edit::append(&mut self.text, hooks, 1, &child, &self.style);
                hooks_value.insert(event.to_string(), Value::Array(vec![group.clone()]));
                added.push(event.to_string());
                continue;
            };
            let Some(Value::Array(groups_value)) = hooks_value.get_mut(*event) else {
                bail!(
                    "{}: `hooks.{event}` is not an array; the file was left untouched",
                    self.path.display()
                );
            };
            if !groups_value.iter().any(group_is_ours) {
                let child = self.style.render(&group, 3)?;
                json_edit::append(&mut self.text, groups, 2, &child, &self.style);
                groups_value.push(group.clone());
                added.push(event.to_string());
                continue;
            }
            // One of ours from another path or with other options: made this command.
            let mut updated = false;
            for (g, group_node) in groups.items().iter().enumerate().rev() {
                let Some(entries) = group_node.member("hooks") else { continue };
                for (e, entry_node) in entries.items().iter().enumerate().rev() {
                    let entry = &mut groups_value[g]["hooks"][e];
                    if !entry_is_ours(entry) || entry["command"].as_str() == Some(command) {
                        continue;
                    }
                    let Some(node) = entry_node.member("command") else { continue };
                    let new = Value::String(command.to_string());
                    json_edit::replace(&mut self.text, node, &new, 0, &self.style)?;
                    entry["command"] = new;
                    updated = true;
                }
            }
            if updated {
                added.push(event.to_string());
            }
        }
        Ok(added)
    }

    /// Removes every group skilldeck added (and a hook entry of ours inside a user's group), then
    /// event arrays and the `hooks` object that are left empty. Returns the events removed from.
    /// Each removal takes out the text [`SettingsFile::add`] put in, so the bytes come back.
    pub fn remove_ours(&mut self) -> Result<Vec<String>> {
        let mut removed: Vec<String> = Vec::new();
        while let Some(event) = self.remove_one()? {
            if !removed.contains(&event) {
                removed.push(event);
            }
        }
        // Event arrays this emptied, then the hooks object if that left it empty.
        for event in &removed {
            let root = self.tree()?;
            let Some(hooks) = root.member("hooks") else { break };
            let json_edit::Kind::Object(members) = &hooks.kind else { break };
            let Some(i) = members.iter().position(|(k, _, v)| k == event && v.items().is_empty())
            else {
                continue;
            };
            json_edit::remove(&mut self.text, hooks, i);
            if let Some(Value::Object(h)) = self.root.get_mut("hooks") {
                h.shift_remove(event);
            }
        }
        let root = self.tree()?;
        if !removed.is_empty()
            && let json_edit::Kind::Object(members) = &root.kind
            && let Some(i) = members.iter().position(|(k, _, v)| {
                k == "hooks" && matches!(&v.kind, json_edit::Kind::Object(m) if m.is_empty())
            })
        {
            json_edit::remove(&mut self.text, &root, i);
            self.root.shift_remove("hooks");
        }
        Ok(removed)
    }

    /// Takes out one group of ours, or one entry of ours in a user's group; the event it was
    /// under, `None` when there is none left.
    fn remove_one(&mut self) -> Result<Option<String>> {
        let root = self.tree()?;
        let Some(hooks) = root.member("hooks") else { return Ok(None) };
        let json_edit::Kind::Object(members) = &hooks.kind else { return Ok(None) };
        for (event, _, groups) in members {
            for (g, group_node) in groups.items().iter().enumerate() {
                let group: Value =
                    serde_json::from_slice(&self.text[group_node.start..group_node.end])?;
                if !group_is_ours(&group) {
                    continue;
                }
                let Some(Value::Array(groups_value)) =
                    self.root.get_mut("hooks").and_then(|h| h.get_mut(event))
                else {
                    return Ok(None);
                };
                if only_ours(&group) {
                    json_edit::remove(&mut self.text, groups, g);
                    groups_value.remove(g);
                    return Ok(Some(event.clone()));
                }
                let Some(entries) = group_node.member("hooks") else { continue };
                let Some(e) =
                    group["hooks"].as_array().and_then(|a| a.iter().position(entry_is_ours))
                else {
                    continue;
                };
                json_edit::remove(&mut self.text, entries, e);
                if let Some(Value::Array(list)) = groups_value[g].get_mut("hooks") {
                    list.remove(e);
                }
                return Ok(Some(event.clone()));
            }
        }
        Ok(None)
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
    fn the_running_program_is_ours_under_any_file_name() {
        let me = Path::new("/opt/bin/skilldeck-rel");
        assert!(is_skilldeck(Path::new("/opt/bin/skilldeck-rel"), Some(me)));
        assert!(is_skilldeck(Path::new("/elsewhere/skilldeck-rel"), Some(me)));
        assert!(!is_skilldeck(Path::new("/usr/bin/skilldeck-notify"), Some(me)));
        assert!(!is_skilldeck(Path::new("/usr/bin/skilldeck-notify"), None));
    }

    #[test]
    fn a_save_made_while_editing_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{\"a\": 1}\n").unwrap();
        let file = SettingsFile::read(&path).unwrap();
        std::fs::write(&path, "{\"a\": 2}\n").unwrap();
        let err = file.write().unwrap_err().to_string();
        assert!(err.contains("changed while skilldeck was editing it"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 2}\n");
        assert!(!backup_path(&path).exists());
    }

    #[test]
    fn indent_is_detected() {
        assert_eq!(detect_indent(b"{\n    \"a\": 1\n}\n"), b"    ");
        assert_eq!(detect_indent(b"{\n\t\"a\": 1\n}"), b"\t");
        assert_eq!(detect_indent(b"{}"), b"  ");
    }
}
