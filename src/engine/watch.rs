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
}

/// Watches the folders that exist among `transcripts` and `skills_dir`. Folders that do not
/// exist yet are skipped (the timer still covers them).
pub fn watch(
    transcripts: &[PathBuf],
    skills_dir: &std::path::Path,
    debounce: Duration,
    tx: UnboundedSender<Changed>,
) -> notify::Result<Watcher> {
    let skills = skills_dir.to_path_buf();
    let in_skills = skills.clone();
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
                } else {
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
    Ok(Watcher { _debouncer: debouncer, watched })
}
