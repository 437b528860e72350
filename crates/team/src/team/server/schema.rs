//! The team server's schema: its migrations, with the SQL functions members decide through and
//! the CHECK constraints that state the words `team::shared` writes.

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
