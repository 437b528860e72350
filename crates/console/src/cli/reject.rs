//! `skilldeck reject CANDIDATE_ID`: dismiss a proposed version (or any open candidate).

use anyhow::Result;
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome};
use crate::draft;

#[derive(Debug, Args)]
pub struct RejectArgs {
    /// Candidate id of a proposed version (or any open candidate), or its name
    pub candidate: String,
}

pub fn run(global: &GlobalArgs, args: RejectArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let id = target::candidate(&ws, &args.candidate, Kind::Open)?;
    draft::reject(&mut ws, id)?;
    crate::out!("dismissed candidate {id}");
    Ok(Outcome::Ok)
}
