//! The team's PostgreSQL server: connecting (one clear line when it cannot be reached), its
//! schema migrations (a version table, applied under an advisory lock so members starting at once
//! apply each once), and receiving a batch of queued items in one transaction.
//!
//! Owns the server tables `team_schema`, `team_members`, `team_turns` and `team_uses`; the
//! review tables (`team_candidates`, `team_skills`, `team_decisions`) belong to `team::shared`.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::items::{Item, Skipped, TurnItem};
use super::outbox::Queued;
use super::pg::Client;
use crate::config::TeamConfig;
use crate::fsio;

/// Any fixed number: the advisory lock migrations take.
const MIGRATION_LOCK: i64 = 0x5_6b11_dec6;

/// The role every member's login role is granted: read the team's state, add evidence as
/// itself, and record decisions through the functions below (never by writing the tables).
pub const MEMBER_ROLE: &str = "skilldeck_member";

/// Migrations of the server schema, in order; each moves `team_schema.version` by one.
/// Only append.
pub const MIGRATIONS: &[&str] = &[
    r#"
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
"#,
    MIGRATION_2,
    MIGRATION_3,
    MIGRATION_4,
];

/// Whether the agent's last message in a pooled turn asked the user something (team detection
/// then reads the reply after it as local detection does). Rows pushed before it say no.
const MIGRATION_4: &str = "ALTER TABLE team_turns ADD COLUMN asked BOOLEAN NOT NULL DEFAULT false;";

/// A candidate's support and members are what the pooled evidence on this server shows: the
/// `team_turns` rows its evidence's sightings name (distinct sessions, distinct members), never
/// the counts the caller passes (`p_support`, `p_members` are kept in the signature, unread).
const MIGRATION_3: &str = r#"
CREATE OR REPLACE FUNCTION team_record_candidate(p_team TEXT, p_fingerprint TEXT, p_name TEXT,
        p_skill_md TEXT, p_evidence TEXT, p_support INTEGER, p_members INTEGER,
        p_score DOUBLE PRECISION) RETURNS BIGINT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
DECLARE v_id BIGINT; v_turns BIGINT[]; v_support INTEGER; v_members INTEGER;
BEGIN
    BEGIN
        SELECT coalesce(array_agg((s ->> 'turn_id')::bigint), '{}') INTO v_turns
          FROM jsonb_array_elements(
                   CASE WHEN jsonb_typeof(p_evidence::jsonb -> 'sightings') = 'array'
                        THEN p_evidence::jsonb -> 'sightings' ELSE '[]'::jsonb END) s;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'team candidate %: its evidence is not the JSON team detection writes',
            p_name;
    END;
    SELECT count(DISTINCT (member, session)), count(DISTINCT member) INTO v_support, v_members
      FROM team_turns WHERE team = p_team AND id = ANY (v_turns);
    INSERT INTO team_candidates
        (team, fingerprint, name, skill_md, evidence, support, members, score)
    VALUES (p_team, p_fingerprint, p_name, p_skill_md, p_evidence, v_support, v_members, p_score)
    ON CONFLICT (team, fingerprint) DO UPDATE SET
        skill_md = CASE WHEN team_candidates.status = 'candidate'
                        THEN EXCLUDED.skill_md ELSE team_candidates.skill_md END,
        evidence = EXCLUDED.evidence, support = EXCLUDED.support,
        members = EXCLUDED.members, score = EXCLUDED.score, detected_at = now()
    RETURNING id INTO v_id;
    RETURN v_id;
END $f$;
"#;

/// Members are their PostgreSQL role (`session_user`), forced by triggers on what they insert;
/// they hold SELECT on the team's tables, INSERT on evidence, and EXECUTE on the functions that
/// record candidates and decisions. A promotion records the SHA-256 of the text promoted:
/// members' machines write a team skill live only when its text still has that hash.
const MIGRATION_2: &str = r#"
ALTER TABLE team_decisions ADD COLUMN sha256 TEXT, ADD COLUMN value TEXT;
CREATE FUNCTION team_as_session_user() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN NEW.member := session_user; RETURN NEW; END $f$;
CREATE TRIGGER team_turns_member BEFORE INSERT OR UPDATE ON team_turns
    FOR EACH ROW EXECUTE FUNCTION team_as_session_user();
CREATE TRIGGER team_uses_member BEFORE INSERT OR UPDATE ON team_uses
    FOR EACH ROW EXECUTE FUNCTION team_as_session_user();
CREATE TRIGGER team_members_member BEFORE INSERT ON team_members
    FOR EACH ROW EXECUTE FUNCTION team_as_session_user();

CREATE FUNCTION team_record_candidate(p_team TEXT, p_fingerprint TEXT, p_name TEXT,
        p_skill_md TEXT, p_evidence TEXT, p_support INTEGER, p_members INTEGER,
        p_score DOUBLE PRECISION) RETURNS BIGINT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
DECLARE v_id BIGINT;
BEGIN
    INSERT INTO team_candidates
        (team, fingerprint, name, skill_md, evidence, support, members, score)
    VALUES (p_team, p_fingerprint, p_name, p_skill_md, p_evidence, p_support, p_members, p_score)
    ON CONFLICT (team, fingerprint) DO UPDATE SET
        skill_md = CASE WHEN team_candidates.status = 'candidate'
                        THEN EXCLUDED.skill_md ELSE team_candidates.skill_md END,
        evidence = EXCLUDED.evidence, support = EXCLUDED.support,
        members = EXCLUDED.members, score = EXCLUDED.score, detected_at = now()
    RETURNING id INTO v_id;
    RETURN v_id;
