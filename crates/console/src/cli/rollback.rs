//! `skilldeck rollback NAME VERSION`: restore an earlier version as a new one.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct RollbackArgs {
    pub name: String,
    pub version: i64,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: RollbackArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string();
    let new = lifecycle::rollback(&mut ws, &agent, &args.name, args.version)?;
    crate::out!("{} is now version {new} (the text of version {})", args.name, args.version);
    Ok(Outcome::Ok)
}
