//! `skilldeck archive NAME`: move a live skill to the archive folder.

use anyhow::Result;

use super::pin::PinArgs;
use super::{GlobalArgs, Outcome};
use crate::lifecycle;

pub type ArchiveArgs = PinArgs;

pub fn run(global: &GlobalArgs, args: ArchiveArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string();
    lifecycle::archive(&mut ws, &agent, &args.name)?;
    crate::out!("archived {}", args.name);
    Ok(Outcome::Ok)
}
