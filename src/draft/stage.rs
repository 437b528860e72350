//! Files on disk: atomic writes of staged drafts and folder moves between staging and live.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The one atomic write ([`crate::fsio::atomic_write`]).
pub use crate::fsio::atomic_write as write_atomic;

/// Writes a draft folder: SKILL.md and, for streak drafts, manifest.json. SKILL.md quotes
/// transcripts, so its control characters are written escaped (`text::safe::block`).
pub fn write_draft(folder: &Path, skill_md: &str, manifest: Option<&str>) -> Result<()> {
    let skill_md = crate::text::safe::block(skill_md);
    write_atomic(&folder.join("SKILL.md"), skill_md.as_bytes())?;
    if let Some(m) = manifest {
        write_atomic(&folder.join("manifest.json"), m.as_bytes())?;
    }
    Ok(())
}

/// The one folder move ([`crate::fsio::move_folder`]).
pub use crate::fsio::move_folder;

/// Where dismissed drafts wait, so `undo_dismiss` can bring them back unchanged.
pub fn dismissed_folder(staging_dir: &Path, name: &str) -> PathBuf {
    staging_dir.join(".dismissed").join(name)
}
