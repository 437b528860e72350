//! Agent hooks: `skilldeck hooks install|uninstall|status` puts `skilldeck ingest --hook` into the
//! agents' own settings so each session is ingested as it happens, and takes it out again.
//!
//! - Claude Code: a `SessionEnd` hook and a `Stop` hook (throttled by `ingest --hook` itself) in
//!   `settings.json` (user: `~/.claude/settings.json`, project: `.claude/settings.json`).
//! - Codex: `notify` in `config.toml` (never replacing another notify program) and, where the
//!   installed Codex runs hooks, a `Stop` hook in `hooks.json` beside it.
//!
//! - Both: a `learn` slash command (Claude Code) or custom prompt (Codex) that drafts the current
//!   session as a skill (`learn`).
//!
//! Every edit keeps what the user had (keys, their order, the file's indent), writes atomically,
//! backs the original up once, and is undone exactly by `uninstall`. The payload handling lives in
//! `run` (what `ingest --hook` does).

pub mod codex;
mod json_edit;
pub mod learn;
pub mod run;
pub mod settings;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

pub use settings::{FileChange, SettingsFile, backup_path};

use crate::config;
use crate::fsio;

/// Seconds an agent lets `ingest --hook` run before it gives up on it (our own limit is shorter).
pub const HOOK_TIMEOUT_SECS: u64 = 30;
/// Claude Code events skilldeck hooks.
pub const CLAUDE_EVENTS: &[&str] = &["SessionEnd", "Stop"];
/// Codex `hooks.json` events skilldeck hooks (Codex has no session-end event).
pub const CODEX_EVENTS: &[&str] = &["Stop"];
/// First Codex release taken to run `hooks.json` without a feature flag (hooks moved from an
/// opt-in `codex_hooks` flag to on-by-default in spring 2026; 0.125 is the release seen in the
/// real rollouts from then).
pub const CODEX_HOOKS_DEFAULT_ON: (u64, u64) = (0, 125);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// The agents' configuration folders for one scope.
#[derive(Debug, Clone)]
pub struct Places {
    /// `~/.claude` (or `$CLAUDE_CONFIG_DIR`), or `<project>/.claude`.
    pub claude_dir: PathBuf,
    /// `~/.codex` (or `$CODEX_HOME`), or `<project>/.codex`.
    pub codex_dir: PathBuf,
    /// The Claude Code settings file hooks go in: `settings.json` for the user;
    /// `settings.local.json` (personal, not committed) for a project, since the hook names this
    /// machine's paths.
    pub claude_file: &'static str,
}

impl Places {
    pub fn resolve(scope: Scope, project: &Path) -> Result<Places> {
        match scope {
            Scope::Project => Ok(Places {
                claude_dir: project.join(".claude"),
                codex_dir: project.join(".codex"),
                claude_file: "settings.local.json",
            }),
            Scope::User => {
                let home = config::PlatformDirs::detect()?.home;
                let env_dir = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
                Ok(Places {
                    claude_dir: env_dir("CLAUDE_CONFIG_DIR")
                        .map_or_else(|| home.join(".claude"), PathBuf::from),
                    codex_dir: env_dir("CODEX_HOME")
                        .map_or_else(|| home.join(".codex"), PathBuf::from),
                    claude_file: "settings.json",
                })
            }
        }
    }

    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir.join(self.claude_file)
    }

    /// The shared `settings.json` of a project, where earlier versions put the hooks (uninstall
    /// cleans it too).
    fn claude_shared(&self) -> Option<PathBuf> {
        (self.claude_file != "settings.json").then(|| self.claude_dir.join("settings.json"))
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_dir.join("config.toml")
    }

    pub fn codex_hooks(&self) -> PathBuf {
        self.codex_dir.join("hooks.json")
    }
}

/// The program and arguments a hook runs: this executable, the global options it was given, then
/// `ingest --hook`.
#[derive(Debug, Clone)]
pub struct HookCommand {
    pub argv: Vec<String>,
}

impl HookCommand {
    pub fn new(exe: &Path, global_args: &[String]) -> HookCommand {
        let mut argv = vec![exe.to_string_lossy().into_owned()];
        argv.extend(global_args.iter().cloned());
        argv.extend(["ingest".to_string(), "--hook".to_string()]);
        HookCommand { argv }
    }

