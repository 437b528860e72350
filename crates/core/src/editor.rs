//! Opening a file in the person's editor (`$VISUAL`, else `$EDITOR`, else `vi`), for
//! `skilldeck edit` and the console's `e`. The editor owns the terminal until it exits; the
//! caller gives the terminal up before and takes it back after (the console does).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The editor command from the environment: `$VISUAL`, else `$EDITOR`, else `vi`. It may carry
/// arguments (`code --wait`).
pub fn from_env() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Runs `editor` on `path` with this process's terminal and waits for it. The command goes
/// through `sh` so it may carry arguments; the path is passed as an argument, never spliced
/// into the command text.
pub fn edit(editor: &str, path: &Path) -> Result<()> {
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .with_context(|| format!("starting the editor `{editor}`"))?;
    if !status.success() {
        bail!("the editor `{editor}` exited with {status}; {} is as it left it", path.display());
    }
    Ok(())
}
