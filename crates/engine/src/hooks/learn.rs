//! "Learn this" from inside a session: `hooks install` also writes a Claude Code slash command
//! (`<claude dir>/commands/learn.md`, `/learn`) and a Codex custom prompt
//! (`<codex dir>/prompts/learn.md`, `/prompts:learn`) that have the agent run `skilldeck ingest`
//! then `skilldeck learn --last`: the session just worked in is drafted as a skill and staged for
//! review. A file of that name that skilldeck did not write is left alone; `uninstall` removes
//! only a file that still carries skilldeck's marker.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{Agent, FileChange, HookCommand, Places};
use crate::fsio;

/// The line that marks the file as skilldeck's.
const MARKER: &str =
    "<!-- written by `skilldeck hooks install`; `skilldeck hooks uninstall` removes it -->";

pub fn path(agent: Agent, places: &Places) -> PathBuf {
    match agent {
        Agent::Claude => places.claude_dir.join("commands").join("learn.md"),
        Agent::Codex => places.codex_dir.join("prompts").join("learn.md"),
    }
}

/// The command or prompt text: `cmd` without its `ingest --hook` is how skilldeck is run.
pub fn text(agent: Agent, cmd: &HookCommand) -> String {
    let base = cmd.argv.len().saturating_sub(2);
    let run = HookCommand { argv: cmd.argv[..base].to_vec() }.shell();
    let allowed = match agent {
        Agent::Claude => format!("allowed-tools: Bash({run} ingest:*), Bash({run} learn:*)\n"),
        Agent::Codex => String::new(),
    };
    format!(
        "---\ndescription: Draft a skill from this session with skilldeck, staged for review\n\
         {allowed}---\n{MARKER}\n\nRun these two commands, one after the other, then report what \
         the second printed (the candidate it drafted and where its draft is). Do not edit the \
         draft: the user reviews it with `skilldeck candidates`.\n\n```sh\n{run} ingest\n{run} \
         learn --last\n```\n"
    )
}

fn change(file: &Path, action: &'static str, note: Option<String>) -> FileChange {
    FileChange { file: file.to_path_buf(), action, events: Vec::new(), note }
}

fn ours(file: &Path) -> Result<Option<bool>> {
    if !file.exists() {
        return Ok(None);
    }
    let bytes = fsio::read_capped(file, 64 * 1024)
        .with_context(|| format!("reading {}", file.display()))?;
    Ok(Some(String::from_utf8_lossy(&bytes).contains(MARKER)))
}

pub fn install(agent: Agent, places: &Places, cmd: &HookCommand) -> Result<FileChange> {
    let file = path(agent, places);
    if ours(&file)? == Some(false) {
        let note = "a learn command of the user's own is there: left as it is".to_string();
        return Ok(change(&file, "unchanged", Some(note)));
    }
    let text = text(agent, cmd);
    if std::fs::read_to_string(&file).is_ok_and(|t| t == text) {
        return Ok(change(&file, "unchanged", Some("already installed".into())));
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    fsio::atomic_write(&file, text.as_bytes())?;
    Ok(change(&file, "added", None))
}

pub fn uninstall(agent: Agent, places: &Places) -> Result<FileChange> {
    let file = path(agent, places);
    if ours(&file)? != Some(true) {
        return Ok(change(&file, "unchanged", None));
    }
    std::fs::remove_file(&file).with_context(|| format!("removing {}", file.display()))?;
    Ok(change(&file, "removed", None))
}
