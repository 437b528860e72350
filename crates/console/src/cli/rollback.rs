//! `skilldeck rollback NAME VERSION`: restore an earlier version as a new one.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct RollbackArgs {
    pub name: String,
    /// The version to bring back: its number (`3` or `v3`, see `skilldeck versions NAME`)
    #[arg(value_parser = super::target::version)]
    pub version: i64,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: RollbackArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    let version = args.version;
    let new = lifecycle::rollback(&mut ws, &skill.agent, &skill.name, version)?;
    crate::out!("{} is now version {new} (the text of version {version})", skill.name);
    Ok(Outcome::Ok)
}
