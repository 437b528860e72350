//! `skilldeck reject CANDIDATE_ID`: dismiss a proposed version (or any open candidate).

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::draft;

#[derive(Debug, Args)]
pub struct RejectArgs {
    pub candidate: i64,
}

pub fn run(global: &GlobalArgs, args: RejectArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    draft::reject(&mut ws, args.candidate)?;
    crate::out!("dismissed candidate {}", args.candidate);
    Ok(Outcome::Ok)
}
