//! Codex's `notify` program in `config.toml`, edited with `toml_edit` so comments, order and
//! spacing stay as the user wrote them. Codex runs one notify program per finished turn and
//! appends a JSON payload (`{"type": "agent-turn-complete", "thread-id": …}`) as its last argument.

use std::path::Path;

use anyhow::{Context, Result};
use toml_edit::{Array, DocumentMut, Item, Value};

use super::settings::{FileChange, backup_path, write_backed_up};
use crate::text::safe;

/// Whether a notify argv is skilldeck's (`…skilldeck… [global args] ingest --hook`).
pub fn is_ours(argv: &[String]) -> bool {
    super::settings::is_ours(&argv.join(" "))
}

/// The notify argv currently set, if any.
pub fn notify_of(doc: &DocumentMut) -> Option<Vec<String>> {
    let array = doc.get("notify")?.as_array()?;
    Some(array.iter().map(|v| v.as_str().unwrap_or("").to_string()).collect())
}

fn read(path: &Path) -> Result<(Option<String>, DocumentMut)> {
    let text = match super::settings::read_regular(path)? {
        Some(b) => {
            Some(String::from_utf8(b).with_context(|| format!("{}: not UTF-8", path.display()))?)
        }
        None => None,
    };
    let doc = text.as_deref().unwrap_or("").parse::<DocumentMut>().map_err(|e| {
        let line = e.span().map_or(0, |s| text.as_deref().unwrap_or("")[..s.start].lines().count());
        anyhow::anyhow!(
            "{}:{}: not valid TOML ({}); the file was left untouched",
            path.display(),
            line.max(1),
            e.message()
        )
    })?;
    Ok((text, doc))
}

fn write(path: &Path, original: Option<&str>, doc: &DocumentMut) -> Result<()> {
    write_backed_up(path, original.map(str::as_bytes), doc.to_string().as_bytes())
}

/// Sets `notify = argv` unless a notify program is already set: another program is never
/// replaced (the change says so and how to chain them).
pub fn install(path: &Path, argv: &[String]) -> Result<FileChange> {
    let (text, mut doc) = read(path)?;
    let mut change = FileChange {
        file: path.to_path_buf(),
        action: "unchanged",
        events: vec!["notify".into()],
        note: None,
    };
    match notify_of(&doc) {
        Some(current) if is_ours(&current) => {
            change.note = Some("already installed".into());
        }
        Some(current) => {
            change.action = "refused";
            change.note = Some(format!(
                "notify is already set to {}; Codex runs a single notify program, so it was left \
                 as it is. To chain both, point notify at a small script that runs that program and \
                 then `{} '<json>'` with the same JSON argument (see docs/hooks.md), or rely on the \
                 Stop hook in hooks.json",
                safe::inline(&format!("{current:?}")),
                safe::inline(&argv.join(" "))
            ));
        }
        None => {
            if doc.get("notify").is_some() {
                change.action = "refused";
                change.note =
                    Some("notify is set but is not a list of strings; left as it is".into());
                return Ok(change);
            }
            let array: Array = argv.iter().map(String::as_str).collect();
            // Root keys must come before the first table: toml_edit places it there.
            doc.insert("notify", Item::Value(Value::Array(array)));
            write(path, text.as_deref(), &doc)?;
            change.action = "added";
        }
    }
    Ok(change)
}

/// Removes `notify` when it is skilldeck's; anything else is left alone.
pub fn uninstall(path: &Path) -> Result<FileChange> {
    let mut change = FileChange {
        file: path.to_path_buf(),
        action: "unchanged",
        events: vec!["notify".into()],
        note: None,
    };
    if !path.exists() {
        return Ok(change);
    }
    let (text, mut doc) = read(path)?;
    if notify_of(&doc).is_some_and(|argv| is_ours(&argv)) {
        doc.remove("notify");
        // A file skilldeck created (nothing was backed up) and left empty goes away again.
        if doc.to_string().trim().is_empty() && !backup_path(path).exists() {
            std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
        } else {
            write(path, text.as_deref(), &doc)?;
        }
        change.action = "removed";
    }
    Ok(change)
}

/// `Some(true)` when skilldeck's notify is set, `Some(false)` when another program is.
pub fn status(path: &Path) -> Result<Option<bool>> {
    if !path.exists() {
        return Ok(None);
    }
    let (_, doc) = read(path)?;
    Ok(notify_of(&doc).map(|argv| is_ours(&argv)))
}

/// The program skilldeck's notify runs, when it is set.
pub fn our_program(path: &Path) -> Result<Option<std::path::PathBuf>> {
    if !path.exists() {
        return Ok(None);
    }
    let (_, doc) = read(path)?;
    Ok(notify_of(&doc).filter(|argv| is_ours(argv)).and_then(|a| a.first().map(Into::into)))
}

/// Whether hooks (`hooks.json`) are on in this config: `[features] hooks` or the older
/// `codex_hooks` flag set true.
pub fn hooks_flag(path: &Path) -> Option<bool> {
    let (_, doc) = read(path).ok()?;
    let features = doc.get("features")?;
    features.get("hooks").or_else(|| features.get("codex_hooks"))?.as_bool()
}
