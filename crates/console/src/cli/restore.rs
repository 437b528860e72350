//! `skilldeck restore NAME`: bring an archived or retired skill back to the live folder.

use anyhow::Result;

use super::pin::PinArgs;
use super::{GlobalArgs, Outcome};
use crate::lifecycle;

pub type RestoreArgs = PinArgs;

pub fn run(global: &GlobalArgs, args: RestoreArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string();
    lifecycle::restore(&mut ws, &agent, &args.name)?;
    crate::out!("restored {} to {}", args.name, ws.paths.skills_dir.join(&args.name).display());
    Ok(Outcome::Ok)
}
