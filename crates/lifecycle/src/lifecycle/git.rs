//! Commits to the skills folder when it is a git repository (the workspace is
//! auto-committed, so earlier versions are also in git history).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

const AUTHOR_NAME: &str = "skilldeck";
const AUTHOR_EMAIL: &str = "skilldeck@localhost";

/// Commits the changes under `folder` (a skill inside `repo`) with `message`. Does nothing when
/// `repo` has no `.git` or nothing changed. Uses a fixed author when git has none configured.
pub fn commit(repo: &Path, folder: &Path, message: &str) -> Result<()> {
    if !repo.join(".git").exists() {
        return Ok(());
    }
    let rel = folder.strip_prefix(repo).unwrap_or(folder);
    let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
    run(repo, &["add", "-A", "--"], Some(rel))?;
    let staged = git(repo)
        .args(["diff", "--cached", "--quiet", "--"])
        .arg(rel)
        .status()
        .context("running git diff")?;
    if staged.success() {
        return Ok(());
    }
    let has_author = git(repo)
        .args(["config", "user.email"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    let mut cmd = git(repo);
    if !has_author {
        cmd.args([
            "-c",
            &format!("user.name={AUTHOR_NAME}"),
            "-c",
            &format!("user.email={AUTHOR_EMAIL}"),
        ]);
    }
    let out = cmd
        .args(["commit", "--quiet", "-m", message, "--"])
        .arg(rel)
        .output()
        .context("running git commit")?;
    if !out.status.success() {
        bail!(
            "git commit in {} failed: {}",
            repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn git(repo: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(repo);
    c
}

fn run(repo: &Path, args: &[&str], path: Option<&Path>) -> Result<()> {
    let mut c = git(repo);
    c.args(args);
    if let Some(p) = path {
        c.arg(p);
    }
    let out = c.output().with_context(|| format!("running git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!(
            "git {} in {} failed: {}",
            args.join(" "),
            repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}
