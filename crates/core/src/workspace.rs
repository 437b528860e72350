//! A workspace: the resolved configuration, folders and database that every command works on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::{AgentNames, Config, PlatformDirs, TranscriptRoot};
use crate::store::Store;

/// Command-line and environment overrides, applied over the config file.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
    pub skills_dir: Option<PathBuf>,
}

/// Every folder skilldeck reads or writes, resolved to absolute-or-given paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Paths {
    pub config_file: PathBuf,
    pub db: PathBuf,
    /// Live skills: what the agent loads.
    pub skills_dir: PathBuf,
    /// Drafts awaiting review: agents never load this.
    pub staging_dir: PathBuf,
    pub retired_dir: PathBuf,
    pub archive_dir: PathBuf,
}

pub struct Workspace {
    pub config: Config,
    pub paths: Paths,
    pub store: Store,
    /// Codex's skills folders (a skills scope of the Codex agent, `codex.agent_id`).
    pub codex_skills_dirs: Vec<PathBuf>,
    /// Where a Codex skill goes live: the first configured `codex.skills_dirs`, else (in the
    /// default places) `~/.agents/skills`; `None` in a self-contained workspace without them.
    pub codex_live_dir: Option<PathBuf>,
}

impl Workspace {
    /// Resolves config and folders from overrides, the config file and platform defaults,
    /// then opens the database.
    pub fn open(overrides: &Overrides) -> Result<Workspace> {
        let (config, paths) = resolve(overrides)?;
        let store = Store::open(&paths.db)?;
        // The defaults only for a workspace in its default places: `--skills-dir` (or
        // `skills_dir`) makes a self-contained workspace, with Codex folders only if configured.
        let defaults = overrides.skills_dir.is_none() && config.skills_dir.is_none();
        let codex_skills_dirs = codex_skills_dirs(&config, defaults);
        let codex_live_dir = codex_live_dir(&config, defaults);
        Ok(Workspace { config, paths, store, codex_skills_dirs, codex_live_dir })
    }

    /// Like `open`, with the database opened for reading only (commands that only read).
    pub fn open_read_only(overrides: &Overrides) -> Result<Workspace> {
        let (config, paths) = resolve(overrides)?;
        let store = Store::open_read_only(&paths.db)?;
        let defaults = overrides.skills_dir.is_none() && config.skills_dir.is_none();
        let codex_skills_dirs = codex_skills_dirs(&config, defaults);
        let codex_live_dir = codex_live_dir(&config, defaults);
        Ok(Workspace { config, paths, store, codex_skills_dirs, codex_live_dir })
    }

    /// A workspace from an explicit config and paths (tests, demo, benchmarks).
    pub fn with_paths(config: Config, paths: Paths) -> Result<Workspace> {
        let store = Store::open(&paths.db)?;
        let codex_skills_dirs = codex_skills_dirs(&config, false);
        let codex_live_dir = codex_live_dir(&config, false);
        Ok(Workspace { config, paths, store, codex_skills_dirs, codex_live_dir })
    }

    /// Transcript roots to ingest: the configured ones, or the defaults that exist here.
    pub fn transcript_roots(&self) -> Vec<TranscriptRoot> {
        if !self.config.transcripts.is_empty() {
            return self.config.transcripts.clone();
        }
        let Ok(dirs) = PlatformDirs::detect() else { return Vec::new() };
        default_roots(&dirs.home, &self.config.codex.agent_id)
            .into_iter()
            .filter(|r| r.path.is_dir())
            .collect()
    }

    /// The live skills folder `agent` loads its account skills from: Codex's for the Codex
    /// agent (when there is one), `skills_dir` for every other agent.
    pub fn live_dir(&self, agent: &str) -> &Path {
        match &self.codex_live_dir {
            Some(dir) if self.is_codex(agent) => dir,
            _ => &self.paths.skills_dir,
        }
    }

    /// Whether `agent` is the Codex agent (`config::AgentNames::is_codex`).
    pub fn is_codex(&self, agent: &str) -> bool {
        AgentNames::of(&self.config).is_codex(agent)
    }

    /// The name a person knows `agent` by (`config::AgentNames::label`).
    pub fn agent_label(&self, agent: &str) -> String {
        AgentNames::of(&self.config).label(agent)
    }

    /// Which agent loads a skill of `agent` promoted to `live_dir(agent)`, said after its path;
    /// a Codex skill in a workspace with no Codex folder is said not to be loaded.
    pub fn where_loaded(&self, agent: &str) -> String {
        let label = self.agent_label(agent);
        if self.is_codex(agent) && self.codex_live_dir.is_none() {
            format!(
                "a {label} skill in a folder {label} does not load (set codex.skills_dirs to \
                 where it loads skills)"
            )
        } else {
            format!("where {label} loads it")
        }
    }

    pub fn agent_for(&self, root: &TranscriptRoot) -> String {
        root.agent.clone().unwrap_or_else(|| self.config.agent_id.clone())
    }

    /// The agent owning a transcript file: that of the configured root it lies under, else the
    /// config's `agent_id`.
    pub fn agent_for_path(&self, path: &Path) -> String {
        self.transcript_roots()
            .iter()
            .find(|r| path.starts_with(&r.path))
            .map_or_else(|| self.config.agent_id.clone(), |r| self.agent_for(r))
    }
}

