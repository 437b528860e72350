//! `skilldeck suggest "QUERY" [--limit N] [--json]`: deterministic skill routing.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct SuggestArgs {
    pub query: String,
    #[arg(long, default_value_t = 5)]
    pub limit: usize,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: SuggestArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws);
    let found = lifecycle::suggest(&ws.store, agent, &args.query, args.limit)?;
    if args.json {
        print_json(&found)?;
        return Ok(Outcome::Ok);
    }
    if found.is_empty() {
        crate::out!("no skill matches {:?}", args.query);
    }
    for s in &found {
        crate::out!(
            "{:.3}  {}{}",
            s.score,
            s.name,
            s.note.as_ref().map(|n| format!("  ({n})")).unwrap_or_default()
        );
    }
    Ok(Outcome::Ok)
}
