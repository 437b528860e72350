//! `skilldeck dismiss ID|NAME`: a draft nobody wants; its evidence never proposes it again.

use anyhow::Result;
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome};
use crate::draft;

#[derive(Debug, Args)]
pub struct DismissArgs {
    /// Candidate id or name (see `skilldeck candidates`)
    pub id: String,
}

pub fn run(global: &GlobalArgs, args: DismissArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let id = target::candidate(&ws, &args.id, Kind::NewDraft)?;
    draft::dismiss(&mut ws, id)?;
    let c = draft::get_candidate(ws.store.conn(), id)?;
    crate::out!("dismissed candidate {} ({})", c.id, c.name);
    Ok(Outcome::Ok)
}
