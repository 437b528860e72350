//! The team's PostgreSQL server: connecting (one clear line when it cannot be reached), its
//! schema migrations (a version table, applied under an advisory lock so members starting at once
//! apply each once), and receiving a batch of queued items in one transaction.
//!
//! Owns the server tables `team_schema`, `team_members`, `team_turns` and `team_uses`; the
//! review tables (`team_candidates`, `team_skills`, `team_decisions`) belong to `team::shared`.

mod schema;

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use schema::MIGRATIONS;

use super::items::{Item, Skipped, TurnItem};
use super::outbox::Queued;
use super::pg::Client;
use crate::config::TeamConfig;
use crate::draft::CandidateStatus;
use crate::fsio;

/// Any fixed number: the advisory lock migrations take.
const MIGRATION_LOCK: i64 = 0x5_6b11_dec6;

/// The role every member's login role is granted: read the team's state, add evidence as
/// itself, and record decisions through the functions of `schema` (never by writing the tables).
pub const MEMBER_ROLE: &str = "skilldeck_member";

/// Connects to the team's server within `[team] timeout_secs`, as a member: the schema must be
/// the one this skilldeck knows (members never migrate the server).
pub fn connect(team: &TeamConfig) -> Result<Client> {
    checked(Client::connect(&team.url, Duration::from_secs_f64(team.timeout_secs))?)
}

/// `client`, once its server holds a team store of the schema this build speaks.
pub fn checked(mut client: Client) -> Result<Client> {
    let version = version(&mut client)?;
    let known = MIGRATIONS.len();
    if version > known {
        bail!(
            "team server schema version {version} is newer than this skilldeck understands \
             ({known}); upgrade skilldeck"
        );
    }
    if version == 0 {
        bail!(
            "no skilldeck team store on this server yet: the team's admin sets it up with \
             `skilldeck team init --admin` (see docs/team.md), then each member runs \
             `skilldeck team init`"
        );
    }
    if version < known {
        bail!(
            "team server schema is at version {version}, this skilldeck needs {known}: the team's \
             admin runs `skilldeck team init --admin` (see docs/team.md)"
        );
    }
    Ok(client)
}

/// The server's schema version; 0 when it has none yet.
pub fn version(client: &mut Client) -> Result<usize> {
    let exists: bool =
        client.query_one("SELECT to_regclass('team_schema') IS NOT NULL", &[])?.get(0);
    if !exists {
        return Ok(0);
    }
    // MAX: a second row someone added cannot make the read fail.
    let v: Option<i32> = client.query_one("SELECT max(version) FROM team_schema", &[])?.get(0);
    Ok(v.unwrap_or(0).max(0) as usize)
}

/// One line for an error from the server.
pub fn one_line(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().replace('\n', " "),
        None => super::pg::one_line(e),
    }
}

/// The admin step: applies the migrations the server lacks (creating the member role and its
/// grants), then grants the member role to each of `members`, creating a login role for a name
/// that has none. Returns the version in force.
pub fn migrate(client: &mut Client, members: &[String]) -> Result<usize> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS team_schema (version INTEGER NOT NULL)")?;
    let current: Option<i32> = tx.query_one("SELECT max(version) FROM team_schema", &[])?.get(0);
    let current = current.unwrap_or(0).max(0) as usize;
    if current > MIGRATIONS.len() {
        bail!(
            "team server schema version {current} is newer than this skilldeck understands ({}); \
             upgrade skilldeck",
            MIGRATIONS.len()
        );
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        tx.batch_execute(sql)
            .with_context(|| format!("applying team server migration {}", i + 1))?;
    }
    let version = MIGRATIONS.len() as i32;
    tx.execute("DELETE FROM team_schema", &[])?;
    tx.execute("INSERT INTO team_schema (version) VALUES ($1)", &[&version])?;
    tx.batch_execute("CREATE UNIQUE INDEX IF NOT EXISTS team_schema_one ON team_schema ((true))")?;
    for m in members {
        fsio::check_component("member role", m)?;
        let ident = quote_ident(m);
        let exists: bool =
            tx.query_one("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", &[m])?.get(0);
        if !exists {
            tx.batch_execute(&format!("CREATE ROLE {ident} LOGIN"))?;
        }
        tx.batch_execute(&format!("GRANT {MEMBER_ROLE} TO {ident}"))?;
    }
    tx.commit()?;
    Ok(MIGRATIONS.len())
}