    /// The command line a shell runs (each word quoted when it needs to be).
    pub fn shell(&self) -> String {
        self.argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")
    }
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b));
    if plain { word.to_string() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// Whether `agent` is on this machine (its folder exists, or its program is on PATH): an install
/// for both agents leaves out one that is not, so nothing of it is created.
pub fn present(agent: Agent, places: &Places) -> bool {
    let (dir, program) = match agent {
        Agent::Claude => (&places.claude_dir, "claude"),
        Agent::Codex => (&places.codex_dir, "codex"),
    };
    dir.exists() || on_path(program)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The folders `install` would write into for `agent`, outermost first.
pub fn folders(agent: Agent, places: &Places) -> Vec<PathBuf> {
    let (dir, sub) = match agent {
        Agent::Claude => (&places.claude_dir, "commands"),
        Agent::Codex => (&places.codex_dir, "prompts"),
    };
    vec![dir.clone(), dir.join(sub)]
}

/// Where `install` notes the folders it created, so `uninstall` removes those and no other:
/// `<data dir>/hooks-created.json`, a JSON array of paths.
fn created_record() -> Result<PathBuf> {
    Ok(config::PlatformDirs::detect()?.data_dir.join("hooks-created.json"))
}

fn read_created(record: &Path) -> Vec<PathBuf> {
    std::fs::read(record).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

fn write_created(record: &Path, dirs: &[PathBuf]) -> Result<()> {
    if dirs.is_empty() {
        return match std::fs::remove_file(record) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", record.display()))
            }
            _ => Ok(()),
        };
    }
    if let Some(parent) = record.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    fsio::atomic_write(record, &serde_json::to_vec_pretty(dirs)?)
}

/// Runs `install` for `agent`, noting the folders it created (those absent before, there after).
pub fn install_noting_folders(
    agent: Agent,
    places: &Places,
    cmd: &HookCommand,
) -> Result<Vec<FileChange>> {
    let absent: Vec<PathBuf> = folders(agent, places).into_iter().filter(|d| !d.exists()).collect();
    let result = install(agent, places, cmd);
    let created: Vec<PathBuf> = absent.into_iter().filter(|d| d.is_dir()).collect();
    if !created.is_empty() {
        let record = created_record()?;
        let mut all = read_created(&record);
        all.extend(created.into_iter().filter_map(|d| std::path::absolute(d).ok()));
        all.sort();
        all.dedup();
        write_created(&record, &all)?;
    }
    result
}

/// Runs `uninstall` for `agent`, then removes the folders its install created, when empty.
pub fn uninstall_with_folders(agent: Agent, places: &Places) -> Result<Vec<FileChange>> {
    let mut changes = uninstall(agent, places)?;
    let record = created_record()?;
    let mut noted = read_created(&record);
    for dir in folders(agent, places).iter().rev().filter_map(|d| std::path::absolute(d).ok()) {
        if !noted.contains(&dir) {
            continue;
        }
        // Only an empty folder goes: anything put in it since stays, and so does the folder.
        if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
            noted.retain(|d| d != &dir);
            changes.push(FileChange {
                file: dir,
                action: "removed",
                events: Vec::new(),
                note: Some("a folder install created".into()),
            });
        }
    }
    write_created(&record, &noted)?;
    Ok(changes)
}

/// Whether the installed Codex runs `hooks.json`, and why that was decided.
pub fn codex_runs_hooks(places: &Places) -> (bool, String) {
    if places.codex_hooks().exists() {
        return (true, "hooks.json already exists".into());
    }
    if let Some(on) = codex::hooks_flag(&places.codex_config()) {
        return (on, format!("[features] hooks = {on} in config.toml"));
    }
    match codex_version() {
        Some(v) if v >= CODEX_HOOKS_DEFAULT_ON => {
            (true, format!("Codex {}.{} runs hooks by default", v.0, v.1))
        }
        Some(v) => (
            false,
            format!(
                "Codex {}.{} runs hooks only with `[features] hooks = true`; notify alone is used",
                v.0, v.1
            ),
        ),
        None => (false, "no `codex` on PATH to ask for its version; notify alone is used".into()),
    }
}

fn codex_version() -> Option<(u64, u64)> {
    let out = std::process::Command::new("codex").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().find(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    let mut parts = version.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??))
}

/// Adds the hooks for `agent`; each file changed is reported.
pub fn install(agent: Agent, places: &Places, cmd: &HookCommand) -> Result<Vec<FileChange>> {
    let mut changes = install_hooks(agent, places, cmd)?;
    changes.push(learn::install(agent, places, cmd)?);
    Ok(changes)
}

