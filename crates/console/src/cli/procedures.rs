//! `skilldeck procedures`: the procedures the person already has (slash commands, prompt
//! templates, fixed prompts, skills, menu workflows, loops), with their runs and outcomes.

use anyhow::Result;
use clap::Args;
use skilldeck_discover::procedures;

use super::{GlobalArgs, Outcome, print_json};
use crate::text::safe;

#[derive(Debug, Args)]
pub struct ProceduresArgs {
    /// Only this agent's procedures (default: every agent)
    #[arg(long)]
    pub agent: Option<String>,
    /// Print a JSON array
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: ProceduresArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let list = procedures::list(ws.store.conn(), args.agent.as_deref())?;
    if args.json {
        print_json(&list)?;
        return Ok(Outcome::Ok);
    }
    if list.is_empty() {
        crate::out!("no procedures seen: no slash command, prompt template, skill or loop repeats");
        return Ok(Outcome::Ok);
    }
    crate::out!(
        "{:<16}  {:>4}  {:>7}  {:<10}  {:<19}  NAME",
        "KIND",
        "RUNS",
        "FAILED",
        "AGENT",
        "LAST RUN"
    );
    for p in &list {
        crate::out!(
            "{:<16}  {:>4}  {:>7}  {:<10}  {:<19}  {}",
            p.kind.as_str(),
            p.runs,
            p.failed,
            safe::inline(&p.agent),
            p.last_run
                .as_deref()
                .map(|t| t.chars().take(19).collect::<String>())
                .unwrap_or_default(),
            safe::inline(&p.name)
        );
        let said = [("defined at", &p.defined_at), ("runs", &p.command), ("says", &p.prompt)];
        for (label, value) in said {
            if let Some(v) = value {
                crate::out!("      {label}: {}", safe::inline(v));
            }
        }
        for f in &p.follow_ups {
            crate::out!(
                "      asked after it in {} sessions: {}",
                f.sessions,
                safe::inline(&f.request)
            );
        }
    }
    Ok(Outcome::Ok)
}
