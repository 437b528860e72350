//! `skilldeck team ...`: a team's shared store on PostgreSQL (docs/team.md).

use anyhow::Result;
use clap::{Args, Subcommand};

use super::{GlobalArgs, Outcome, print_json};
use crate::config;
use crate::draft::live;
use crate::fsio;
use crate::lifecycle;
use crate::team;
use crate::text;
use crate::text::redact;
use crate::text::safe;
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
        TeamCommand::Init { admin: true, add } => {
            let counts = team::admin_init(&t, &add)?;
            if json {
                return print_json(&counts).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team server {}: schema version {}; role {} granted to {}",
                inline(&team::pg::describe(&t.url)),
                counts.schema_version,
                team::server::MEMBER_ROLE,
                if add.is_empty() {
                    "nobody new".to_string()
                } else {
                    inline(&add.join(", ")).into_owned()
                }
            );
        }
        TeamCommand::Init { admin: false, .. } => {
            let mut client = team::connect(&t)?;
            let counts = team::server::counts(&mut client, &t.name)?;
            let me = team::server::whoami(&mut client)?;
            if json {
                return print_json(&counts).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team {} on {}: schema version {}, {} members; joined as role {}",
                inline(&t.name),
                inline(&team::pg::describe(&t.url)),
                counts.schema_version,
                counts.members,
                inline(&me)
            );
        }
        TeamCommand::Status => {
            let s = team::status(&ws, &t)?;
            // Like `pg_isready`: a server that did not answer is a non-zero exit.
            let done = if s.reached { Outcome::Ok } else { Outcome::Fail(1) };
            if json {
                return print_json(&s).map(|()| done);
            }
            crate::out!(
                "team {} as {} ({})",
                inline(&s.team),
                inline(&s.member),
                inline(&s.server)
            );
            crate::out!("  outbox: {} queued, {} sent", s.outbox.queued, s.outbox.sent);
            match (&s.counts, &s.error) {
                (Some(c), _) => crate::out!(
                    "  server: {} members, {} turns, {} uses, {} open candidates, {} skills",
                    c.members,
                    c.turns,
                    c.uses,
                    c.candidates,
                    c.skills
                ),
                (None, e) => crate::out!("  server: {}", inline(e.as_deref().unwrap_or("-"))),
            }
            if s.joined == Some(false) {
                crate::out!(
                    "  you ({}) have not joined team {}: run `skilldeck team init`",
                    inline(&s.member),
                    inline(&s.team)
                );
            }
            if !s.pulled.is_empty() {
                crate::out!("  team skills here: {}", inline(&s.pulled.join(", ")));
            }
            return Ok(done);
        }
        TeamCommand::Push { dry_run: true } => {
            let items = team::dry_run(&mut ws, &t)?;
            if json {
                return print_json(&items.iter().map(|q| &q.item).collect::<Vec<_>>())
                    .map(|()| Outcome::Ok);
            }
            crate::out!(
                "{} would leave this machine for team {} ({}), nothing else:",
                text::count(items.len() as u64, "item"),
                inline(&t.name),
                inline(&team::pg::describe(&t.url))
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
            let r = team::pull(&mut ws, &t)?;
            if json {
                return print_json(&r).map(|()| Outcome::Ok);
            }
            crate::out!(
                "{} in team {}",
                text::count(r.skills.len() as u64, "skill"),
                inline(&t.name)
            );
            for l in &r.skills {
                let what = match l.pulled {
                    team::pull::Pulled::Added => "added",
                    team::pull::Pulled::Updated => "updated",
                    team::pull::Pulled::Unchanged => "unchanged",
                    team::pull::Pulled::PrivateWins => {
                        "not written: a folder of this name without the team's marker wins"
                    }
                    team::pull::Pulled::EditedHere => "kept: edited here since the last pull",
                    team::pull::Pulled::Proposed => "proposed for your review, not live",
                    team::pull::Pulled::Retired => "retired by the team, not live",
                };
                let why = l.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
                crate::out!(
                    "  {} v{} ({}{}): {what}{}",
                    inline(&l.name),
                    l.version,
                    l.status.as_str(),
                    if l.pinned { ", pinned" } else { "" },
                    inline(&why)
                );
            }
            skipped(&r.skipped);
        }
        TeamCommand::Proposals => {
            let list = team::proposals::list(&ws, &t.name)?;
            if json {
                let view: Vec<_> = list
                    .iter()
                    .map(|(p, text)| {
                        serde_json::json!({"proposal": p, "tampered": p.tampered, "skill_md": accepted(&p.name, text)})
                    })
                    .collect();
                return print_json(&view).map(|()| Outcome::Ok);
            }
            if list.is_empty() {
                crate::out!("no team proposals waiting");
            }
            for (p, text) in &list {
                crate::out!(
                    "{} v{} from team {}: {}",
                    inline(&p.name),
                    p.version,
                    inline(&p.team),
                    inline(&p.reason)
                );
                if p.tampered {
                    crate::out!(
                        "  tampered: its SKILL.md was changed on this machine since the pull \
                         (`skilldeck team pull` writes it again)"
                    );
                }
                for why in team::gate::dangers(text) {
                    crate::out!("  flagged: {} (accept takes --yes)", inline(&why));
                }
                let live = ws.paths.skills_dir.join(&p.name).join("SKILL.md");
                let old = fsio::read_skill_md_text(&live).unwrap_or_default();
                let diff = lifecycle::diff_text(&old, &accepted(&p.name, text));
                crate::out!("{}", safe::block(&diff));
            }
        }
        TeamCommand::Accept { name, yes } => {
            let done = team::accept(&mut ws, &t, &name, yes)?;
            crate::out!("accepted {}: {:?} in your skills folder", inline(&name), done);
        }
        TeamCommand::Reject { name } => {
            team::proposals::close(&ws, &t.name, &name, true)?;
            crate::out!("rejected team proposal {}", inline(&name));
        }
        TeamCommand::Detect => {
            let r = team::detect(&ws, &t)?;
            if json {
                return print_json(&r).map(|()| Outcome::Ok);
            }
            crate::out!(
                "team detection over {} pooled turns in {} ms: {} candidates, {} kept as evidence \
                 only",
                r.turns,
                r.elapsed_ms,
                r.candidates.len(),
                r.evidence_only
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
            skipped(&r.skipped);
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
                    c.status.as_str(),
                    inline(&by),
                    c.support,
                    c.members,
                    c.score
                );
                if let Some(why) = &c.problem {
                    crate::out!("  flagged: {}", inline(why));
                }
                for why in &c.flags {
                    crate::out!("  flagged: {} (promote takes --yes)", inline(why));
                }
                let shown = redact::secrets(&c.skill_md);
                crate::out!("{}", safe::block(&indent(&shown)));
            }
            if list.is_empty() {
                crate::out!("no team candidates (run `skilldeck team detect`)");
            }
        }
        TeamCommand::Promote { candidate, yes } => {
            let name = team::promote(&ws, &t, &candidate, yes)?;
            crate::out!("{}", team::promoted_said(&name, &t.name));
        }
        TeamCommand::Dismiss { candidate } => {
            let mut client = team::connect(&t)?;
            let name = team::shared::dismiss(&mut client, &t.name, &candidate)?;
            crate::out!("dismissed team candidate {}", inline(&name));
        }
        TeamCommand::Pin { name } => pin(&t, &name, true)?,
        TeamCommand::Unpin { name } => pin(&t, &name, false)?,
        TeamCommand::Sweep => {
            let mut client = team::connect(&t)?;
            let scores = team::score::sweep(&mut client, &t.name, &ws.config.lifecycle)?;
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
                    inline(&d.action),
                    inline(&d.subject),
                    inline(&d.member),
                    d.note.as_deref().map(|n| format!(": {}", inline(n))).unwrap_or_default()
                );
            }
        }
    }
    Ok(Outcome::Ok)
}

/// Each skipped server row on its own line: table, key, reason.
fn skipped(rows: &[team::items::Skipped]) {
    for s in rows {
        crate::out!("  skipped {} row {}: {}", s.table, inline(&s.key), inline(&s.reason));
    }
}

/// A candidate's draft, indented under its line.
fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

fn pin(t: &config::TeamConfig, name: &str, on: bool) -> Result<()> {
    let mut client = team::connect(t)?;
    team::shared::pin(&mut client, &t.name, name, on)?;
    crate::out!("{} team skill {}", if on { "pinned" } else { "unpinned" }, inline(name));
    Ok(())
}

/// The text `team accept` writes for a proposal: the live text, without the draft's notice and
/// its staging metadata, so the diff shown is the diff accepted.
fn accepted(name: &str, text: &str) -> String {
    live::live_text(text, name)
}
