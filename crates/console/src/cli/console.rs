//! `skilldeck console` (and `skilldeck` with no subcommand): the review console.

use std::io::IsTerminal;

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::store;
use crate::tui;
use crate::workspace;

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
    // A lock held by another process is waited out (the busy timeout): say so at once rather
    // than leave the terminal blank meanwhile.
    if let Some(db) = workspace::db_path(&global.overrides())
        && store::Store::locked_by_another(&db)
    {
        crate::err_out!(
            "database {} is locked by another process (another skilldeck, or an open sqlite3 \
             shell): waiting up to {} s; close it and the console opens",
            db.display(),
            store::BUSY_TIMEOUT.as_secs()
        );
    }
    tui::run_console(global.open()?)?;
    Ok(Outcome::Ok)
}
