//! Each run's agent home: the user's skills folders without the skill on trial, so the
//! "without" arm cannot load it from the account (after `promote` it is in `~/.claude/skills`)
//! and the "with" arm has it only where the trial installed it. The home is a folder of links
//! to every entry of the user's home, except the agents' own folders (`.claude`, `.codex`,
//! `.agents`), which are folders of links to their entries, except `skills`, which is a folder of
//! links to every skill but this one. `CLAUDE_CONFIG_DIR` and `CODEX_HOME`, when set, get the
//! same. The agent still reaches its settings and credentials through the links.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Folders under a home where agents keep their configuration and user skills.
const AGENT_DIRS: &[&str] = &[".claude", ".codex", ".agents"];

/// Variables that point an agent at its configuration folder.
const CONFIG_VARS: &[&str] = &["CLAUDE_CONFIG_DIR", "CODEX_HOME"];

/// Makes the run's home at `at` hiding `skill`; the variables to run the agent with.
pub fn make(at: &Path, skill: &str) -> Result<Vec<(String, OsString)>> {
    let mut vars = Vec::new();
    if let Some(real) = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_dir()) {
        let home = at.join("home");
        mirror(&real, &home, &|name| AGENT_DIRS.contains(&name), skill)?;
        vars.push(("HOME".to_string(), home.into_os_string()));
    }
    for var in CONFIG_VARS {
        let Some(real) = std::env::var_os(var).map(PathBuf::from).filter(|d| d.is_dir()) else {
            continue;
        };
        let dir = at.join(var.to_ascii_lowercase());
        mirror(&real, &dir, &|name| name == "skills", skill)?;
        vars.push((var.to_string(), dir.into_os_string()));
    }
    Ok(vars)
}

/// `to` as a folder of links to each entry of `from`. A folder `down` picks is mirrored one
/// level further (an agent's folder, then its `skills`); in a `skills` folder, `skill` is left out.
fn mirror(from: &Path, to: &Path, down: &dyn Fn(&str) -> bool, skill: &str) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let in_skills = from.file_name().is_some_and(|n| n == "skills");
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let (src, dst) = (entry.path(), to.join(&name));
        if in_skills && name == skill {
            continue;
        }
        if !in_skills && down(&name.to_string_lossy()) && src.is_dir() {
            mirror(&src, &dst, &|n| n == "skills", skill)?;
        } else {
            std::os::unix::fs::symlink(&src, &dst)
                .with_context(|| format!("linking {}", dst.display()))?;
        }
    }
    Ok(())
}
