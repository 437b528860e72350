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
    Install(Target),
    /// Remove exactly what `install` added
    Uninstall(Target),
    /// Which settings files run skilldeck
    Status(Target),
}

#[derive(Debug, Args)]
pub struct Target {
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

impl Target {
    fn agents(&self) -> Vec<Agent> {
        self.agent.map_or_else(|| vec![Agent::Claude, Agent::Codex], |a| vec![a])
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
            let exe = std::env::current_exe().context("locating the skilldeck executable")?;
            let exe = exe.canonicalize().unwrap_or(exe);
            let cmd = HookCommand::new(&exe, &global_args(global)?);
            let places = t.places()?;
            let mut changes = Vec::new();
            for agent in t.agents() {
                changes.extend(hooks::install(agent, &places, &cmd)?);
            }
            report(&changes, t.json)
        }
        HooksAction::Uninstall(t) => {
            let places = t.places()?;
            let mut changes = Vec::new();
            for agent in t.agents() {
                changes.extend(hooks::uninstall(agent, &places)?);
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
