//! Files on disk: atomic writes of staged drafts and folder moves between staging and live.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so a crash
/// leaves the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("file path without a folder")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let file_name = path.file_name().context("file path without a name")?.to_string_lossy();
    let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
    fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

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

/// Moves folder `from` to `to` (which must not exist). A rename when both are on one filesystem;
/// otherwise a copy into a temporary folder beside `to`, a rename into place, then removal of `from`.
pub fn move_folder(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        bail!("{} already exists", to.display());
    }
    let parent = to.parent().context("destination without a parent folder")?;
    fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    if fs::rename(from, to).is_ok() {
        return Ok(());
    }
    let name = to.file_name().context("destination without a name")?.to_string_lossy();
    let tmp = parent.join(format!(".{name}.moving-{}", std::process::id()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).with_context(|| format!("clearing {}", tmp.display()))?;
    }
    copy_tree(from, &tmp)?;
    fs::rename(&tmp, to)
        .with_context(|| format!("renaming {} to {}", tmp.display(), to.display()))?;
    fs::remove_dir_all(from).with_context(|| format!("removing {}", from.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Where dismissed drafts wait, so `undo_dismiss` can bring them back unchanged.
pub fn dismissed_folder(staging_dir: &Path, name: &str) -> PathBuf {
    staging_dir.join(".dismissed").join(name)
}
