//! File watching: debounced events from the transcript roots and the live skills folder.

use std::path::PathBuf;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use tokio::sync::mpsc::UnboundedSender;

/// Which watched area changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    Transcripts,
    /// The paths under the skills folder that changed (the engine tells its own writes apart).
    Skills(Vec<PathBuf>),
}

/// Keeps the watcher alive; dropping it stops watching.
pub struct Watcher {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    pub watched: Vec<PathBuf>,
    /// The skills folder itself is watched (when it does not exist yet, only its parent is, for
    /// the moment it is created: then the watcher is made again).
    pub skills_watched: bool,
}

/// Watches the folders that exist among `transcripts` and `skills_dir`. Transcript folders that
/// do not exist yet are skipped (the timer still covers them); a skills folder that does not
/// exist yet is waited for through its parent.
pub fn watch(
    transcripts: &[PathBuf],
    skills_dir: &std::path::Path,
    debounce: Duration,
    tx: UnboundedSender<Changed>,
) -> notify::Result<Watcher> {
    let skills = skills_dir.to_path_buf();
    let in_skills = skills.clone();
    // While the skills folder does not exist, its parent is watched: its other entries are not
    // transcripts.
    let beside = skills.parent().map(std::path::Path::to_path_buf);
    let mut debouncer = new_debouncer(debounce, None, move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        let mut skills_changed = Vec::new();
        let mut transcripts_changed = false;
        // Reading a file is not a change (and scan_edits reads every SKILL.md: acting on
        // access events would loop).
        for event in events.iter().filter(|e| !e.kind.is_access()) {
            for path in &event.paths {
                if path.starts_with(&in_skills) {
                    skills_changed.push(path.clone());
                } else if path.parent().map(std::path::Path::to_path_buf) != beside {
                    transcripts_changed = true;
                }
            }
        }
        if transcripts_changed {
            let _ = tx.send(Changed::Transcripts);
        }
        if !skills_changed.is_empty() {
            let _ = tx.send(Changed::Skills(skills_changed));
        }
    })?;
    let mut watched = Vec::new();
    for dir in transcripts.iter().chain(std::iter::once(&skills)) {
        if dir.is_dir() && debouncer.watch(dir, RecursiveMode::Recursive).is_ok() {
            watched.push(dir.clone());
        }
    }
    let skills_watched = watched.contains(&skills);
    if !skills_watched && let Some(parent) = skills.parent().filter(|p| p.is_dir()) {
        // Only the folder's own creation matters here: the parent is not read below.
        let _ = debouncer.watch(parent, RecursiveMode::NonRecursive);
    }
    Ok(Watcher { _debouncer: debouncer, watched, skills_watched })
}
