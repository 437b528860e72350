//! `skilldeck promote ID|NAME`: a reviewed draft goes live.

use anyhow::Result;
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome, print_json};
use crate::draft;
use crate::text;
use crate::text::safe;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// Candidate id or name (see `skilldeck candidates`); by name, the same work drafted for
    /// another agent (same steps) is promoted too, each where its agent loads skills
    pub target: String,
    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
    /// Promote only if the draft still has this sha256 (what the reviewer saw)
    #[arg(long)]
    pub seen: Option<String>,
    /// Promote a flagged candidate (text aimed at the agent, a dangerous command) after reading
    /// its flags and draft
    #[arg(long)]
    pub yes: bool,
}

pub fn run(global: &GlobalArgs, args: PromoteArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let mut ids = target::candidates(&ws, &args.target, Kind::NewDraft)?;
    if target::id(&args.target).is_none() {
        // The same work done with another agent goes live where that agent loads skills too.
        let twins = target::twins(&ws, &args.target, &ids)?;
        ids.extend(twins);
    }
    let mut agents: Vec<&str> = ids.iter().map(|(_, agent)| agent.as_str()).collect();
    agents.sort_unstable();
    agents.dedup();
    if agents.len() < ids.len() || (ids.len() > 1 && args.seen.is_some()) {
        // Two drafts of one agent (or a --seen for one of several): the id says which.
        target::candidate(&ws, &args.target, Kind::NewDraft)?;
    }
    let mut promoted = Vec::with_capacity(ids.len());
    for (id, _) in &ids {
        promoted.push(promote_one(&mut ws, *id, &args)?);
    }
    if args.json {
        match promoted.as_slice() {
            [one] => print_json(one)?,
            many => print_json(&many)?,
        }
    } else {
        for p in &promoted {
            crate::out!(
                "promoted candidate {} as skill {} ({}) at {}, {}",
                p.candidate_id,
                p.skill_id,
                p.name,
                p.path.display(),
                ws.where_loaded(&p.agent_id)
            );
        }
    }
    Ok(Outcome::Ok)
}

fn promote_one(ws: &mut Workspace, id: i64, args: &PromoteArgs) -> Result<draft::Promoted> {
    if let Some(seen) = &args.seen {
        draft::ensure_seen(ws, id, seen)?;
    }
    let flags = draft::candidates::get_candidate(ws.store.conn(), id)?.flags;
    if !flags.is_empty() && !args.yes {
        for flag in &flags {
            crate::err_out!("flagged: {}", safe::inline(&flag.reason));
        }
        anyhow::bail!(
            "candidate {} is flagged ({}): read its draft, then promote it with --yes",
            id,
            text::count(flags.len() as u64, "flag")
        );
    }
    draft::promote(ws, id)
}