/// A role name as an SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Who the server says this connection is: the member's PostgreSQL role.
pub fn whoami(client: &mut Client) -> Result<String> {
    Ok(client.query_one("SELECT session_user::text", &[])?.get(0))
}

/// Records this member (its role) in the team (again: nothing changes).
pub fn join(client: &mut Client, team: &str) -> Result<()> {
    client.execute(
        "INSERT INTO team_members (team, member) VALUES ($1, session_user) ON CONFLICT DO NOTHING",
        &[&team],
    )?;
    Ok(())
}

/// Whether this connection's role has joined `team`.
pub fn is_member(client: &mut Client, team: &str) -> Result<bool> {
    Ok(client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM team_members WHERE team = $1 AND member = session_user::text)",
            &[&team],
        )?
        .get(0))
}

/// What one batch did on the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Received {
    /// Items the server did not have.
    pub stored: u64,
    /// Items it already had (sent before a crash kept them queued here).
    pub already: u64,
}

/// Stores a batch in one transaction; keys the server has are skipped.
/// The server records each item as the connection's role, whatever a row might claim.
pub fn receive(client: &mut Client, team: &str, batch: &[Queued]) -> Result<Received> {
    let mut turns: (Vec<String>, Vec<String>, Vec<String>, Vec<Option<String>>) =
        Default::default();
    let mut turn_rest: (Vec<String>, Vec<Option<String>>, Vec<bool>, Vec<String>) =
        Default::default();
    let mut asked: Vec<bool> = Vec::new();
    let mut uses: (Vec<String>, Vec<String>, Vec<String>, Vec<String>) = Default::default();
    let mut use_rest: (Vec<Option<String>>, Vec<String>) = Default::default();
    for q in batch {
        match &q.item {
            Item::Turn(t) => {
                turns.0.push(q.key.clone());
                turns.1.push(t.agent.clone());
                turns.2.push(t.session.clone());
                turns.3.push(t.project.clone());
                turn_rest.0.push(t.request.clone());
                turn_rest.1.push(t.at.clone());
                turn_rest.2.push(t.success);
                turn_rest.3.push(serde_json::to_string(&t.calls)?);
                asked.push(t.asked);
            }
            Item::Use(u) => {
                uses.0.push(q.key.clone());
                uses.1.push(u.skill.clone());
                uses.2.push(u.outcome.as_str().to_string());
                uses.3.push(u.source.as_str().to_string());
                use_rest.0.push(u.session.clone());
                use_rest.1.push(u.at.clone());
            }
        }
    }
    let mut tx = client.transaction()?;
    let mut stored = 0;
    if !turns.0.is_empty() {
        stored += tx.execute(
            "INSERT INTO team_turns
                 (team, member, item_key, agent, session, project, request, at, success, calls,
                  asked)
             SELECT $1, session_user, * FROM UNNEST($2::text[], $3::text[], $4::text[],
                 $5::text[], $6::text[], $7::text[], $8::bool[], $9::text[], $10::bool[])
             ON CONFLICT (team, member, item_key) DO NOTHING",
            &[
                &team,
                &turns.0,
                &turns.1,
                &turns.2,
                &turns.3,
                &turn_rest.0,
                &turn_rest.1,
                &turn_rest.2,
                &turn_rest.3,
                &asked,
            ],
        )?;
    }
    if !uses.0.is_empty() {
        stored += tx.execute(
            "INSERT INTO team_uses (team, member, item_key, skill, outcome, source, session, at)
             SELECT $1, session_user, * FROM UNNEST($2::text[], $3::text[], $4::text[],
                 $5::text[], $6::text[], $7::text[])
             ON CONFLICT (team, member, item_key) DO NOTHING",
            &[&team, &uses.0, &uses.1, &uses.2, &uses.3, &use_rest.0, &use_rest.1],
        )?;
    }
    tx.execute(
        "INSERT INTO team_members (team, member, last_push) VALUES ($1, session_user, now())
         ON CONFLICT (team, member) DO UPDATE SET last_push = now()",
        &[&team],
    )?;
    tx.commit()?;
    Ok(Received { stored, already: batch.len() as u64 - stored })
}

