//! `skilldeck dismiss ID`: a draft nobody wants; its evidence never proposes it again.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::draft;

#[derive(Debug, Args)]
pub struct DismissArgs {
    /// Candidate id (see `skilldeck candidates`)
    pub id: i64,
}

pub fn run(global: &GlobalArgs, args: DismissArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    draft::dismiss(&mut ws, args.id)?;
    let c = draft::get_candidate(ws.store.conn(), args.id)?;
    crate::out!("dismissed candidate {} ({})", c.id, c.name);
    Ok(Outcome::Ok)
}
