//! `skilldeck record NAME success|failure [--note TEXT]`: an explicit outcome.

use anyhow::{Context, Result};
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::catalog;
use crate::lifecycle;
use crate::model;

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Skill name
    pub name: String,
    /// `success` or `failure`
    pub outcome: String,
    /// Free text kept with the outcome
    #[arg(long)]
    pub note: Option<String>,
    /// Agent the skill belongs to (default: config agent_id)
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: RecordArgs) -> Result<Outcome> {
    let outcome = model::Outcome::parse(&args.outcome)
        .with_context(|| format!("outcome {:?}: expected `success` or `failure`", args.outcome))?;
    let mut ws = global.open()?;
    // A known skill by its name or id, of whichever agent has it; else a live folder of that
    // name, adopted for the configured agent (or --agent).
    let (agent, name) = match lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name) {
        Ok(skill) => (skill.agent, skill.name),
        Err(_) => (lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string(), args.name),
    };
    let change = lifecycle::record(
        &mut ws,
        &agent,
        &name,
        outcome,
        catalog::InvocationSource::Explicit,
        args.note.as_deref(),
    )?;
    crate::out!("recorded {outcome} for {name}");
    if let Some(c) = change {
        crate::out!("{}: {} → {} ({})", c.name, c.from, c.to, c.reason);
    }
    Ok(Outcome::Ok)
}
