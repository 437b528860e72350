//! `skilldeck pin NAME` / `skilldeck unpin NAME`: never worse than `warning` (docs/lifecycle.md).

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
    let now = lifecycle::set_protected(&mut ws, &agent, &args.name, protected)?;
    crate::out!("{}", lifecycle::pin_said(&args.name, protected, now));
    Ok(Outcome::Ok)
}
