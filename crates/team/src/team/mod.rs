//! A team's skills on PostgreSQL: members push the evidence their machines already redacted
//! (`collect`, queued in `outbox`, received by `server`), team detection mines the pooled
//! evidence with local discovery's rules (`detect`), members review team candidates (`shared`),
//! promoted team skills are pulled into every member's skills folder (`pull`), and the pooled
//! uses give one score per team skill (`score`). The local SQLite database stays the store of
//! everything else; nothing here runs unless `[team]` is configured. See docs/team.md.

pub mod collect;
pub mod detect;
pub mod gate;
pub mod items;
pub mod outbox;
pub mod pg;
pub mod proposals;
pub mod pull;
pub mod score;
pub mod server;
pub mod shared;

use anyhow::{Result, anyhow, bail};
use pg::Client;
use rusqlite::Connection;
use serde::Serialize;

use crate::catalog::SkillStatus;
use crate::config::TeamConfig;
use crate::fsio;
use crate::store::now_rfc3339;
use crate::text::hex;
use crate::text::safe;
use crate::workspace::Workspace;
use collect::Collected;
use items::Hasher;
use outbox::{Counts, Queued};

/// Namespaces a team may not take: the private one and the public one.
const RESERVED: &[&str] = &["default", "public"];

/// The `[team]` settings, refused with the key to set when incomplete.
pub fn settings(ws: &Workspace) -> Result<TeamConfig> {
    let t = ws.config.team.clone();
    for (key, value) in [("url", &t.url), ("name", &t.name), ("member", &t.member)] {
        if value.trim().is_empty() {
            bail!("[team] {key} is not set in the config: see docs/team.md");
        }
    }
    if RESERVED.contains(&t.name.as_str()) || t.name.contains('/') {
        bail!(
            "[team] name = {:?}: a team's namespace cannot be default, public or hold '/'",
            t.name
        );
    }
    if t.batch == 0 {
        bail!("[team] batch = 0: at least one item per transaction");
    }
    if !(t.timeout_secs > 0.0 && t.timeout_secs <= 3600.0) {
        bail!("[team] timeout_secs = {}: between 0 and 3600 seconds", t.timeout_secs);
    }
    Ok(t)
}

fn hasher(t: &TeamConfig) -> Hasher {
    Hasher { team: t.name.clone(), on: t.hash_identifiers }
}

/// Connects to the server as a member (its schema must be current) and records this member.
pub fn connect(t: &TeamConfig) -> Result<Client> {
    let mut client = server::connect(t)?;
    server::join(&mut client, &t.name)?;
    Ok(client)
}

/// The admin step: creates or migrates the server's schema and the member role, and grants it
/// to `members` (creating login roles that do not exist). Connects as `[team] url` says.
pub fn admin_init(t: &TeamConfig, members: &[String]) -> Result<server::ServerCounts> {
    let mut client = Client::connect(&t.url, std::time::Duration::from_secs_f64(t.timeout_secs))?;
    server::migrate(&mut client, members)?;
    server::counts(&mut client, &t.name)
}

/// Queues what is new here; commits, so nothing collected is lost if sending fails.
pub fn queue(ws: &mut Workspace, t: &TeamConfig) -> Result<Collected> {
    let names = pull::team_skill_names(&ws.paths.skills_dir, &t.name);
    let tx = ws.store.conn_mut().transaction()?;
    let collected = collect::collect(&tx, &hasher(t), &names, &now_rfc3339())?;
    tx.commit()?;
    Ok(collected)
}

/// Exactly what the next push would send, changing nothing: queued items and those a
/// collection would queue now.
pub fn dry_run(ws: &mut Workspace, t: &TeamConfig) -> Result<Vec<Queued>> {
    let names = pull::team_skill_names(&ws.paths.skills_dir, &t.name);
    let tx = ws.store.conn_mut().transaction()?;
    collect::collect(&tx, &hasher(t), &names, &now_rfc3339())?;
    let all = outbox::unsent(&tx, usize::MAX)?;
    tx.rollback()?;
    Ok(all)
}

/// What a push did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PushReport {
    pub collected: Collected,
    pub batches: u64,
    pub stored: u64,
    /// Items the server already had (a batch resent after an interrupted push).
    pub already: u64,
    pub queued: u64,
}

