//! The user's own tree while a trial runs. The runs work in copies, but an agent can still write
//! to the real project by its absolute path (or through a link the project commits): the tree is
//! read before the first run and after the last (each file's size, modification time and inode
//! change time, `.git` left out), and what changed is said in the verdict.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// At most this many entries are watched; a bigger tree is said to be too big to watch.
const MAX_ENTRIES: usize = 200_000;

/// A file's size and times; a folder's are left at zero (they change with every entry added to
/// it, said for the entry).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Seen {
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// What each entry of a tree looked like.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    entries: BTreeMap<String, Seen>,
    /// More entries than `MAX_ENTRIES`: only the first ones are compared.
    pub partial: bool,
}

/// Reads the tree under `root` (links not followed).
pub fn snapshot(root: &Path) -> Snapshot {
    let mut entries = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    let mut partial = false;
    while let Some(dir) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&dir) else { continue };
        for entry in list.flatten() {
            if entry.file_name() == ".git" && dir == root {
                continue;
            }
            if entries.len() >= MAX_ENTRIES {
                partial = true;
                break;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            if meta.is_dir() {
                entries.insert(rel, Seen::default());
                stack.push(path);
            } else {
                let seen = Seen {
                    len: meta.len(),
                    modified: (meta.mtime(), meta.mtime_nsec()),
                    changed: (meta.ctime(), meta.ctime_nsec()),
                };
                entries.insert(rel, seen);
            }
        }
    }
    Snapshot { entries, partial }
}

/// What changed from `before` to `after`, as `git status` says it: `M path`, `A path`, `D path`.
pub fn changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for (path, was) in &before.entries {
        match after.entries.get(path) {
            None => out.push(format!("D {path}")),
            Some(now) if now != was => out.push(format!("M {path}")),
            Some(_) => {}
        }
    }
    for path in after.entries.keys().filter(|p| !before.entries.contains_key(*p)) {
        out.push(format!("A {path}"));
    }
    out
}
