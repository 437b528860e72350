//! `skilldeck undo-promote ID|NAME` / `undo-dismiss ID|NAME` / `undo-approve ID|NAME`: the console's `u` from a
//! script.

use anyhow::Result;
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome};
use crate::draft;

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// Candidate id or name (see `skilldeck candidates --all`)
    pub id: String,
}

/// Takes a promoted skill back to staging and reopens its candidate.
pub fn promote(global: &GlobalArgs, args: UndoArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let id = target::candidate(&ws, &args.id, Kind::Promoted)?;
    draft::undo_promote(&mut ws, id)?;
    let c = draft::get_candidate(ws.store.conn(), id)?;
    let staged = ws.paths.staging_dir.join(&c.name);
    crate::out!(
        "candidate {} ({}) is open again; its draft is at {}",
        c.id,
        c.name,
        staged.display()
    );
    Ok(Outcome::Ok)
}

/// Reopens a dismissed candidate with its draft back in staging.
pub fn dismiss(global: &GlobalArgs, args: UndoArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let id = target::candidate(&ws, &args.id, Kind::Dismissed)?;
    draft::undo_dismiss(&mut ws, id)?;
    let c = draft::get_candidate(ws.store.conn(), id)?;
    crate::out!("candidate {} ({}) is open again", c.id, c.name);
    Ok(Outcome::Ok)
}

/// Takes an approval back: the skill returns to its text before, the proposal is open again.
pub fn approve(global: &GlobalArgs, args: UndoArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let id = target::candidate(&ws, &args.id, Kind::Approved)?;
    draft::undo_approve(&mut ws, id)?;
    let c = draft::get_candidate(ws.store.conn(), id)?;
    crate::out!("the approval of candidate {} ({}) is undone; it is open again", c.id, c.name);
    Ok(Outcome::Ok)
}
