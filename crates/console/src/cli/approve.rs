//! `skilldeck approve CANDIDATE_ID` (a proposed version) or `skilldeck approve --skill NAME`
//! (a skill back in review after an edit: approve its current bytes).

use anyhow::{Result, bail};
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::draft;
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// Candidate id of a proposed version
    pub candidate: Option<i64>,
    /// Approve the current bytes of this skill instead
    #[arg(long, conflicts_with = "candidate")]
    pub skill: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    /// Approve only if the text to write still has this sha256 (what the reviewer saw)
    #[arg(long)]
    pub seen: Option<String>,
}

pub fn run(global: &GlobalArgs, args: ApproveArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    match (args.candidate, &args.skill) {
        (Some(id), _) => {
            if let Some(seen) = &args.seen {
                draft::ensure_seen(&ws, id, seen)?;
            }
            draft::approve(&mut ws, id)?;
            crate::out!("approved candidate {id}");
        }
        (None, Some(name)) => {
            let agent = lifecycle::agent_or_default(args.agent.as_deref(), &ws).to_string();
            draft::approve_current(&mut ws, &agent, name, args.seen.as_deref())?;
            crate::out!("approved the current version of {name}");
        }
        (None, None) => bail!("give a candidate id or --skill NAME"),
    }
    Ok(Outcome::Ok)
}