/// Queues what is new and sends every queued item, one server transaction per batch. When the
/// server cannot be reached or fails mid-way, what was not committed there stays queued here.
pub fn push(ws: &mut Workspace, t: &TeamConfig) -> Result<PushReport> {
    let collected = queue(ws, t)?;
    let conn = ws.store.conn_mut();
    let stay = |conn: &Connection, e: anyhow::Error| -> anyhow::Error {
        let left = outbox::counts(conn).map(|c| c.queued).unwrap_or(0);
        anyhow!("{e:#}; {left} items stay queued here and go with the next push")
    };
    let mut client = connect(t).map_err(|e| stay(conn, e))?;
    let mut report = send(conn, &mut client, t).map_err(|e| stay(conn, e))?;
    report.collected = collected;
    Ok(report)
}

/// Sends every queued item of `conn`'s outbox, a batch per server transaction, marking each
/// batch sent once the server committed it.
pub fn send(conn: &mut Connection, client: &mut Client, t: &TeamConfig) -> Result<PushReport> {
    let mut report = PushReport::default();
    loop {
        let batch = outbox::unsent(conn, t.batch)?;
        if batch.is_empty() {
            break;
        }
        let got = server::receive(client, &t.name, &batch).map_err(|e| match e
            .downcast_ref::<tokio_postgres::Error>()
        {
            Some(pg) => anyhow!("team server failed mid-push: {}", server::one_line(pg)),
            None => e,
        })?;
        let ids: Vec<i64> = batch.iter().map(|q| q.id).collect();
        let tx = conn.transaction()?;
        outbox::mark_sent(&tx, &ids, &now_rfc3339())?;
        tx.commit()?;
        report.batches += 1;
        report.stored += got.stored;
        report.already += got.already;
    }
    report.queued = outbox::counts(conn)?.queued;
    Ok(report)
}

/// Brings the team's reviewed skills into this member's skills folder; the rest become
/// proposals or are skipped (see `pull`).
pub fn pull(ws: &mut Workspace, t: &TeamConfig) -> Result<pull::PullReport> {
    let mut client = connect(t)?;
    let mut skipped = Vec::new();
    let skills = shared::skills(&mut client, &t.name, fsio::SKILL_MD_CAP, &mut skipped)?;
    drop(client);
    let mut report = pull::pull(ws, &t.name, &skills)?;
    report.skipped.splice(0..0, skipped);
    Ok(report)
}

/// Accepts the team proposal `name`: this member reviewed it, so it goes live as a team skill.
/// Text that runs a dangerous command takes `yes`.
pub fn accept(ws: &mut Workspace, t: &TeamConfig, name: &str, yes: bool) -> Result<pull::Pulled> {
    let (p, text) = proposals::get(ws, &t.name, name)?;
    // The proposal folder is this machine's: its text and recorded hash could both have been
    // changed. Only the text the server holds now goes live.
    let mut client = connect(t)?;
    let server = shared::skills(&mut client, &t.name, fsio::SKILL_MD_CAP, &mut Vec::new())?
        .into_iter()
        .find(|s| s.name == p.name)
        .and_then(|s| s.skill_md);
    drop(client);
    if server.as_deref().map(|s| hex::sha256_hex(s.as_bytes())).as_deref() != Some(&p.sha256)
        || hex::sha256_hex(text.as_bytes()) != p.sha256
    {
        bail!(
            "team proposal {name} is not the text the team server holds now (changed on this \
             machine, or on the server since the pull): `skilldeck team pull` proposes the \
             server's text again"
        );
    }
    let text = gate::gate_text(&p.name, &text).map_err(|why| anyhow!("{why}"))?;
    gate::confirmed(&format!("team proposal {name}"), &text, yes, "accept it")?;
    let skill = shared::TeamSkill {
        name: p.name.clone(),
        name_bytes: p.name.len() as i32,
        version: p.version,
        status: SkillStatus::Healthy,
        pinned: false,
        promoted_by: t.member.clone(),
        skill_md: None,
        text_bytes: text.len() as i32,
        reviewed_sha256: Some(p.sha256.clone()),
        decided_by: Some(format!("{} (accepted here)", t.member)),
        decided_status: None,
        decided_pin: None,
    };
    let skills_dir = ws.paths.skills_dir.clone();
    let done = pull::place(Some(ws), &skills_dir, &t.name, &skill, &text, &p.sha256)?;
    if matches!(done, pull::Pulled::PrivateWins | pull::Pulled::EditedHere) {
        bail!(
            "{} in {} is not the team's unedited copy: move it away to accept the proposal",
            name,
            skills_dir.display()
        );
    }
    proposals::close(ws, &t.name, name, false)?;
    Ok(done)
}

