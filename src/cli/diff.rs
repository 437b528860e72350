//! `skilldeck diff NAME [FROM] [TO]`: unified diff between two versions (default: the newest
//! and the one before it).

use anyhow::{Context, Result};
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct DiffArgs {
    pub name: String,
    pub from: Option<i64>,
    pub to: Option<i64>,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: DiffArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws);
    let skill = lifecycle::stats(&ws.store, agent, &args.name)?;
    let versions = lifecycle::versions(&ws.store, skill.id)?;
    let to = args.to.unwrap_or(skill.version);
    let from = args.from.unwrap_or(to - 1);
    let text = |v: i64| {
        versions.iter().find(|x| x.version == v).map(|x| x.content.as_str()).with_context(|| {
            format!("skill {:?} has no version {v} (it has 1..={})", args.name, versions.len())
        })
    };
    let old = if from == 0 && args.from.is_none() { "" } else { text(from)? };
    crate::out_part!("{}", lifecycle::diff_text(old, text(to)?));
    Ok(Outcome::Ok)
}
