//! Where a trial may write: inside each run's workspace only. A project can commit a symbolic
//! link (`.claude/skills -> ~/.claude/skills`), and the clone carries it: installing or removing
//! the skill through it would change the user's real skills. Each folder on the way to a path is
//! resolved, and a link that leaves the workspace is refused.

use std::path::{Component, Path};

use anyhow::{Context, Result, bail};

/// Errors unless every existing folder on the way from `workspace` to `path` (not `path`
/// itself) resolves inside `workspace`. `path` must lie below `workspace` as text.
pub fn parents_inside(workspace: &Path, path: &Path) -> Result<()> {
    let root = workspace
        .canonicalize()
        .with_context(|| format!("resolving the workspace {}", workspace.display()))?;
    let rel = path.strip_prefix(workspace).with_context(|| {
        format!("{} is not inside the workspace {}", path.display(), workspace.display())
    })?;
    let Some(parent) = rel.parent() else { return Ok(()) };
    let mut at = workspace.to_path_buf();
    for part in parent.components() {
        let Component::Normal(part) = part else {
            bail!("{} leaves the workspace {}", path.display(), workspace.display());
        };
        at.push(part);
        let Ok(meta) = std::fs::symlink_metadata(&at) else { return Ok(()) };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let target = std::fs::read_link(&at).unwrap_or_default();
        let real = at.canonicalize().ok();
        if real.as_ref().is_none_or(|r| !r.starts_with(&root)) {
            bail!(
                "{} is a symbolic link to {}, outside the run's workspace: a trial never writes \
                 or deletes through it (the project commits that link; remove it from the \
                 project, or give --install-dir a folder that is not a link)",
                at.display(),
                real.as_deref().unwrap_or(&target).display()
            );
        }
    }
    Ok(())
}
