//! `skilldeck team ...`: a team's shared store on PostgreSQL (docs/team.md).

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
    /// Connect to the team's server, create or migrate its schema, join as `[team] member`
    Init,
    /// This member's queue and the server's counts
    Status,
    /// Queue what is new here and send every queued item (--dry-run: print it, send nothing)
    Push {
        #[arg(long)]
        dry_run: bool,
    },
    /// Bring the team's skills into this member's skills folder (a private skill of the same name wins)
    Pull,
    /// Mine every member's pooled evidence for team candidates
    Detect,
    /// The team's candidates (open ones; --all for every status)
    Candidates {
        #[arg(long)]
        all: bool,
    },
    /// Promote a team candidate (by id or name) to a team skill
    Promote { candidate: String },
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
        TeamCommand::Init => {
            let mut client = team::connect(&t)?;
            let counts = team::server::counts(&mut client, &t.name)?;
            if json {
                return print_json(&counts).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team {} on {}: schema version {}, {} members; joined as {}",
                inline(&t.name),
                inline(&team::server::describe(&t.url)),
                counts.schema_version,
                counts.members,
                inline(&t.member)
            );
        }
        TeamCommand::Status => {
            let s = team::status(&ws, &t)?;
            if json {
                return print_json(&s).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team {} as {} ({})",
                inline(&s.team),
                inline(&s.member),
                inline(&s.server)
            );
            crate::out!("  outbox: {} queued, {} sent", s.outbox.queued, s.outbox.sent);
            match &s.reached {
                Ok(c) => crate::out!(
                    "  server: {} members, {} turns, {} uses, {} open candidates, {} skills",
                    c.members,
                    c.turns,
                    c.uses,
                    c.candidates,
                    c.skills
                ),
                Err(e) => crate::out!("  server: {}", inline(e)),
            }
            if !s.pulled.is_empty() {
                crate::out!("  team skills here: {}", inline(&s.pulled.join(", ")));
            }
        }
        TeamCommand::Push { dry_run: true } => {
            let items = team::dry_run(&mut ws, &t)?;
            if json {
                return print_json(&items.iter().map(|q| &q.item).collect::<Vec<_>>())
                    .map(|()| Outcome::Ok);
            }
            crate::out!(
                "{} would leave this machine for team {} ({}), nothing else:",
                crate::text::count(items.len() as u64, "item"),
                inline(&t.name),
                inline(&team::server::describe(&t.url))
            );
            for q in &items {
                crate::out!("{}", super::output::json_text(&serde_json::to_string(&q.item)?));
            }
        }
        TeamCommand::Push { dry_run: false } => {
            let r = team::push(&mut ws, &t)?;
            if json {
                return print_json(&r).map(|()| Outcome::Ok);
            }
            crate::out!(
                "pushed to team {}: {} turns and {} uses queued now; {} stored on the server, {} it already had, in {} batches",
                inline(&t.name),
                r.collected.turns,
                r.collected.uses,
                r.stored,
                r.already,
                r.batches
            );
        }
        TeamCommand::Pull => {
            let lines = team::pull(&mut ws, &t)?;
            if json {
                return print_json(&lines).map(|()| Outcome::Ok);
            }
            crate::out!(
                "{} in team {}",
                crate::text::count(lines.len() as u64, "skill"),
                inline(&t.name)
            );
            for l in &lines {
                let what = match l.pulled {
                    team::pull::Pulled::Added => "added",
                    team::pull::Pulled::Updated => "updated",
                    team::pull::Pulled::Unchanged => "unchanged",
                    team::pull::Pulled::PrivateWins => {
                        "not written: your private skill of this name wins"
                    }
                    team::pull::Pulled::EditedHere => "kept: edited here since the last pull",
                };
                crate::out!("  {} v{} ({}): {what}", inline(&l.name), l.version, inline(&l.status));
            }
        }
        TeamCommand::Detect => {
            let r = team::detect(&ws, &t)?;
            if json {
                return print_json(&r).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team detection over {} pooled turns in {} ms: {} workflows, {} candidates",
                r.turns,
                r.elapsed_ms,
                r.workflows,
                r.candidates.len()
            );
            for c in &r.candidates {
                crate::out!(
                    "  #{} {}: {} ({} members)",
                    c.id,
                    inline(&c.name),
                    inline(&c.summary),
                    c.members
                );
            }
        }
        TeamCommand::Candidates { all } => {
            let mut client = team::connect(&t)?;
            let list = team::shared::candidates(&mut client, &t.name, all)?;
            if json {
                return print_json(&list).map(|()| Outcome::Ok);
            }
            for c in &list {
                let by = c.decided_by.as_deref().map(|m| format!(" by {m}")).unwrap_or_default();
                crate::out!(
                    "#{} {} [{}{}] {} sessions, {} members, score {:.2}",
                    c.id,
                    inline(&c.name),
                    c.status,
                    inline(&by),
                    c.support,
                    c.members,
                    c.score
                );
            }
            if list.is_empty() {
                crate::out!("no team candidates (run `skilldeck team detect`)");
            }
        }
        TeamCommand::Promote { candidate } => {
            let name = team::promote(&ws, &t, &candidate)?;
            crate::out!(
                "promoted {} to a team skill of {} (members get it with `skilldeck team pull`)",
                inline(&name),
                inline(&t.name)
            );
        }
        TeamCommand::Dismiss { candidate } => {
            let mut client = team::connect(&t)?;
            let name = team::shared::dismiss(&mut client, &t.name, &candidate, &t.member)?;
            crate::out!("dismissed team candidate {}", inline(&name));
        }
        TeamCommand::Pin { name } => pin(&t, &name, true)?,
        TeamCommand::Unpin { name } => pin(&t, &name, false)?,
        TeamCommand::Sweep => {
            let mut client = team::connect(&t)?;
            let scores = team::score::sweep(&mut client, &t.name, &t.member, &ws.config.lifecycle)?;
            if json {
                return print_json(&scores).map(|()| Outcome::Ok);
            }
            for s in &scores {
                let rate = s.rate.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
                crate::out!(
                    "{} {}: {}/{} uses succeeded ({rate}) from {} members; {}{}",
                    inline(&s.name),
                    s.status,
                    s.successes,
                    s.uses,
                    s.members.len(),
                    inline(&s.verdict),
                    if s.pinned { " (pinned)" } else { "" }
                );
            }
        }
        TeamCommand::Decisions => {
            let mut client = team::connect(&t)?;
            let list = team::shared::decisions(&mut client, &t.name)?;
            if json {
                return print_json(&list).map(|()| Outcome::Ok);
            }
            for d in &list {
                crate::out!(
                    "{} {} {} by {}{}",
                    inline(&d.at),
                    d.action,
                    inline(&d.subject),
                    inline(&d.member),
                    d.note.as_deref().map(|n| format!(": {}", inline(n))).unwrap_or_default()
                );
            }
        }
    }
    Ok(Outcome::Ok)
}

fn pin(t: &crate::config::TeamConfig, name: &str, on: bool) -> Result<()> {
    let mut client = team::connect(t)?;
    team::shared::pin(&mut client, &t.name, name, &t.member, on)?;
    crate::out!("{} team skill {}", if on { "pinned" } else { "unpinned" }, inline(name));
    Ok(())
}