/// A pooled turn: who pushed it and what it holds.
pub struct PooledTurn {
    pub id: i64,
    pub member: String,
    pub turn: TurnItem,
}

/// Every pooled turn of the team, in (at, id) order, handed to `each` one at a time; a row whose
/// calls cannot be read is skipped and named in `skipped`.
pub fn for_each_turn(
    client: &mut Client,
    team: &str,
    skipped: &mut Vec<Skipped>,
    mut each: impl FnMut(PooledTurn) -> Result<()>,
) -> Result<u64> {
    let mut tx = client.transaction()?;
    let portal = tx.bind(
        "SELECT id, member, agent, session, project, request, at, success, calls, asked
         FROM team_turns WHERE team = $1 ORDER BY at, id",
        &[&team],
    )?;
    let mut n = 0;
    loop {
        let rows = tx.query_portal(&portal, 2000)?;
        if rows.is_empty() {
            break;
        }
        for r in rows {
            let calls = match serde_json::from_str(r.get::<_, &str>(8)) {
                Ok(calls) => calls,
                Err(e) => {
                    skipped.push(Skipped::new("team_turns", r.get::<_, i64>(0), "calls", &e));
                    continue;
                }
            };
            each(PooledTurn {
                id: r.get(0),
                member: r.get(1),
                turn: TurnItem {
                    agent: r.get(2),
                    session: r.get(3),
                    project: r.get(4),
                    request: r.get(5),
                    at: r.get(6),
                    success: r.get(7),
                    asked: r.get(9),
                    calls,
                },
            })?;
            n += 1;
        }
    }
    tx.commit()?;
    Ok(n)
}

/// Counts on the server for one team.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServerCounts {
    pub members: i64,
    pub turns: i64,
    pub uses: i64,
    pub candidates: i64,
    pub skills: i64,
    pub schema_version: i32,
}

pub fn counts(client: &mut Client, team: &str) -> Result<ServerCounts> {
    let r = client.query_one(
        "SELECT (SELECT COUNT(*) FROM team_members WHERE team = $1),
                (SELECT COUNT(*) FROM team_turns WHERE team = $1),
                (SELECT COUNT(*) FROM team_uses WHERE team = $1),
                (SELECT COUNT(*) FROM team_candidates WHERE team = $1 AND status = $2),
                (SELECT COUNT(*) FROM team_skills WHERE team = $1),
                (SELECT max(version) FROM team_schema)",
        &[&team, &CandidateStatus::Candidate.as_str()],
    )?;
    Ok(ServerCounts {
        members: r.get(0),
        turns: r.get(1),
        uses: r.get(2),
        candidates: r.get(3),
        skills: r.get(4),
        schema_version: r.get(5),
    })
}

/// A pooled turn's identity and step keys, for missed triggers.
pub struct TurnSteps {
    pub member: String,
    pub session: String,
    pub steps: Vec<String>,
}

/// The team's pooled turns that ended at or after `since` (RFC 3339), with their step keys.
pub fn turn_steps_since(client: &mut Client, team: &str, since: &str) -> Result<Vec<TurnSteps>> {
    let rows = client.query(
        "SELECT member, session, calls FROM team_turns WHERE team = $1 AND at >= $2 ORDER BY at, id",
        &[&team, &since],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        // A row whose calls cannot be read shows no workflow (detection names it).
        let Ok(calls) = serde_json::from_str::<Vec<super::items::CallItem>>(r.get::<_, &str>(2))
        else {
            continue;
        };
        let steps = calls.iter().flat_map(|c| c.step.lines().map(str::to_string)).collect();
        out.push(TurnSteps { member: r.get(0), session: r.get(1), steps });
    }
    Ok(out)
}
