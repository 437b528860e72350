//! `skilldeck team ...`: a team's shared store on PostgreSQL (docs/team.md). One file per
//! subcommand; this one parses and dispatches.

mod accept;
mod candidates;
mod decisions;
mod detect;
mod dismiss;
mod init;
mod pin;
mod promote;
mod proposals;
mod pull;
mod push;
mod reject;
mod status;
mod sweep;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::{GlobalArgs, Outcome, print_json};
use crate::team;
use crate::text::safe::inline;

#[derive(Debug, Args)]
pub struct TeamArgs {
    #[command(subcommand)]
    pub command: TeamCommand,
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// Join the team (as your PostgreSQL role); `--admin`: create or migrate the server's
    /// schema and member role, granting it to each `--add ROLE`
    Init {
        #[arg(long)]
        admin: bool,
        /// With --admin: a role to make a member (created as a login role if missing)
        #[arg(long = "add", requires = "admin")]
        add: Vec<String>,
    },
    /// This member's queue and the server's counts
    Status,
    /// Queue what is new here and send every queued item (--dry-run: print it, send nothing)
    Push {
        #[arg(long)]
        dry_run: bool,
    },
    /// Bring the team's reviewed skills into this member's skills folder; the rest become proposals
    Pull,
    /// The team text waiting for this member's review, with its diff against what is live
    Proposals,
    /// Accept a team proposal: it goes live in this member's skills folder
    Accept {
        name: String,
        /// Accept text that runs a dangerous command, once read
        #[arg(long)]
        yes: bool,
    },
    /// Reject a team proposal: the same text is not proposed again
    Reject { name: String },
    /// Mine every member's pooled evidence for team candidates
    Detect,
    /// The team's candidates (open ones; --all for every status)
    Candidates {
        #[arg(long)]
        all: bool,
    },
    /// Promote a team candidate (by id or name) to a team skill
    Promote {
        candidate: String,
        /// Promote a draft that runs a dangerous command, once read
        #[arg(long)]
        yes: bool,
    },
    /// Dismiss a team candidate (by id or name)
    Dismiss { candidate: String },
    /// Protect a team skill from the team sweep (at worst `warning`)
    Pin { name: String },
    /// Remove a team skill's protection
    Unpin { name: String },
    /// Judge every team skill from all members' uses
    Sweep,
    /// Every decision on the team's candidates and skills, with who made it
    Decisions,
}

pub fn run(global: &GlobalArgs, args: TeamArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let t = team::settings(&ws)?;
    let json = args.json;
    match args.command {
        TeamCommand::Init { admin: true, add } => init::admin(&t, &add, json),
        TeamCommand::Init { admin: false, .. } => init::join(&t, json),
        TeamCommand::Status => status::run(&ws, &t, json),
        TeamCommand::Push { dry_run: true } => push::dry_run(&mut ws, &t, json),
        TeamCommand::Push { dry_run: false } => push::run(&mut ws, &t, json),
        TeamCommand::Pull => pull::run(&mut ws, &t, json),
        TeamCommand::Proposals => proposals::run(&ws, &t, json),
        TeamCommand::Accept { name, yes } => accept::run(&mut ws, &t, &name, yes),
        TeamCommand::Reject { name } => reject::run(&ws, &t, &name),
        TeamCommand::Detect => detect::run(&ws, &t, json),
        TeamCommand::Candidates { all } => candidates::run(&t, all, json),
        TeamCommand::Promote { candidate, yes } => promote::run(&ws, &t, &candidate, yes),
        TeamCommand::Dismiss { candidate } => dismiss::run(&t, &candidate),
        TeamCommand::Pin { name } => pin::run(&t, &name, true),
        TeamCommand::Unpin { name } => pin::run(&t, &name, false),
        TeamCommand::Sweep => sweep::run(&ws, &t, json),
        TeamCommand::Decisions => decisions::run(&t, json),
    }
}

/// Each skipped server row on its own line: table, key, reason.
fn skipped(rows: &[team::items::Skipped]) {
    for s in rows {
        crate::out!("  skipped {} row {}: {}", s.table, inline(&s.key), inline(&s.reason));
    }
}
