//! A draft folder's files, written atomically: SKILL.md and, for streak drafts, manifest.json.

use std::path::Path;

use anyhow::Result;

/// The one atomic write ([`crate::fsio::atomic_write`]).
use crate::fsio::{atomic_write, atomic_write_unsynced};
use crate::text::safe;

/// Writes a draft folder: SKILL.md and, for streak drafts, manifest.json. SKILL.md quotes
/// transcripts, so its control characters are written escaped (`text::safe::block`).
pub fn write_draft(folder: &Path, skill_md: &str, manifest: Option<&str>) -> Result<()> {
    write_draft_with(folder, skill_md, manifest, atomic_write)
}

/// [`write_draft`] without flushing to disk, for detection: a draft lost to a power cut is
/// rewritten from its candidate row (`promote`, review), and a flush per file made file writes
/// the main cost of detection.
pub fn write_draft_unsynced(folder: &Path, skill_md: &str, manifest: Option<&str>) -> Result<()> {
    write_draft_with(folder, skill_md, manifest, atomic_write_unsynced)
}

fn write_draft_with(
    folder: &Path,
    skill_md: &str,
    manifest: Option<&str>,
    write: fn(&Path, &[u8]) -> Result<()>,
) -> Result<()> {
    let skill_md = safe::block(skill_md);
    write(&folder.join("SKILL.md"), skill_md.as_bytes())?;
    if let Some(m) = manifest {
        write(&folder.join("manifest.json"), m.as_bytes())?;
    }
    Ok(())
}
