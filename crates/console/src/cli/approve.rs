//! `skilldeck approve CANDIDATE_ID` (a proposed version) or `skilldeck approve --skill NAME`
//! (a skill back in review after an edit: approve its current bytes).

use anyhow::{Result, bail};
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome};
use crate::draft;
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// Candidate id of a proposed version, or the name of its skill
    pub candidate: Option<String>,
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
    match (args.candidate.as_deref(), &args.skill) {
        (Some(text), _) => {
            let id = target::candidate(&ws, text, Kind::Proposal)?;
            if let Some(seen) = &args.seen {
                draft::ensure_seen(&ws, id, seen)?;
            }
            draft::approve(&mut ws, id)?;
            crate::out!("approved candidate {id}");
        }
        (None, Some(name)) => {
            let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), name)?;
            draft::approve_current(&mut ws, &skill.agent, &skill.name, args.seen.as_deref())?;
            crate::out!("approved the current version of {}", skill.name);
        }
        (None, None) => bail!("give a candidate id or --skill NAME"),
    }
    Ok(Outcome::Ok)
}
