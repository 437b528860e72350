//! `skilldeck pin NAME` / `skilldeck unpin NAME`: protect a skill from the sweep.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct PinArgs {
    pub name: String,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: PinArgs, protected: bool) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string();
    lifecycle::set_protected(&mut ws, &agent, &args.name, protected)?;
    crate::out!("{} {}", if protected { "pinned" } else { "unpinned" }, args.name);
    Ok(Outcome::Ok)
}
