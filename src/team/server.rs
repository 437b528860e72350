//! The team's PostgreSQL server: connecting (one clear line when it cannot be reached), its
//! schema migrations (a version table, applied under an advisory lock so members starting at once
//! apply each once), and receiving a batch of queued items in one transaction.
//!
//! Owns the server tables `team_schema`, `team_members`, `team_turns` and `team_uses`; the
//! review tables (`team_candidates`, `team_skills`, `team_decisions`) belong to `team::shared`.

use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use postgres::config::Host;
use postgres::{Client, NoTls};
use serde::Serialize;

use super::items::{Item, TurnItem};
use super::outbox::Queued;
use crate::config::TeamConfig;

/// Seconds a connection attempt may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Any fixed number: the advisory lock migrations take.
const MIGRATION_LOCK: i64 = 0x5_6b11_dec6;

/// Migrations of the server schema, in order; each moves `team_schema.version` by one.
/// Only append.
pub const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE team_members (
    team        TEXT NOT NULL,
    member      TEXT NOT NULL,
    joined_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_push   TIMESTAMPTZ,
    PRIMARY KEY (team, member)
);
CREATE TABLE team_turns (
    id          BIGSERIAL PRIMARY KEY,
    team        TEXT NOT NULL,
    member      TEXT NOT NULL,
    item_key    TEXT NOT NULL,
    agent       TEXT NOT NULL,
    session     TEXT NOT NULL,
    project     TEXT,
    request     TEXT NOT NULL,
    at          TEXT,
    success     BOOLEAN NOT NULL,
    calls       TEXT NOT NULL,              -- JSON: step keys, redacted details, errors
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (team, member, item_key)
);
CREATE INDEX team_turns_order ON team_turns (team, at, id);
CREATE TABLE team_uses (
    id          BIGSERIAL PRIMARY KEY,
    team        TEXT NOT NULL,
    member      TEXT NOT NULL,
    item_key    TEXT NOT NULL,
    skill       TEXT NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
    source      TEXT NOT NULL,
    session     TEXT,
    at          TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (team, member, item_key)
);
CREATE INDEX team_uses_skill ON team_uses (team, skill, at, id);
CREATE TABLE team_candidates (
    id          BIGSERIAL PRIMARY KEY,
    team        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,              -- SHA-256 of the consensus step keys
    name        TEXT NOT NULL,
    skill_md    TEXT NOT NULL,
    evidence    TEXT NOT NULL,              -- JSON WorkflowEvidence
    support     INTEGER NOT NULL,
    members     INTEGER NOT NULL,
    score       DOUBLE PRECISION NOT NULL,
    status      TEXT NOT NULL DEFAULT 'candidate'
                CHECK (status IN ('candidate', 'promoted', 'dismissed')),
    detected_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    decided_by  TEXT,
    decided_at  TIMESTAMPTZ,
    UNIQUE (team, fingerprint)
);
CREATE TABLE team_skills (
    team        TEXT NOT NULL,
    name        TEXT NOT NULL,
    candidate_id BIGINT REFERENCES team_candidates(id),
    skill_md    TEXT NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1,
    status      TEXT NOT NULL DEFAULT 'healthy',
    pinned      BOOLEAN NOT NULL DEFAULT false,
    promoted_by TEXT NOT NULL,
    promoted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (team, name)
);
CREATE TABLE team_decisions (
    id          BIGSERIAL PRIMARY KEY,
    team        TEXT NOT NULL,
    subject     TEXT NOT NULL,              -- a skill's name or a candidate's id
    action      TEXT NOT NULL,              -- promote, dismiss, pin, unpin, status
    member      TEXT NOT NULL,
    note        TEXT,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
"#];

/// Where the server is, without a password: `host /tmp/pg, database team`.
pub fn describe(url: &str) -> String {
    let Ok(config) = url.parse::<postgres::Config>() else {
        return "(unparsable team.url)".into();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let host = if hosts.is_empty() { "localhost".to_string() } else { hosts.join(",") };
    format!("host {host}, database {}", config.get_dbname().or(config.get_user()).unwrap_or("?"))
}

/// Connects to the team's server and brings its schema up to date.
pub fn connect(team: &TeamConfig) -> Result<Client> {
    let mut config: postgres::Config = team
        .url
        .parse()
        .map_err(|e| anyhow!("team.url is not a PostgreSQL connection string: {e}"))?;
    config.connect_timeout(CONNECT_TIMEOUT);
    let mut client = config.connect(NoTls).map_err(|e| {
        anyhow!("team server unreachable ({}): {}", describe(&team.url), one_line(&e))
    })?;
    migrate(&mut client)?;
    Ok(client)
}

/// An error and its causes on one line.
pub fn one_line(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text.replace('\n', " ")
}

/// Applies the migrations the server lacks; returns the version in force.
pub fn migrate(client: &mut Client) -> Result<usize> {
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS team_schema (version INTEGER NOT NULL)")?;
    let current: Option<i32> =
        tx.query_opt("SELECT version FROM team_schema", &[])?.map(|r| r.get(0));
    let current = current.unwrap_or(0) as usize;
    if current > MIGRATIONS.len() {
        anyhow::bail!(
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
    tx.commit()?;
    Ok(MIGRATIONS.len())
}

/// Records a member of the team (again: nothing changes).
pub fn join(client: &mut Client, team: &str, member: &str) -> Result<()> {
    client.execute(
        "INSERT INTO team_members (team, member) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        &[&team, &member],
    )?;
    Ok(())
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
pub fn receive(
    client: &mut Client,
    team: &str,
    member: &str,
    batch: &[Queued],
) -> Result<Received> {
    let mut turns: (Vec<String>, Vec<String>, Vec<String>, Vec<Option<String>>) =
        Default::default();
    let mut turn_rest: (Vec<String>, Vec<Option<String>>, Vec<bool>, Vec<String>) =
        Default::default();
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
            }
            Item::Use(u) => {
                uses.0.push(q.key.clone());
                uses.1.push(u.skill.clone());
                uses.2.push(u.outcome.as_str().to_string());
                uses.3.push(u.source.clone());
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
                 (team, member, item_key, agent, session, project, request, at, success, calls)
             SELECT $1, $2, * FROM UNNEST($3::text[], $4::text[], $5::text[], $6::text[],
                                         $7::text[], $8::text[], $9::bool[], $10::text[])
             ON CONFLICT (team, member, item_key) DO NOTHING",
            &[
                &team,
                &member,
                &turns.0,
                &turns.1,
                &turns.2,
                &turns.3,
                &turn_rest.0,
                &turn_rest.1,
                &turn_rest.2,
                &turn_rest.3,
            ],
        )?;
    }
    if !uses.0.is_empty() {
        stored += tx.execute(
            "INSERT INTO team_uses (team, member, item_key, skill, outcome, source, session, at)
             SELECT $1, $2, * FROM UNNEST($3::text[], $4::text[], $5::text[], $6::text[],
                                         $7::text[], $8::text[])
             ON CONFLICT (team, member, item_key) DO NOTHING",
            &[&team, &member, &uses.0, &uses.1, &uses.2, &uses.3, &use_rest.0, &use_rest.1],
        )?;
    }
    tx.execute(
        "INSERT INTO team_members (team, member, last_push) VALUES ($1, $2, now())
         ON CONFLICT (team, member) DO UPDATE SET last_push = now()",
        &[&team, &member],
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

/// Every pooled turn of the team, in (at, id) order, handed to `each` one at a time.
pub fn for_each_turn(
    client: &mut Client,
    team: &str,
    mut each: impl FnMut(PooledTurn) -> Result<()>,
) -> Result<u64> {
    let mut tx = client.transaction()?;
    let portal = tx.bind(
        "SELECT id, member, agent, session, project, request, at, success, calls
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
            let calls: String = r.get(8);
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
                    calls: serde_json::from_str(&calls)?,
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
                (SELECT COUNT(*) FROM team_candidates WHERE team = $1 AND status = 'candidate'),
                (SELECT COUNT(*) FROM team_skills WHERE team = $1),
                (SELECT version FROM team_schema)",
        &[&team],
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
        let calls: Vec<super::items::CallItem> = serde_json::from_str(r.get::<_, &str>(2))?;
        let steps = calls.iter().flat_map(|c| c.step.lines().map(str::to_string)).collect();
        out.push(TurnSteps { member: r.get(0), session: r.get(1), steps });
    }
    Ok(out)
}
