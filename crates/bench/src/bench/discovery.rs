//! One discovery case: a generated corpus (plus real transcripts, when given) run through the
//! real `skilldeck ingest` command at a support threshold, scored against what was planted.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::synth::plant::{self, Generated, Score};

/// What one threshold gave.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub min_sessions: usize,
    pub score: Score,
    /// Planted secrets found in the database, the staged drafts or the CLI output.
    pub leaked: Vec<String>,
}

/// Copies `from` (a folder of transcripts) under `to`, keeping its layout.
pub fn copy_tree(from: &Path, to: &Path) -> Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&target)?;
            n += copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
            n += 1;
        }
    }
    Ok(n)
}

fn run(bin: &Path, root: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new(bin)
        .arg("--db")
        .arg(root.join("db"))
        .arg("--skills-dir")
        .arg(root.join("skills"))
        .arg("--config")
        .arg(root.join("config.toml"))
        .args(args)
        .env_remove("SKILLDECK_DB")
        .env_remove("SKILLDECK_SKILLS_DIR")
        .env_remove("SKILLDECK_CONFIG")
        .env("NO_COLOR", "1")
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    if !out.status.success() {
        bail!("skilldeck {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let mut bytes = out.stdout;
    bytes.extend_from_slice(&out.stderr);
    Ok(bytes)
}

fn all_bytes(dir: &Path, out: &mut Vec<u8>) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            all_bytes(&entry.path(), out)?;
        } else {
            out.extend(std::fs::read(entry.path())?);
        }
    }
    Ok(())
}

/// Runs `bin ingest` on `corpus` in a fresh workspace under `work` with `detect.min_sessions`
/// set, and scores the proposed candidates; every file the workspace holds afterwards and the
/// commands' output are searched for the planted secrets.
pub fn run_case(
    bin: &Path,
    corpus: &Path,
    work: &Path,
    generated: &Generated,
    min_sessions: usize,
) -> Result<CaseResult> {
    let root: PathBuf = work.join(format!("support-{min_sessions}"));
    std::fs::create_dir_all(&root)?;
    std::fs::write(root.join("config.toml"), format!("[detect]\nmin_sessions = {min_sessions}\n"))?;
    let corpus = corpus.to_string_lossy().into_owned();
    let mut output = run(bin, &root, &["ingest", &corpus])?;
    let listed = run(bin, &root, &["candidates", "--json"])?;
    output.extend_from_slice(&listed);
    output.extend(run(bin, &root, &["candidates", "--all", "--evidence"])?);
    let candidates: Vec<serde_json::Value> = serde_json::from_slice(&listed).or_else(|_| {
        // `candidates --json` prints a message instead of `[]` when there are none.
        Ok::<_, serde_json::Error>(Vec::new())
    })?;
    let listed = run(bin, &root, &["procedures", "--json"])?;
    let procedures: Vec<serde_json::Value> = serde_json::from_slice(&listed).unwrap_or_default();
    output.extend_from_slice(&listed);
    let score = plant::score(&candidates, &procedures, &generated.planted);
    all_bytes(&root, &mut output)?;
    let leaked =
        plant::leaks(&output, &generated.secrets).into_iter().map(str::to_string).collect();
    Ok(CaseResult { min_sessions, score, leaked })
}
