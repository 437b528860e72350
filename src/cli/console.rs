//! `skilldeck console` (and `skilldeck` with no subcommand): the review console.

use std::io::IsTerminal;

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};

#[derive(Debug, Args)]
pub struct ConsoleArgs {}

/// Whether stdin and stdout are a terminal the console can take over.
pub fn has_terminal() -> bool {
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

pub fn run(global: &GlobalArgs, _args: &ConsoleArgs) -> Result<Outcome> {
    if !has_terminal() {
        anyhow::bail!(
            "the console needs a terminal; for scripts use the subcommands (skilldeck --help)"
        );
    }
    crate::tui::run_console(global.open()?)?;
    Ok(Outcome::Ok)
}
