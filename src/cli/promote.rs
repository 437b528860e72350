//! `skilldeck promote ID`: a reviewed draft goes live.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::draft;

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// Candidate id (see `skilldeck candidates`)
    pub id: i64,
    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: PromoteArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let promoted = draft::promote(&mut ws, args.id)?;
    if args.json {
        print_json(&promoted)?;
    } else {
        crate::out!(
            "promoted candidate {} as skill {} ({}) at {}",
            promoted.candidate_id,
            promoted.skill_id,
            promoted.name,
            promoted.path.display()
        );
    }
    Ok(Outcome::Ok)
}
