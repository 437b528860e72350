//! `skilldeck restore NAME`: bring an archived or retired skill back to the live folder.

use anyhow::Result;

use super::pin::PinArgs;
use super::{GlobalArgs, Outcome};
use crate::lifecycle;

pub type RestoreArgs = PinArgs;

pub fn run(global: &GlobalArgs, args: RestoreArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    lifecycle::restore(&mut ws, &skill.agent, &skill.name)?;
    let row = lifecycle::require_skill(ws.store.conn(), &skill.agent, &skill.name)?;
    crate::out!("restored {} to {}", skill.name, row.path);
    Ok(Outcome::Ok)
}
