//! A team's skills on PostgreSQL: members push the evidence their machines already redacted
//! (`collect`, queued in `outbox`, received by `server`), team detection mines the pooled
//! evidence with local discovery's rules (`detect`), members review team candidates (`shared`),
//! promoted team skills are pulled into every member's skills folder (`pull`), and the pooled
//! uses give one score per team skill (`score`). The local SQLite database stays the store of
//! everything else; nothing here runs unless `[team]` is configured. See docs/team.md.

pub mod collect;
pub mod detect;
pub mod items;
pub mod outbox;
pub mod pull;
pub mod score;
pub mod server;
pub mod shared;

use anyhow::{Result, anyhow, bail};
use postgres::Client;
use rusqlite::Connection;
use serde::Serialize;

use crate::config::TeamConfig;
use crate::store::now_rfc3339;
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
    Ok(t)
}

fn hasher(t: &TeamConfig) -> Hasher {
    Hasher { team: t.name.clone(), on: t.hash_identifiers }
}

/// Connects to the server (migrating it) and records this member.
pub fn connect(t: &TeamConfig) -> Result<Client> {
    let mut client = server::connect(t)?;
    server::join(&mut client, &t.name, &t.member)?;
    Ok(client)
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
        let got =
            server::receive(client, &t.name, &t.member, &batch).map_err(|e| match e
                .downcast_ref::<postgres::Error>()
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

/// Brings the team's skills into this member's skills folder.
pub fn pull(ws: &mut Workspace, t: &TeamConfig) -> Result<Vec<pull::PullLine>> {
    let mut client = connect(t)?;
    let skills = shared::skills(&mut client, &t.name)?;
    pull::pull(ws, &t.name, &skills)
}

/// Mines the pooled evidence and records team candidates.
pub fn detect(ws: &Workspace, t: &TeamConfig) -> Result<detect::TeamDetectReport> {
    let mut client = connect(t)?;
    detect::run(&mut client, &t.name, &ws.config.detect)
}

/// Promotes a team candidate, writing it to the team's skills folder when one is configured.
pub fn promote(ws: &Workspace, t: &TeamConfig, which: &str) -> Result<String> {
    let mut client = connect(t)?;
    let name = shared::promote(&mut client, &t.name, which, &t.member)?;
    if let Some(dir) = &ws.config.team.skills_dir
        && let Some(skill) =
            shared::skills(&mut client, &t.name)?.into_iter().find(|s| s.name == name)
    {
        pull::write_team_folder(dir, &skill)?;
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
    /// The server's counts, or why it could not be reached.
    pub reached: Result<server::ServerCounts, String>,
    pub pulled: Vec<String>,
}

pub fn status(ws: &Workspace, t: &TeamConfig) -> Result<Status> {
    let reached =
        connect(t).and_then(|mut c| server::counts(&mut c, &t.name)).map_err(|e| format!("{e:#}"));
    let mut pulled: Vec<String> =
        pull::team_skill_names(&ws.paths.skills_dir, &t.name).into_iter().collect();
    pulled.sort();
    Ok(Status {
        team: t.name.clone(),
        member: t.member.clone(),
        server: server::describe(&t.url),
        outbox: outbox::counts(ws.store.conn())?,
        reached,
        pulled,
    })
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
        Ok(lines) => lines,
        Err(e) => {
            return Some(format!("team {}: pushed {}, pull failed: {e:#}", t.name, pushed.stored));
        }
    };
    let new = pulled
        .iter()
        .filter(|l| matches!(l.pulled, pull::Pulled::Added | pull::Pulled::Updated))
        .count();
    if pushed.stored == 0 && new == 0 {
        return None;
    }
    Some(format!(
        "team {}: pushed {} items, pulled {} new or updated skills",
        t.name, pushed.stored, new
    ))
}