/// The default transcript roots. Codex's belong to the Codex agent (`codex.agent_id`), whose
/// skills are kept apart from Claude Code's.
pub fn default_roots(home: &Path, codex_agent: &str) -> Vec<TranscriptRoot> {
    vec![
        TranscriptRoot {
            path: home.join(".claude/projects"),
            format: "claude".into(),
            agent: None,
        },
        TranscriptRoot {
            path: codex_home(home).join("sessions"),
            format: "codex".into(),
            agent: Some(codex_agent.to_string()),
        },
    ]
}

/// `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home(home: &Path) -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".codex"), PathBuf::from)
}

/// Codex's skills folders: the configured ones, else (with `defaults`) `$CODEX_HOME/skills` and
/// the shared `~/.agents/skills`, those that exist.
fn codex_skills_dirs(config: &Config, defaults: bool) -> Vec<PathBuf> {
    if let Some(dirs) = &config.codex.skills_dirs {
        return dirs.clone();
    }
    if !defaults {
        return Vec::new();
    }
    let Ok(dirs) = PlatformDirs::detect() else { return Vec::new() };
    [codex_home(&dirs.home).join("skills"), dirs.home.join(".agents/skills")]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect()
}

/// Where Codex skills go live: the first configured folder, else (with `defaults`) the shared
/// `~/.agents/skills` Codex loads, whether it exists yet or not.
fn codex_live_dir(config: &Config, defaults: bool) -> Option<PathBuf> {
    if let Some(dirs) = &config.codex.skills_dirs {
        return dirs.first().cloned();
    }
    if !defaults {
        return None;
    }
    PlatformDirs::detect().ok().map(|dirs| dirs.home.join(".agents/skills"))
}

/// The database path `overrides` lead to (for error messages), if they resolve.
pub fn db_path(overrides: &Overrides) -> Option<PathBuf> {
    resolve(overrides).ok().map(|(_, paths)| paths.db)
}

fn resolve(o: &Overrides) -> Result<(Config, Paths)> {
    let dirs = PlatformDirs::detect();
    let config_file = match (&o.config, &dirs) {
        (Some(p), _) => p.clone(),
        (None, Ok(d)) => d.config_file.clone(),
        (None, Err(_)) => PathBuf::from("skilldeck.toml"),
    };
    let config = Config::load(&config_file)?;
    let data_dir = match &dirs {
        Ok(d) => d.data_dir.clone(),
        Err(_) => PathBuf::from(".skilldeck"),
    };
    let home = dirs.as_ref().map(|d| d.home.clone()).ok();
    let db =
        o.db.clone().or_else(|| config.db.clone()).unwrap_or_else(|| data_dir.join("skilldeck.db"));
    let skills_dir = match o.skills_dir.clone().or_else(|| config.skills_dir.clone()) {
        Some(p) => p,
        None => home
            .context("no home folder for the default skills dir: pass --skills-dir")?
            .join(".claude/skills"),
    };
    // Without an explicit data dir, staging etc. sit beside the database, so `--db` alone
    // gives a self-contained workspace.
    let side = if o.db.is_some() || config.db.is_some() {
        db.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        data_dir
    };
    // Absolute from here on: paths are stored (an archived skill's folder), and a relative one
    // would mean another folder to the next command run from elsewhere.
    let abs = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    if let Ok(m) = std::fs::metadata(&skills_dir)
        && !m.is_dir()
    {
        anyhow::bail!(
            "skills folder {} is {}, not a folder; pass --skills-dir with a folder",
            skills_dir.display(),
            if m.is_file() { "a file" } else { "something else" }
        );
    }
    let paths = Paths {
        config_file: abs(config_file),
        db: abs(db),
        skills_dir: abs(skills_dir),
        staging_dir: abs(config.staging_dir.clone().unwrap_or_else(|| side.join("staging"))),
        retired_dir: abs(config.retired_dir.clone().unwrap_or_else(|| side.join("retired"))),
        archive_dir: abs(config.archive_dir.clone().unwrap_or_else(|| side.join("archive"))),
    };
    Ok((config, paths))
}

impl Paths {
    /// All folders under one root: `<root>/skilldeck.db`, `<root>/skills`, `<root>/staging`, ...
    pub fn under(root: &Path) -> Paths {
        Paths {
            config_file: root.join("config.toml"),
            db: root.join("skilldeck.db"),
            skills_dir: root.join("skills"),
            staging_dir: root.join("staging"),
            retired_dir: root.join("retired"),
            archive_dir: root.join("archive"),
        }
    }
}

/// The workspace skills folder: the configured one, else `./.claude/skills` of the current
/// directory if it exists.
pub fn workspace_skills_dir(config: &Config) -> Option<PathBuf> {
    if let Some(dir) = &config.workspace_skills_dir {
        return Some(dir.clone());
    }
    let default = PathBuf::from(".claude/skills");
    default.is_dir().then(|| std::env::current_dir().map(|d| d.join(&default)).unwrap_or(default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn db_override_keeps_side_folders_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let o = Overrides {
            config: Some(dir.path().join("absent.toml")),
            db: Some(dir.path().join("w/db.sqlite")),
            skills_dir: Some(dir.path().join("live")),
        };
        let ws = Workspace::open(&o).unwrap();
        assert_eq!(ws.paths.staging_dir, dir.path().join("w/staging"));
        assert_eq!(ws.paths.skills_dir, dir.path().join("live"));
        assert!(dir.path().join("w/db.sqlite").exists());
    }
}