END $f$;

CREATE FUNCTION team_promote(p_team TEXT, p_which TEXT, p_sha256 TEXT) RETURNS TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
DECLARE c team_candidates%ROWTYPE;
BEGIN
    SELECT * INTO c FROM team_candidates
     WHERE team = p_team AND (id::text = p_which OR name = p_which) ORDER BY id LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no team candidate % in team % (see `skilldeck team candidates`)', p_which, p_team;
    END IF;
    IF c.status <> 'candidate' THEN
        RAISE EXCEPTION 'team candidate % (%) is already %', c.id, c.name, c.status;
    END IF;
    IF encode(sha256(convert_to(c.skill_md, 'UTF8')), 'hex') IS DISTINCT FROM p_sha256 THEN
        RAISE EXCEPTION 'team candidate % (%) changed since you read it: review it again', c.id, c.name;
    END IF;
    IF EXISTS (SELECT 1 FROM team_skills WHERE team = p_team AND name = c.name) THEN
        RAISE EXCEPTION 'team % already has a skill named %', p_team, c.name;
    END IF;
    INSERT INTO team_skills (team, name, candidate_id, skill_md, promoted_by)
    VALUES (p_team, c.name, c.id, c.skill_md, session_user);
    UPDATE team_candidates SET status = 'promoted', decided_by = session_user, decided_at = now()
     WHERE id = c.id;
    INSERT INTO team_decisions (team, subject, action, member, note, sha256)
    VALUES (p_team, c.name, 'promote', session_user, 'candidate ' || c.id, p_sha256);
    RETURN c.name;
END $f$;

CREATE FUNCTION team_dismiss(p_team TEXT, p_which TEXT) RETURNS TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
DECLARE v_id BIGINT; v_name TEXT;
BEGIN
    UPDATE team_candidates SET status = 'dismissed', decided_by = session_user, decided_at = now()
     WHERE id = (SELECT id FROM team_candidates WHERE team = p_team
                  AND (id::text = p_which OR name = p_which) AND status = 'candidate'
                  ORDER BY id LIMIT 1)
    RETURNING id, name INTO v_id, v_name;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'no open team candidate % in team %', p_which, p_team;
    END IF;
    INSERT INTO team_decisions (team, subject, action, member, note)
    VALUES (p_team, v_id::text, 'dismiss', session_user, v_name);
    RETURN v_name;
END $f$;

CREATE FUNCTION team_pin(p_team TEXT, p_name TEXT, p_on BOOLEAN) RETURNS VOID
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
BEGIN
    UPDATE team_skills SET pinned = p_on WHERE team = p_team AND name = p_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'team % has no skill named %', p_team, p_name;
    END IF;
    INSERT INTO team_decisions (team, subject, action, member)
    VALUES (p_team, p_name, CASE WHEN p_on THEN 'pin' ELSE 'unpin' END, session_user);
END $f$;

CREATE FUNCTION team_set_status(p_team TEXT, p_name TEXT, p_status TEXT, p_reason TEXT)
RETURNS BOOLEAN
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
BEGIN
    IF p_status NOT IN ('healthy', 'warning', 'deprecated', 'degraded', 'retired', 'archived') THEN
        RAISE EXCEPTION 'not a skill status: %', p_status;
    END IF;
    UPDATE team_skills SET status = p_status
     WHERE team = p_team AND name = p_name AND status <> p_status;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO team_decisions (team, subject, action, member, note, value)
    VALUES (p_team, p_name, 'status', session_user, p_status || ': ' || p_reason, p_status);
    RETURN true;
END $f$;

DO $f$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'skilldeck_member') THEN
        CREATE ROLE skilldeck_member NOLOGIN;
    END IF;
END $f$;
REVOKE ALL ON team_schema, team_members, team_turns, team_uses, team_candidates, team_skills,
    team_decisions FROM PUBLIC;
GRANT SELECT ON team_schema, team_members, team_turns, team_uses, team_candidates, team_skills,
    team_decisions TO skilldeck_member;
GRANT INSERT ON team_turns, team_uses, team_members TO skilldeck_member;
GRANT UPDATE (last_push) ON team_members TO skilldeck_member;
GRANT USAGE ON SEQUENCE team_turns_id_seq, team_uses_id_seq TO skilldeck_member;
REVOKE ALL ON FUNCTION team_record_candidate(TEXT, TEXT, TEXT, TEXT, TEXT, INTEGER, INTEGER,
    DOUBLE PRECISION), team_promote(TEXT, TEXT, TEXT), team_dismiss(TEXT, TEXT),
    team_pin(TEXT, TEXT, BOOLEAN), team_set_status(TEXT, TEXT, TEXT, TEXT) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION team_record_candidate(TEXT, TEXT, TEXT, TEXT, TEXT, INTEGER, INTEGER,
    DOUBLE PRECISION), team_promote(TEXT, TEXT, TEXT), team_dismiss(TEXT, TEXT),
    team_pin(TEXT, TEXT, BOOLEAN), team_set_status(TEXT, TEXT, TEXT, TEXT) TO skilldeck_member;
"#;

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
                (SELECT COUNT(*) FROM team_candidates WHERE team = $1 AND status = 'candidate'),
                (SELECT COUNT(*) FROM team_skills WHERE team = $1),
                (SELECT max(version) FROM team_schema)",
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
