-- What the migrations of schema.rs build in an empty database. Written by
-- SKILLDECK_BLESS_SCHEMA=1 cargo test -p skilldeck-core new_database: do not edit.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE ingested_files (
    path        TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    format      TEXT NOT NULL,              -- claude | codex | native
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    offset      INTEGER NOT NULL,           -- byte offset after the last complete line read
    head_hash   TEXT,                       -- hash of the first bytes, to notice a replaced file
    lines       INTEGER NOT NULL DEFAULT 0,
    bad_lines   INTEGER NOT NULL DEFAULT 0,
    unknown_lines INTEGER NOT NULL DEFAULT 0,
    state       TEXT,                       -- parser state carried between runs (JSON)
    updated_at  TEXT NOT NULL
);
CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    session_key TEXT NOT NULL,              -- Claude sessionId, Codex session id, native session
    source      TEXT NOT NULL,              -- claude | stream-json | codex | native
    project     TEXT,
    started_at  TEXT,
    ended_at    TEXT, title TEXT,
    UNIQUE(agent_id, session_key)
);
CREATE TABLE turns (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    file_path   TEXT NOT NULL,
    start_offset INTEGER NOT NULL DEFAULT 0,
    user_input  TEXT NOT NULL,
    signature   TEXT,                       -- task signature ('' when empty)
    picked_skill TEXT,
    outcome     TEXT NOT NULL CHECK(outcome IN ('success', 'failure')),
    failure_reason TEXT,
    summary     TEXT,
    started_at  TEXT,
    ended_at    TEXT,
    is_sidechain INTEGER NOT NULL DEFAULT 0,
    complete    INTEGER NOT NULL DEFAULT 0, -- no more lines can join this turn
    model TEXT, tokens INTEGER);
