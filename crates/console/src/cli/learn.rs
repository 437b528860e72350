//! `skilldeck learn [SESSION|--last] [--json]`: draft a skill from one session, staged for review.

use anyhow::{Result, bail};
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::draft::candidates;
use crate::pipeline;
use crate::pipeline::Pick;
use crate::text::safe::inline;

#[derive(Debug, Args)]
pub struct LearnArgs {
    /// The session's key (or its start), as `skilldeck ingest` stored it
    #[arg(conflicts_with = "last")]
    pub session: Option<String>,
    /// The most recent session
    #[arg(long)]
    pub last: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: LearnArgs) -> Result<Outcome> {
    let pick = match (&args.session, args.last) {
        (Some(s), _) => Pick::Session(s),
        (None, true) => Pick::Last,
        (None, false) => bail!("give a session key or --last"),
    };
    let mut ws = global.open()?;
    let l = pipeline::learn(&mut ws, pick)?;
    let flags = candidates::get_candidate(ws.store.conn(), l.candidate_id)?.flags;
    if args.json {
        let mut value = serde_json::to_value(&l)?;
        value["flags"] = serde_json::to_value(&flags)?;
        print_json(&value)?;
        return Ok(Outcome::Ok);
    }
    if l.drafted {
        crate::out!(
            "drafted {} from session {} as candidate {} (staged for review: skilldeck promote {})",
            inline(&l.name),
            inline(&l.session),
            l.candidate_id,
            l.candidate_id
        );
    } else {
        crate::out!(
            "session {}'s work is already candidate {} ({})",
            inline(&l.session),
            l.candidate_id,
            inline(&l.name)
        );
    }
    if let Some(p) = &l.staged_path {
        crate::out!("  draft: {}/SKILL.md", inline(p));
    }
    for flag in flags {
        crate::out!("  flagged: {}", inline(&flag.reason));
    }
    Ok(Outcome::Ok)
}