/// Mines the pooled evidence and records team candidates.
pub fn detect(ws: &Workspace, t: &TeamConfig) -> Result<detect::TeamDetectReport> {
    let mut client = connect(t)?;
    detect::run(&mut client, &t.name, ws)
}

/// Promotes a team candidate as this member read it: its draft must pass the local gates, and
/// the server records the hash of that text with the decision (refusing if the candidate changed
/// meanwhile). Writes it to the team's skills folder when one is configured.
/// A draft that runs a dangerous command takes `yes`, as a local promote does.
pub fn promote(ws: &Workspace, t: &TeamConfig, which: &str, yes: bool) -> Result<String> {
    promote_seen(ws, t, which, None, yes)
}

/// [`promote`] of the text whose SHA-256 is `seen` (what the console showed), when given.
pub fn promote_seen(
    ws: &Workspace,
    t: &TeamConfig,
    which: &str,
    seen: Option<&str>,
    yes: bool,
) -> Result<String> {
    let mut client = connect(t)?;
    let Some(c) = shared::candidates(&mut client, &t.name, true)?
        .into_iter()
        .find(|c| c.id.to_string() == which || c.name == which)
    else {
        bail!("no team candidate {which} in team {} (see `skilldeck team candidates`)", t.name);
    };
    if let Some(why) = &c.problem {
        bail!("team candidate {} ({}) cannot go live: {why}", c.id, c.name);
    }
    let what = format!("team candidate {} ({})", c.id, c.name);
    gate::confirmed(&what, &c.skill_md, yes, "`skilldeck team promote` it")?;
    let sha = hex::sha256_hex(c.skill_md.as_bytes());
    let sha = seen.map_or(sha, str::to_string);
    let name = shared::promote(&mut client, &t.name, &c.id.to_string(), &sha)?;
    if let Some(dir) = &ws.config.team.skills_dir
        && let Some(skill) =
            shared::skills(&mut client, &t.name, fsio::SKILL_MD_CAP, &mut Vec::new())?
                .into_iter()
                .find(|s| s.name == name)
        && let Ok(text) = pull::gate(&skill)
    {
        let sha = hex::sha256_hex(text.as_bytes());
        pull::place(None, dir, &t.name, &skill, &text, &sha)?;
    }
    Ok(name)
}

/// Where this member and the server stand.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub team: String,
    pub member: String,
    pub server: String,
    pub outbox: Counts,
    /// Whether the server answered; `counts` holds what it said, `error` why there are none.
    pub reached: bool,
    pub counts: Option<server::ServerCounts>,
    pub error: Option<String>,
    /// Whether this member has joined the team (`team init`); `None` when the server was not
    /// reached.
    pub joined: Option<bool>,
    pub pulled: Vec<String>,
}

/// Where this member and the server stand. Only reads: asking is not joining, so the counts are
/// the team's as they are (a member who has not run `team init` is not among them).
pub fn status(ws: &Workspace, t: &TeamConfig) -> Result<Status> {
    // Reached means the server answered, with a team store or not (`pg_isready`'s sense).
    let client = pg::Client::connect(&t.url, std::time::Duration::from_secs_f64(t.timeout_secs));
    let reached = client.is_ok();
    let read = client.and_then(server::checked).and_then(|mut c| {
        Ok((server::counts(&mut c, &t.name)?, server::is_member(&mut c, &t.name)?))
    });
    let (counts, error, joined) = match read {
        Ok((counts, joined)) => (Some(counts), None, Some(joined)),
        Err(e) => (None, Some(format!("{e:#}")), None),
    };
    let mut pulled: Vec<String> =
        pull::team_skill_names(&ws.paths.skills_dir, &t.name).into_iter().collect();
    pulled.sort();
    Ok(Status {
        team: t.name.clone(),
        member: t.member.clone(),
        server: pg::describe(&t.url),
        outbox: outbox::counts(ws.store.conn())?,
        reached,
        counts,
        error,
        joined,
        pulled,
    })
}