CREATE INDEX turns_session ON turns(session_id);
CREATE TABLE tool_calls (
    id          INTEGER PRIMARY KEY,
    turn_id     INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    call_id     TEXT,
    name        TEXT NOT NULL,
    input_shape TEXT NOT NULL,              -- keys and JSON value types, never values
    is_error    INTEGER NOT NULL DEFAULT 0,
    at          TEXT
, step TEXT, detail TEXT);
CREATE TABLE signature_streaks (
    agent_id    TEXT NOT NULL DEFAULT 'default',
    signature   TEXT NOT NULL,
    count       INTEGER NOT NULL,
    examples    TEXT NOT NULL,              -- JSON array of {user_input, summary, turn_id}
    updated_at  TEXT NOT NULL,
    PRIMARY KEY(agent_id, signature)
);
CREATE TABLE skill_candidates (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id      TEXT NOT NULL DEFAULT 'default',
    hash          TEXT NOT NULL,
    name          TEXT NOT NULL,
    description   TEXT,
    tool_sequence TEXT NOT NULL,            -- JSON array of tool names + param shapes
    session_keys  TEXT NOT NULL,            -- JSON array of originating session keys
    occurrences   INTEGER NOT NULL DEFAULT 1,
    status        TEXT NOT NULL DEFAULT 'candidate'
                  CHECK(status IN ('candidate', 'promoted', 'dismissed')),
    created_at    TEXT NOT NULL DEFAULT (datetime('now')),
    promoted_at   TEXT,
    source        TEXT NOT NULL DEFAULT 'sequence', -- sequence | signature
    signature     TEXT,
    examples      TEXT NOT NULL DEFAULT '[]',       -- JSON array of example user inputs
    skill_md      TEXT,                             -- proposed SKILL.md text
    staged_path   TEXT,                             -- folder in the staging area
    target_skill_id INTEGER,                        -- set when this proposes a new version
    dismissed_at  TEXT, evidence_only INTEGER NOT NULL DEFAULT 0, reason TEXT, workflow TEXT, flags TEXT NOT NULL DEFAULT '[]', drafted_by TEXT NOT NULL DEFAULT 'mechanical', draft_note TEXT, workflow_id INTEGER, absorbs_skill_id INTEGER, base_sha256 TEXT,
    UNIQUE(agent_id, hash)
);
CREATE TABLE sequence_sightings (
    agent_id      TEXT NOT NULL DEFAULT 'default',
    hash          TEXT NOT NULL,
    session_key   TEXT NOT NULL,
    turn_id       INTEGER NOT NULL,
    user_input    TEXT NOT NULL,
    tool_sequence TEXT NOT NULL,            -- JSON array of {name, input_shape}
    seen_at       TEXT NOT NULL,
    PRIMARY KEY(agent_id, hash, session_key)
);
CREATE TABLE skills (
    id            INTEGER PRIMARY KEY,
    agent_id      TEXT NOT NULL DEFAULT 'default',
    name          TEXT NOT NULL,
    namespace     TEXT NOT NULL DEFAULT 'default',
    is_public     INTEGER NOT NULL DEFAULT 0,
    scope         TEXT NOT NULL DEFAULT 'account', -- account | workspace
    description   TEXT,
    path          TEXT NOT NULL,                   -- the skill's folder
    status        TEXT NOT NULL DEFAULT 'healthy',
    protected     INTEGER NOT NULL DEFAULT 0,
    version       INTEGER NOT NULL DEFAULT 1,
    is_auto_created INTEGER NOT NULL DEFAULT 0,
    candidate_id  INTEGER,
    tool_sequence TEXT,                            -- JSON, for evolution overlap
    approved_sha256 TEXT,                          -- bytes an auto-draft was approved at
    success_count INTEGER NOT NULL DEFAULT 0,
    failure_count INTEGER NOT NULL DEFAULT 0,
    last_outcome  TEXT,
    -- lifecycle: an approved auto-draft whose bytes changed waits for a person again
    needs_review  INTEGER NOT NULL DEFAULT 0,
    triggers      TEXT NOT NULL DEFAULT '[]',      -- JSON array of trigger phrases, for suggest
    file_mtime_ns INTEGER,                         -- SKILL.md stat when last read, to skip rereads
    file_size     INTEGER,
    streak_reset_at TEXT,                          -- restore: Ghost's rules count from here
    flag_mark     INTEGER,                         -- newest invocation id when degraded/deprecated
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    deprecated_at TEXT,
    -- Package columns; NULL for skills that are not packages.
    package_uuid  TEXT,                            -- the package JSON's "id"
    display_name  TEXT,                            -- the package JSON's "name" (name is its slug)
    package_version TEXT,                          -- the package JSON's "version" (e.g. '1.0.0')
    tags          TEXT,                            -- JSON array of strings
    source        TEXT,                            -- system | community | user | acquired
    author        TEXT,
    intent_patterns TEXT,                          -- JSON array of strings
    trigger_phrases TEXT,                          -- JSON array of strings
    marketplace_id TEXT,
    sync_etag     TEXT, stale_since TEXT, absorbed_into INTEGER,
    UNIQUE(agent_id, namespace, name, scope)
);
CREATE INDEX skills_agent_name ON skills(agent_id, name);
CREATE INDEX skills_updated ON skills(updated_at);
CREATE INDEX skills_reset ON skills(id) WHERE streak_reset_at IS NOT NULL;
CREATE TABLE skill_versions (
    id          INTEGER PRIMARY KEY,
    skill_id    INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    content     TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    source      TEXT NOT NULL,              -- promote | approve | edit | rollback | import
    created_at  TEXT NOT NULL,
    UNIQUE(skill_id, version)
);
CREATE TABLE skill_invocations (
    id          INTEGER PRIMARY KEY,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    skill_name  TEXT NOT NULL,
    skill_id    INTEGER,
    outcome     TEXT NOT NULL CHECK(outcome IN ('success', 'failure')),
    source      TEXT NOT NULL,              -- transcript | explicit | implicit | check
    session_key TEXT,
    turn_id     INTEGER,
    call_id     TEXT,
    note        TEXT,
    at          TEXT NOT NULL,
    superseded  INTEGER NOT NULL DEFAULT 0      -- an implicit failure replaced this success
);
CREATE INDEX skill_invocations_scan ON skill_invocations(skill_id, at, id, outcome, superseded);
CREATE INDEX skill_invocations_turn ON skill_invocations(turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX skill_invocations_skill ON skill_invocations(agent_id, skill_name, at);
CREATE UNIQUE INDEX skill_invocations_call ON skill_invocations(agent_id, call_id) WHERE call_id IS NOT NULL;
CREATE TABLE skill_events (
    id          INTEGER PRIMARY KEY,
    skill_id    INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    from_status TEXT,
    to_status   TEXT,
    reason      TEXT NOT NULL
);
CREATE INDEX skill_events_skill ON skill_events(skill_id, at);
CREATE TABLE evolved_prompts (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    skill_name  TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    score       REAL NOT NULL,
    scorer      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE TABLE skill_artifacts (
    id            TEXT PRIMARY KEY,                -- UUID
    skill_id      INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK(kind IN ('description', 'prompt_template', 'code_template', 'dspy_module')),
    name          TEXT NOT NULL,
    ordinal       INTEGER NOT NULL DEFAULT 0,
    content       TEXT NOT NULL,
    model_variant TEXT,                            -- NULL = default; else model family key
    metadata      TEXT,                            -- JSON object: fallback_artifact, assertions, ...
    state_blob    BLOB,                            -- dspy_module state, kept as given
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE(skill_id, name, model_variant)
);
CREATE INDEX idx_skill_artifacts_skill_id ON skill_artifacts(skill_id);
CREATE INDEX idx_skill_artifacts_kind ON skill_artifacts(kind);
CREATE TABLE skill_execution_traces (
    id            TEXT PRIMARY KEY,                -- UUID
    session_id    TEXT NOT NULL,
    skill_id      INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
    artifact_id   TEXT NOT NULL,
    artifact_kind TEXT NOT NULL,
    rendered_input TEXT,
    raw_output    TEXT,
    error         TEXT,
    started_at    TEXT NOT NULL,
    completed_at  TEXT,
    duration_ms   INTEGER,
    input_tokens  INTEGER,
    output_tokens INTEGER,
    model_id      TEXT,
    estimated_cost REAL,
    assertions_run INTEGER DEFAULT 0,
    assertions_passed INTEGER DEFAULT 0,
    assertion_results TEXT,                        -- JSON array: each assertion's verdict
    created_at    TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX idx_traces_session_id ON skill_execution_traces(session_id);
CREATE INDEX idx_traces_skill_id ON skill_execution_traces(skill_id);
CREATE INDEX idx_traces_artifact_id ON skill_execution_traces(artifact_id);
CREATE TABLE skill_selections (
    set_name      TEXT NOT NULL,
    agent_id      TEXT NOT NULL DEFAULT 'default',
    position      INTEGER NOT NULL,
    requested     TEXT NOT NULL,                   -- the text as typed: NAME, NS/NAME, public:NS/NAME
    name          TEXT NOT NULL,
    namespace     TEXT,
    is_public     INTEGER,
    created_at    TEXT NOT NULL,
    PRIMARY KEY(agent_id, set_name, position)
);
CREATE TABLE acquired_code (
    skill_id      INTEGER PRIMARY KEY REFERENCES skills(id) ON DELETE CASCADE,
    script_path   TEXT NOT NULL,
    interpreter   TEXT NOT NULL,                   -- JSON array: program and leading args
    sha256        TEXT NOT NULL,
    test_payload  TEXT NOT NULL,
    sanitized     TEXT NOT NULL DEFAULT '[]',      -- JSON array of the repairs applied
    tested_at     TEXT NOT NULL
);
CREATE TABLE workflow_step_df (
    agent_id  TEXT NOT NULL,
    step      TEXT NOT NULL,
    turns     INTEGER NOT NULL,
    PRIMARY KEY(agent_id, step)
) WITHOUT ROWID;
CREATE TABLE workflows (
    id          INTEGER PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    steps       TEXT NOT NULL,              -- JSON array of step keys: the representative sequence
    members     INTEGER NOT NULL DEFAULT 0,
    sessions    INTEGER NOT NULL DEFAULT 0, -- distinct sessions among members
    candidate_id INTEGER,                   -- skill_candidates row once proposed or recorded
    updated_at  TEXT NOT NULL
, consensus TEXT);
CREATE TABLE workflow_index (
    agent_id    TEXT NOT NULL,
    step        TEXT NOT NULL,
    workflow_id INTEGER NOT NULL,
    PRIMARY KEY(agent_id, step, workflow_id)
) WITHOUT ROWID;
CREATE INDEX turns_session_signature ON turns(session_id, signature, id);
CREATE INDEX skill_candidates_workflow ON skill_candidates(workflow_id) WHERE workflow_id IS NOT NULL;
CREATE TABLE candidate_sessions (
    candidate_id INTEGER NOT NULL,
    session_key  TEXT NOT NULL,
    UNIQUE(candidate_id, session_key)
);
CREATE INDEX skill_candidates_name ON skill_candidates(name);
CREATE TABLE workflow_members (
    workflow_id INTEGER NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    turn_id     INTEGER NOT NULL,
    iteration   INTEGER NOT NULL DEFAULT 0, -- which repetition of the task's loop (0: no loop)
    session_key TEXT NOT NULL,
    project     TEXT,
    steps       TEXT NOT NULL,
    failures    TEXT NOT NULL DEFAULT '[]',
    request     TEXT NOT NULL,
    at          TEXT,
    success     INTEGER NOT NULL,
    PRIMARY KEY(workflow_id, turn_id, iteration)
) WITHOUT ROWID;
CREATE INDEX workflow_members_session ON workflow_members(workflow_id, session_key);
CREATE INDEX workflow_members_turn ON workflow_members(turn_id);
CREATE TABLE lessons (
    id              INTEGER PRIMARY KEY,
    agent_id        TEXT NOT NULL,
    kind            TEXT NOT NULL,              -- correction | recurring_fix
    status          TEXT NOT NULL DEFAULT 'sighted',
    source_hash     TEXT NOT NULL,              -- what makes two sightings the same lesson
    trigger         TEXT NOT NULL,              -- the task class, in words
    trigger_step    TEXT NOT NULL,              -- step key a later turn runs when the lesson applies
    anti_pattern    TEXT NOT NULL,
    anti_match      TEXT NOT NULL,              -- JSON lessons::AntiMatch: how a turn repeats it
    correct_pattern TEXT NOT NULL,
    domains         TEXT NOT NULL DEFAULT '[]', -- JSON array
    confidence      REAL NOT NULL,
    reject_reason   TEXT,                       -- why the generalization guard refused it
    verified        INTEGER NOT NULL DEFAULT 0,
    retrievals      INTEGER NOT NULL DEFAULT 0, -- later matching turns, after approval
    helpful         INTEGER NOT NULL DEFAULT 0, -- of those, turns that avoided the anti-pattern
    before_turns    INTEGER NOT NULL DEFAULT 0, -- matching turns before approval
    before_hits     INTEGER NOT NULL DEFAULT 0, -- of those, turns with the anti-pattern
    approved_turn   INTEGER,                    -- highest turn id when approved
    approved_at     TEXT,
    last_retrieved_at TEXT,
    edited          INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    UNIQUE(agent_id, source_hash)
);
CREATE INDEX lessons_status ON lessons(status);
CREATE TABLE lesson_sessions (
    lesson_id   INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,
    session_key TEXT NOT NULL,
    turn_id     INTEGER NOT NULL,
    project     TEXT,
    evidence    TEXT NOT NULL,                  -- JSON lessons::Evidence
    PRIMARY KEY(lesson_id, session_key)
) WITHOUT ROWID;
CREATE TABLE lesson_progress (
    session_id   INTEGER PRIMARY KEY,
    last_turn_id INTEGER NOT NULL
);
CREATE TABLE team_outbox (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK(kind IN ('turn', 'use')),
    item_key    TEXT NOT NULL UNIQUE,
    payload     TEXT NOT NULL,              -- JSON, exactly what is sent
    queued_at   TEXT NOT NULL,
    sent_at     TEXT
);
CREATE INDEX team_outbox_unsent ON team_outbox(id) WHERE sent_at IS NULL;
CREATE TABLE skill_effects (
    skill_id    INTEGER PRIMARY KEY,
    computed_at TEXT NOT NULL,
    verdict     TEXT NOT NULL,
    score       REAL,                       -- success rate with minus without, when judged
    runs_with   INTEGER NOT NULL,
    runs_without INTEGER NOT NULL,
    effect      TEXT NOT NULL               -- JSON usage::effect::Effect
);
CREATE TABLE intents (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK(kind IN ('move', 'write', 'install', 'drafts', 'merge')),
    pid         INTEGER NOT NULL,
    from_path   TEXT,
    to_path     TEXT,
    aside_path  TEXT,
    old_content BLOB,
    new_sha256  TEXT,                       -- write: the new bytes' hash; merge: the candidate id
    started_at  TEXT NOT NULL
);
CREATE TABLE skill_trials (
    id            INTEGER PRIMARY KEY,
    skill_id      INTEGER,
    candidate_id  INTEGER,
    name          TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    status        TEXT NOT NULL CHECK(status IN ('running', 'done', 'failed')),
    pid           INTEGER NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    agent_command TEXT NOT NULL,
    verdict       TEXT,
    error         TEXT,
    result        TEXT                      -- JSON trial::Trial
);
CREATE INDEX skill_trials_skill ON skill_trials(skill_id, id);
CREATE INDEX skill_trials_candidate ON skill_trials(candidate_id, id);
CREATE INDEX skill_candidates_proposed_workflows
    ON skill_candidates(agent_id) WHERE evidence_only = 0 AND source = 'workflow';
CREATE INDEX turns_signature_session
    ON turns(signature, session_id) WHERE signature IS NOT NULL AND signature <> '';
CREATE INDEX tool_calls_turn_order ON tool_calls(turn_id, ordinal);
CREATE TABLE pending_turns (
    turn_id  INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    ended_at TEXT                -- the turn's, for the order
);
CREATE INDEX pending_turns_order ON pending_turns(ended_at, turn_id);
CREATE INDEX tool_calls_failed ON tool_calls(turn_id) WHERE is_error;
CREATE INDEX sequence_sightings_turn ON sequence_sightings(turn_id, agent_id, hash);
INSERT INTO "meta" VALUES('ingest.keys','spelled');
