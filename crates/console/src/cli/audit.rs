//! `skilldeck audit [--agent A] [--json]`: every skill with its status and rate.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::lifecycle;
use crate::text::safe;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only this agent's skills (default: every agent)
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: AuditArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let rows = lifecycle::audit(&ws.store, args.agent.as_deref())?;
    if args.json {
        print_json(&rows)?;
        return Ok(Outcome::Ok);
    }
    crate::out!(
        "{:<32} {:<11} {:<11} {:>6} {:>5} {:>4}",
        "NAME",
        "AGENT",
        "STATUS",
        "RATE",
        "USES",
        "VER"
    );
    for s in &rows {
        let mut status = s.status.to_string();
        if s.protected {
            status.push('*');
        }
        if s.needs_review {
            status.push('!');
        }
        if s.stale_since.is_some() {
            status.push_str(" stale");
        }
        if !s.spec_errors.is_empty() {
            status.push_str(" spec");
        }
        let rate = s.rate.map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
        crate::out!(
            "{:<32} {:<11} {:<11} {:>6} {:>5} {:>4}",
            s.name,
            ws.agent_label(&s.agent_id),
            status,
            rate,
            s.success_count + s.failure_count,
            s.version
        );
    }
    crate::out!("(* protected, ! needs review, spec: breaks the Agent Skills spec)");
    for s in rows.iter().filter(|s| !s.spec_errors.is_empty()) {
        for e in &s.spec_errors {
            crate::out!("{} breaks the spec: {}", s.name, safe::inline(e));
        }
    }
    Ok(Outcome::Ok)
}