fn install_hooks(agent: Agent, places: &Places, cmd: &HookCommand) -> Result<Vec<FileChange>> {
    match agent {
        Agent::Claude => Ok(vec![install_json(&places.claude_settings(), CLAUDE_EVENTS, cmd)?]),
        Agent::Codex => {
            let mut changes = vec![codex::install(&places.codex_config(), &cmd.argv)?];
            let (runs, why) = codex_runs_hooks(places);
            if runs {
                let mut change = install_json(&places.codex_hooks(), CODEX_EVENTS, cmd)?;
                change.note.get_or_insert(why);
                changes.push(change);
            } else {
                changes.push(FileChange {
                    file: places.codex_hooks(),
                    action: "skipped",
                    events: Vec::new(),
                    note: Some(why),
                });
            }
            Ok(changes)
        }
    }
}

fn install_json(path: &Path, events: &[&str], cmd: &HookCommand) -> Result<FileChange> {
    let mut file = SettingsFile::read(path)?;
    let added = file.add(events, &cmd.shell(), HOOK_TIMEOUT_SECS)?;
    let mut change =
        FileChange { file: path.to_path_buf(), action: "unchanged", events: added, note: None };
    if change.events.is_empty() {
        change.note = Some("already installed".into());
        return Ok(change);
    }
    file.write()?;
    change.action = "added";
    Ok(change)
}

/// Removes exactly what `install` added for `agent`.
pub fn uninstall(agent: Agent, places: &Places) -> Result<Vec<FileChange>> {
    let mut changes = uninstall_hooks(agent, places)?;
    changes.push(learn::uninstall(agent, places)?);
    Ok(changes)
}

fn uninstall_hooks(agent: Agent, places: &Places) -> Result<Vec<FileChange>> {
    match agent {
        Agent::Claude => {
            let mut out = vec![uninstall_json(&places.claude_settings())?];
            if let Some(shared) = places.claude_shared().filter(|p| p.exists()) {
                out.push(uninstall_json(&shared)?);
            }
            Ok(out)
        }
        Agent::Codex => Ok(vec![
            codex::uninstall(&places.codex_config())?,
            uninstall_json(&places.codex_hooks())?,
        ]),
    }
}

fn uninstall_json(path: &Path) -> Result<FileChange> {
    let mut change =
        FileChange { file: path.to_path_buf(), action: "unchanged", events: vec![], note: None };
    if !path.exists() {
        change.action = "absent";
        return Ok(change);
    }
    let mut file = SettingsFile::read(path)?;
    change.events = file.remove_ours()?;
    if change.events.is_empty() {
        return Ok(change);
    }
    // A file skilldeck created goes away again: nothing was backed up, and what is left is the
    // empty object install started from (a `{}` of the user's own, or anything more, stays).
    if file.render() == b"{}\n" && !backup_path(path).exists() {
        std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
    } else {
        file.write()?;
    }
    change.action = "removed";
    Ok(change)
}

/// One settings file and what skilldeck has in it.
#[derive(Debug, Serialize)]
pub struct FileStatus {
    pub agent: Agent,
    pub file: PathBuf,
    pub exists: bool,
    /// Events (or `notify`) that run `skilldeck ingest --hook`.
    pub installed: Vec<String>,
    pub backup: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The program an installed hook runs, when it is not there any more (the hook fails).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_program: Option<PathBuf>,
}

fn gone(programs: Vec<PathBuf>) -> Option<PathBuf> {
    programs.into_iter().find(|p| !p.is_file())
}

pub fn status(agent: Agent, places: &Places) -> Result<Vec<FileStatus>> {
    let json_status = |path: PathBuf| -> Result<FileStatus> {
        let exists = path.exists();
        let read = if exists { Some(SettingsFile::read(&path)?) } else { None };
        let installed = read.as_ref().map(SettingsFile::events_with_ours).unwrap_or_default();
        let missing_program = read.as_ref().and_then(|f| gone(f.our_programs()));
        let backup = Some(backup_path(&path)).filter(|b| b.exists());
        Ok(FileStatus { agent, file: path, exists, installed, backup, note: None, missing_program })
    };
    match agent {
        Agent::Claude => Ok(vec![json_status(places.claude_settings())?]),
        Agent::Codex => {
            let config = places.codex_config();
            let notify = codex::status(&config)?;
            let backup = Some(backup_path(&config)).filter(|b| b.exists());
            let mut out = vec![FileStatus {
                agent,
                exists: config.exists(),
                installed: if notify == Some(true) { vec!["notify".into()] } else { vec![] },
                note: (notify == Some(false))
                    .then(|| "notify runs another program (not replaced)".into()),
                missing_program: gone(codex::our_program(&config)?.into_iter().collect()),
                file: config,
                backup,
            }];
            let mut hooks = json_status(places.codex_hooks())?;
            hooks.note = Some(codex_runs_hooks(places).1);
            out.push(hooks);
            Ok(out)
        }
    }
}
