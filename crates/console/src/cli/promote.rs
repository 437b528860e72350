//! `skilldeck promote ID|NAME`: a reviewed draft goes live.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::draft;
use crate::text;
use crate::text::safe;

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// Candidate id or name (see `skilldeck candidates`)
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
    let id = match args.target.parse::<i64>() {
        Ok(id) => id,
        Err(_) => draft::open_candidate_named(&ws.store, &args.target)?,
    };
    if let Some(seen) = &args.seen {
        draft::ensure_seen(&ws, id, seen)?;
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
    let promoted = draft::promote(&mut ws, id)?;
    if args.json {
        print_json(&promoted)?;
    } else {
        crate::out!(
            "promoted candidate {} as skill {} ({}) at {}",
            promoted.candidate_id,
            promoted.skill_id,
            promoted.name,
            promoted.path.display()
        );
    }
    Ok(Outcome::Ok)
}
