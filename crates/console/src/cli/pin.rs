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
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    let now = lifecycle::set_protected(&mut ws, &skill.agent, &skill.name, protected)?;
    crate::out!("{}", lifecycle::pin_said(&skill.name, protected, now));
    Ok(Outcome::Ok)
}
