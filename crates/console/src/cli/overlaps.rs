//! `skilldeck overlaps [--json]`: live skills whose workflows or descriptions overlap strongly.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::draft::candidates;
use crate::text::safe::inline;
use crate::usage::consolidate;

#[derive(Debug, Args)]
pub struct OverlapsArgs {
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: OverlapsArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let pairs = consolidate::overlapping(&ws, candidates::workflow_steps)?;
    if args.json {
        print_json(&pairs)?;
        return Ok(Outcome::Ok);
    }
    for p in &pairs {
        crate::out!(
            "{} + {} ({}): {}",
            inline(&p.a),
            inline(&p.b),
            inline(&p.agent),
            p.overlap.strong.as_deref().unwrap_or("")
        );
    }
    Ok(Outcome::Ok)
}
