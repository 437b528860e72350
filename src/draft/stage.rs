//! Files on disk: atomic writes of staged drafts and folder moves between staging and live.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::candidates::{self, CandidateSource, CandidateStatus};
use crate::store::Store;

/// The one atomic write ([`crate::fsio::atomic_write`]).
use crate::fsio::atomic_write;

/// Writes a draft folder: SKILL.md and, for streak drafts, manifest.json. SKILL.md quotes
/// transcripts, so its control characters are written escaped (`text::safe::block`).
pub fn write_draft(folder: &Path, skill_md: &str, manifest: Option<&str>) -> Result<()> {
    write_draft_with(folder, skill_md, manifest, atomic_write)
}

/// [`write_draft`] without flushing to disk, for detection: a draft lost to a power cut is
/// rewritten from its candidate row (`promote`, review), and a flush per file made file writes
/// the main cost of detection.
pub fn write_draft_unsynced(folder: &Path, skill_md: &str, manifest: Option<&str>) -> Result<()> {
    write_draft_with(folder, skill_md, manifest, crate::fsio::atomic_write_unsynced)
}

fn write_draft_with(
    folder: &Path,
    skill_md: &str,
    manifest: Option<&str>,
    write: fn(&Path, &[u8]) -> Result<()>,
) -> Result<()> {
    let skill_md = crate::text::safe::block(skill_md);
    write(&folder.join("SKILL.md"), skill_md.as_bytes())?;
    if let Some(m) = manifest {
        write(&folder.join("manifest.json"), m.as_bytes())?;
    }
    Ok(())
}

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
