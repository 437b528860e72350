//! Staged drafts on disk: where dismissed drafts wait, and the drafts a killed detection run
//! did not write (the writes themselves are in [`super::folder`]).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::candidates::{self, CandidateSource, CandidateStatus};
use super::folder::write_draft;
use crate::fsio::atomic_write;
use crate::store::Store;

/// Where dismissed drafts wait, so `undo_dismiss` can bring them back unchanged.
pub fn dismissed_folder(staging_dir: &Path, name: &str) -> PathBuf {
    staging_dir.join(".dismissed").join(name)
}

/// Writes, from their rows, the files missing from the staged drafts of open candidates (a
/// detection run killed after its commit, before it wrote them): SKILL.md from the stored text,
/// and a streak draft's manifest.json from its name, signature, count and creation time. Files
/// that are there (a person may have edited them) are left as they are. Returns the drafts
/// completed.
pub fn restage_missing(store: &Store) -> Result<usize> {
    let mut completed = 0;
    for c in candidates::list_candidates(store, None)? {
        let (Some(path), Some(text)) = (&c.staged_path, &c.skill_md) else { continue };
        if c.status != CandidateStatus::Candidate {
            continue;
        }
        let folder = Path::new(path);
        let mut wrote = false;
        if !folder.join("SKILL.md").is_file() {
            write_draft(folder, text, None)?;
            wrote = true;
        }
        let manifest =
            c.signature.as_deref().filter(|_| c.source == CandidateSource::Signature).map(|sig| {
                super::render::manifest_json(&c.name, sig, c.occurrences, &c.created_at)
            });
        if let Some(m) = manifest.filter(|_| !folder.join("manifest.json").is_file()) {
            atomic_write(&folder.join("manifest.json"), m.as_bytes())?;
            wrote = true;
        }
        completed += usize::from(wrote);
    }
    Ok(completed)
}
