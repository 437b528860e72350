//! `skilldeck sweep [--json]`: judge every skill now.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::pipeline;
use crate::text;
use crate::text::safe;

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Recompute every skill from the whole invocation table (default: only what changed)
    #[arg(long)]
    pub full: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: SweepArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let report = pipeline::sweep(&mut ws, args.full)?;
    if args.json {
        print_json(&report)?;
        return Ok(Outcome::Ok);
    }
    crate::out!(
        "{} sweep judged {} skills in {} ms: {} changed, {} edits recorded, {} implicit failures",
        report.mode,
        report.skills_judged,
        report.elapsed_ms,
        report.changes.len(),
        report.edits_recorded,
        report.implicit_failures
    );
    // Each agent by the name a person knows it by ("Claude Code", "Codex").
    let label = |agent: &str| ws.agent_label(agent);
    for c in &report.changes {
        let agent = label(&c.agent_id);
        crate::out!("  {} ({agent}): {} -> {}: {}", c.name, c.from, c.to, c.reason);
    }
    let u = &report.usage;
    for (agent, name, days) in &u.stale {
        crate::out!("  {name} ({}): stale, unused for {days} days", label(agent));
    }
    for (agent, name, days) in &u.archived {
        crate::out!(
            "  {name} ({}): archived, unused for {days} days (restore brings it back)",
            label(agent)
        );
    }
    for (agent, name) in &u.active_again {
        crate::out!("  {name} ({}): active again", label(agent));
    }
    for t in &report.triggering {
        let word = if t.not_triggering { "not triggering" } else { "triggering again" };
        crate::out!("  {} ({}): {word}", safe::inline(&t.name), label(&t.agent));
    }
    if report.proposed_merges > 0 {
        crate::out!(
            "  {} proposed (see `skilldeck candidates`)",
            text::count(report.proposed_merges as u64, "merge")
        );
    }
    for why in &report.merges_skipped {
        crate::out!("  merge not proposed: {}", safe::inline(why));
    }
    let fixes = &report.proposed_fixes;
    if fixes.trigger_rewrites + fixes.restores > 0 {
        crate::out!(
            "  {} and {} proposed (see `skilldeck candidates`)",
            text::count(fixes.trigger_rewrites as u64, "trigger rewrite"),
            text::count(fixes.restores as u64, "restore")
        );
    }
    for why in &fixes.skipped {
        crate::out!("  fix not proposed: {}", safe::inline(why));
    }
    for (name, errors) in &report.spec_errors {
        for e in errors {
            let (name, e) = (safe::inline(name), safe::inline(e));
            crate::out!("  {name}: breaks the Agent Skills spec: {e}");
        }
    }
    Ok(Outcome::Ok)
}
