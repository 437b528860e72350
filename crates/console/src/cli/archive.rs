//! `skilldeck archive NAME`: move a live skill to the archive folder.

use anyhow::Result;

use super::pin::PinArgs;
use super::{GlobalArgs, Outcome};
use crate::lifecycle;

pub type ArchiveArgs = PinArgs;

pub fn run(global: &GlobalArgs, args: ArchiveArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    lifecycle::archive(&mut ws, &skill.agent, &skill.name)?;
    crate::out!("archived {}", skill.name);
    Ok(Outcome::Ok)
}