/// The team as the console shows it: open candidates with their drafts and flags, the team's
/// skills, the decisions with who made them, and the proposals waiting here.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TeamView {
    pub team: String,
    pub candidates: Vec<shared::TeamCandidate>,
    pub skills: Vec<shared::TeamSkill>,
    pub decisions: Vec<shared::Decision>,
    pub proposals: usize,
    /// Team skills whose rows could not be read, each with why.
    pub skipped: Vec<items::Skipped>,
}

/// Reads the team's state for the console (one connection, a few statements).
pub fn view(ws: &Workspace, t: &TeamConfig) -> Result<TeamView> {
    let mut client = connect(t)?;
    let mut decisions = shared::decisions(&mut client, &t.name)?;
    decisions.reverse();
    decisions.truncate(50);
    let mut skipped = Vec::new();
    let skills = shared::skills(&mut client, &t.name, 0, &mut skipped)?;
    Ok(TeamView {
        team: t.name.clone(),
        candidates: shared::candidates(&mut client, &t.name, false)?,
        skills,
        skipped,
        decisions,
        proposals: proposals::list(ws, &t.name)?.len(),
    })
}

/// A decision taken in the console's team scope.
#[derive(Debug, Clone, PartialEq)]
pub enum TeamOp {
    /// A candidate by id, with the SHA-256 of the draft the person read.
    Promote {
        id: i64,
        seen: String,
    },
    Dismiss {
        id: i64,
    },
    Pin {
        name: String,
        on: bool,
    },
}

/// What a team promotion says, in the console and the CLI alike: it reaches the others at their
/// next pull.
pub fn promoted_said(name: &str, team: &str) -> String {
    format!(
        "promoted {} to a team skill of {} (members get it with `skilldeck team pull`)",
        safe::inline(name),
        safe::inline(team)
    )
}

/// Applies `op` as this member; says what it did.
pub fn apply(ws: &Workspace, op: &TeamOp) -> Result<String> {
    let t = settings(ws)?;
    match op {
        TeamOp::Promote { id, seen } => {
            // A dangerous command is confirmed on the command line (`team promote ID --yes`).
            let name = promote_seen(ws, &t, &id.to_string(), Some(seen), false)?;
            Ok(promoted_said(&name, &t.name))
        }
        TeamOp::Dismiss { id } => {
            let name = shared::dismiss(&mut connect(&t)?, &t.name, &id.to_string())?;
            Ok(format!("dismissed team candidate {name}"))
        }
        TeamOp::Pin { name, on } => {
            shared::pin(&mut connect(&t)?, &t.name, name, *on)?;
            Ok(format!("{} team skill {name}", if *on { "pinned" } else { "unpinned" }))
        }
    }
}

/// What a background sync did, in one line: push, then pull. `None` without `[team]`. A server
/// that cannot be reached is said, not an error: the work stays queued for the next sync.
pub fn sync(ws: &mut Workspace) -> Option<String> {
    if ws.config.team.url.trim().is_empty() {
        return None;
    }
    let t = match settings(ws) {
        Ok(t) => t,
        Err(e) => return Some(format!("team: {e:#}")),
    };
    let pushed = match push(ws, &t) {
        Ok(r) => r,
        Err(e) => return Some(format!("team {}: {e:#}", t.name)),
    };
    let pulled = match pull(ws, &t) {
        Ok(report) => report,
        Err(e) => {
            return Some(format!("team {}: pushed {}, pull failed: {e:#}", t.name, pushed.stored));
        }
    };
    let new = pulled
        .skills
        .iter()
        .filter(|l| matches!(l.pulled, pull::Pulled::Added | pull::Pulled::Updated))
        .count();
    let proposed = pulled.skills.iter().filter(|l| l.pulled == pull::Pulled::Proposed).count();
    if pushed.stored == 0 && new == 0 && proposed == 0 && pulled.skipped.is_empty() {
        return None;
    }
    let mut line = format!(
        "team {}: pushed {} items, pulled {} new or updated skills",
        t.name, pushed.stored, new
    );
    if proposed > 0 {
        line.push_str(&format!(", {proposed} new proposals to review (skilldeck team proposals)"));
    }
    if !pulled.skipped.is_empty() {
        line.push_str(&format!(
            ", {} server rows skipped (skilldeck team pull)",
            pulled.skipped.len()
        ));
    }
    Some(line)
}
