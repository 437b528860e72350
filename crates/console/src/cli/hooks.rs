//! `skilldeck hooks install|uninstall|status`: the agents' hooks that run `skilldeck ingest --hook`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use super::{GlobalArgs, Outcome, print_json};
use crate::hooks::{self, Agent, FileChange, HookCommand, Places, Scope};
use crate::text::safe::inline;

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Add skilldeck's hooks to the agent's settings (kept as they are otherwise; backed up once)
    Install(SettingsArgs),
    /// Remove exactly what `install` added
    Uninstall(SettingsArgs),
    /// Which settings files run skilldeck
    Status(SettingsArgs),
}

#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Agent whose settings to edit (default: both)
    #[arg(long, value_enum)]
    pub agent: Option<Agent>,
    /// user: ~/.claude/settings.json, ~/.codex/config.toml; project: .claude/, .codex/ in --project
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// Project folder for --scope project (default: the current folder)
    #[arg(long)]
    pub project: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

impl SettingsArgs {
    fn agents(&self) -> Vec<Agent> {
        self.agent.map_or_else(|| vec![Agent::Claude, Agent::Codex], |a| vec![a])
    }

    /// The agents to install for: the one named, or each agent on this machine, with a line
    /// for each left out.
    fn present(&self, places: &Places) -> (Vec<Agent>, Vec<FileChange>) {
        if self.agent.is_some() {
            return (self.agents(), Vec::new());
        }
        let (here, away): (Vec<Agent>, Vec<Agent>) =
            self.agents().into_iter().partition(|a| hooks::present(*a, places));
        let skipped = away
            .into_iter()
            .map(|a| {
                let (dir, program, name) = match a {
                    Agent::Claude => (&places.claude_dir, "claude", "claude"),
                    Agent::Codex => (&places.codex_dir, "codex", "codex"),
                };
                FileChange {
                    file: dir.clone(),
                    action: "skipped",
                    events: Vec::new(),
                    note: Some(format!(
                        "no {} and no `{program}` on PATH; `--agent {name}` installs anyway",
                        dir.display()
                    )),
                }
            })
            .collect();
        (here, skipped)
    }

    fn places(&self) -> Result<Places> {
        let project = match &self.project {
            Some(p) => p.clone(),
            None => std::env::current_dir().context("current folder")?,
        };
        Places::resolve(self.scope, &project)
    }
}

/// The global options given on this command line, passed on to the hook so it opens the same
/// workspace.
fn global_args(global: &GlobalArgs) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (flag, value) in
        [("--db", &global.db), ("--skills-dir", &global.skills_dir), ("--config", &global.config)]
    {
        if let Some(path) = value {
            let abs = std::path::absolute(path).with_context(|| format!("{}", path.display()))?;
            out.push(flag.to_string());
            out.push(abs.to_string_lossy().into_owned());
        }
    }
    Ok(out)
}

pub fn run(global: &GlobalArgs, args: HooksArgs) -> Result<Outcome> {
    match args.action {
        HooksAction::Install(t) => {
            let (exe, note) = stable_exe()?;
            let cmd = HookCommand::new(&exe, &global_args(global)?);
            let places = t.places()?;
            let (agents, mut changes) = t.present(&places);
            for agent in agents {
                changes.extend(hooks::install_noting_folders(agent, &places, &cmd)?);
            }
            if let Some(note) = note {
                changes.push(FileChange {
                    file: exe,
                    action: "note",
                    events: Vec::new(),
                    note: Some(note),
                });
            }
            report(&changes, t.json)
        }
        HooksAction::Uninstall(t) => {
            let places = t.places()?;
            let mut changes = Vec::new();
            for agent in t.agents() {
                changes.extend(hooks::uninstall_with_folders(agent, &places)?);
            }
            report(&changes, t.json)
        }
        HooksAction::Status(t) => {
            let places = t.places()?;
            let mut all = Vec::new();
            for agent in t.agents() {
                all.extend(hooks::status(agent, &places)?);
            }
            if t.json {
                print_json(&all)?;
                return Ok(Outcome::Ok);
            }
            for s in &all {
                let what = if !s.exists {
                    "absent".to_string()
                } else if s.installed.is_empty() {
                    "not installed".to_string()
                } else if let Some(p) = &s.missing_program {
                    format!(
                        "installed ({}), but its program {} is gone: the hook fails; run \
                         `skilldeck hooks install` again",
                        s.installed.join(", "),
                        p.display()
                    )
                } else {
                    format!("installed: {}", s.installed.join(", "))
                };
                crate::out!("{:?} {}: {what}", s.agent, inline(&s.file.display().to_string()));
                if let Some(b) = &s.backup {
                    crate::out!("  backup: {}", inline(&b.display().to_string()));
                }
                if let Some(n) = &s.note {
                    crate::out!("  {}", inline(n));
                }
            }
            Ok(Outcome::Ok)
        }
    }
}

/// The program the hooks run: this executable, unless it is a build output (`target/debug`,
/// `target/release`, which `cargo clean` deletes) and a `skilldeck` on PATH is at hand; a note
/// when the hook has to point into `target/` anyway.
fn stable_exe() -> Result<(PathBuf, Option<String>)> {
    let exe = std::env::current_exe().context("locating the skilldeck executable")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    if !in_build_output(&exe) {
        return Ok((exe, None));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("skilldeck"))
            .filter(|p| p.is_file())
            .find(|p| p.canonicalize().is_ok_and(|real| !in_build_output(&real)))
    });
    Ok(match on_path {
        Some(stable) => (stable, None),
        None => (
            exe.clone(),
            Some(format!(
                "the hooks run {}, a build output: `cargo clean` deletes it and the hooks then \
                 fail; `cargo install --locked --path .` puts skilldeck on PATH, then install again",
                exe.display()
            )),
        ),
    })
}

fn in_build_output(exe: &std::path::Path) -> bool {
    let parts: Vec<_> = exe.components().map(|c| c.as_os_str().to_owned()).collect();
    parts
        .windows(2)
        .any(|w| w[0] == "target" && (w[1] == "debug" || w[1] == "release" || w[1] == "deps"))
}

fn report(changes: &[FileChange], json: bool) -> Result<Outcome> {
    if json {
        print_json(changes)?;
        return Ok(Outcome::Ok);
    }
    for c in changes {
        let events =
            if c.events.is_empty() { String::new() } else { format!(" ({})", c.events.join(", ")) };
        crate::out!("{} {}{events}", c.action, inline(&c.file.display().to_string()));
        if let Some(n) = &c.note {
            crate::out!("  {}", inline(n));
        }
    }
    Ok(Outcome::Ok)
}
