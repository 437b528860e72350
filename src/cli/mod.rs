//! The command line: parses, calls the library, presents. No domain logic lives here.
//!
//! Each subcommand's arguments and `run` live in their own file beside this one.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::workspace::{Overrides, Workspace};

pub mod ingest;

#[derive(Debug, Parser)]
#[command(
    name = "skilldeck",
    version,
    about = "Turn an agent's repeated work into reviewed, scored, versioned skills"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Database file (default: <data dir>/skilldeck.db)
    #[arg(long, global = true, env = "SKILLDECK_DB")]
    pub db: Option<PathBuf>,
    /// Live skills folder the agent loads (default: ~/.claude/skills)
    #[arg(long, global = true, env = "SKILLDECK_SKILLS_DIR")]
    pub skills_dir: Option<PathBuf>,
    /// Config file (default: <config dir>/config.toml; a missing file means defaults)
    #[arg(long, global = true, env = "SKILLDECK_CONFIG")]
    pub config: Option<PathBuf>,
}

impl GlobalArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            db: self.db.clone(),
            skills_dir: self.skills_dir.clone(),
        }
    }

    pub fn open(&self) -> Result<Workspace> {
        Workspace::open(&self.overrides())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read agent transcripts (new bytes only) into sessions, turns and tool calls
    Ingest(ingest::IngestArgs),
}

/// What a command reports back to `main`: success, or a non-zero exit without an error message
/// (e.g. `validate` found violations and already printed them).
pub enum Outcome {
    Ok,
    Fail(u8),
}

pub fn run(cli: Cli) -> Result<Outcome> {
    match cli.command {
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(Outcome::Ok)
        }
        Some(command) => match command {
            Command::Ingest(args) => ingest::run(&cli.global, args),
        },
    }
}

pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// Entry point used by the binary: parse, run, print errors with their causes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Fail(code)) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
