//! Schema migrations, keyed on `PRAGMA user_version`.
//!
//! Each entry of `MIGRATIONS` moves the database from version `i` to `i + 1`. Until the first
//! release, migration 1 may still be edited in place; after it, only append (and bless `FRESH`).

/// What replaying every migration leaves in an empty database, applied to a new one in one batch:
/// each object's SQL as SQLite keeps it, in the order they were made, then the rows migrations
/// insert. Replaying them re-parses the whole schema at each `ALTER TABLE`, about 18 ms of a first
/// `skilldeck ingest` and of every test that opens a database. The store's test
/// `a_new_database_gets_what_the_migrations_build` checks that the two agree; after appending a
/// migration, `SKILLDECK_BLESS_SCHEMA=1 cargo test -p skilldeck-core new_database` rewrites it.
pub const FRESH: &str = include_str!("fresh.sql");

pub const MIGRATIONS: &[&str] = &[
    V1,
    V_DRAFTS,
    V_CANONICAL_KEYS,
    V_WRITE,
    V_RETRY_INDEX,
    V_LOOP,
    V_WORKFLOWS,
    V_INTENTS,
    V_MERGES,
    V_CANDIDATE_SESSIONS,
    V_PENDING_ORDER,
    V_ITERATIONS,
    V_LESSONS,
    V_TEAM_OUTBOX,
    V_EFFECT,
    V_MERGE_INTENTS,
    V_PROPOSAL_BASE,
    V_TRIALS,
    V_PROPOSED_WORKFLOWS,
    V_ASKED_SESSIONS,
    V_SESSION_TITLES,
    V_CALLS_IN_ORDER,
    V_PENDING_ONLY,
    V_PENDING_QUEUE,
    V_FAILED_CALLS,
    V_SIGHTINGS_BY_TURN,
];

const V1: &str = r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Ingestion: one row per transcript file, with how far it has been read.
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
    ended_at    TEXT,
    UNIQUE(agent_id, session_key)
);

-- A user prompt and the agent's work until the next prompt.
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
    detected    INTEGER NOT NULL DEFAULT 0  -- consumed by detection
);
CREATE INDEX turns_pending ON turns(detected, complete);
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
);
CREATE INDEX tool_calls_turn ON tool_calls(turn_id);

-- Detection: streaks of consecutive successes per task signature.
CREATE TABLE signature_streaks (
    agent_id    TEXT NOT NULL DEFAULT 'default',
    signature   TEXT NOT NULL,
    count       INTEGER NOT NULL,
    examples    TEXT NOT NULL,              -- JSON array of {user_input, summary, turn_id}
    updated_at  TEXT NOT NULL,
    PRIMARY KEY(agent_id, signature)
);

-- Candidates: the evidence, plus where the evidence came from and the proposed SKILL.md.
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
    dismissed_at  TEXT,
    UNIQUE(agent_id, hash)
);

-- Detection: every session a tool-sequence hash was seen in, before and after it becomes a
-- candidate (a candidate needs `detect.min_sessions` distinct sessions).
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
    sync_etag     TEXT,
    UNIQUE(agent_id, namespace, name, scope)
);
CREATE INDEX skills_agent_name ON skills(agent_id, name);
-- lifecycle: the incremental sweep's "changed since" and restored-skill lookups
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
-- lifecycle: the sweep's one ordered scan reads only this index
CREATE INDEX skill_invocations_scan ON skill_invocations(skill_id, at, id, outcome, superseded);
CREATE INDEX skill_invocations_turn ON skill_invocations(turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX skill_invocations_skill ON skill_invocations(agent_id, skill_name, at);
CREATE UNIQUE INDEX skill_invocations_call ON skill_invocations(agent_id, call_id) WHERE call_id IS NOT NULL;

-- Every state change of a skill, for the health timeline.
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

-- Evolved prompts: one per draft (fresh UUID v4 key).
CREATE TABLE evolved_prompts (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL DEFAULT 'default',
    skill_name  TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    score       REAL NOT NULL,
    scorer      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

-- Packages: the artifacts of a multi-artifact skill package.
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

-- One row per artifact execution or output check.
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

-- Identity: a saved selection keeps what was requested, never the derived skill id.
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

-- Code skills: the tested script behind an acquired skill.
CREATE TABLE acquired_code (
    skill_id      INTEGER PRIMARY KEY REFERENCES skills(id) ON DELETE CASCADE,
    script_path   TEXT NOT NULL,
    interpreter   TEXT NOT NULL,                   -- JSON array: program and leading args
    sha256        TEXT NOT NULL,
    test_payload  TEXT NOT NULL,
    sanitized     TEXT NOT NULL DEFAULT '[]',      -- JSON array of the repairs applied
    tested_at     TEXT NOT NULL
);
"#;

/// Discovery: steps that carry meaning, evidence-only candidates with their reason, and
/// the mined workflows (owned by `detect::workflows`).
const V_DRAFTS: &str = r#"
ALTER TABLE tool_calls ADD COLUMN step TEXT;      -- step keys, one per line (src/step.rs)
ALTER TABLE tool_calls ADD COLUMN detail TEXT;    -- the concrete command or path, redacted, clipped

-- 1: recorded as evidence, never drafted nor queued (only generic steps)
ALTER TABLE skill_candidates ADD COLUMN evidence_only INTEGER NOT NULL DEFAULT 0;
ALTER TABLE skill_candidates ADD COLUMN reason TEXT;    -- JSON workflow::Reason
ALTER TABLE skill_candidates ADD COLUMN workflow TEXT;  -- JSON workflow::WorkflowEvidence

-- Step document frequency per agent: in how many mined turns each step occurs.
CREATE TABLE workflow_step_df (
    agent_id  TEXT NOT NULL,
    step      TEXT NOT NULL,
    turns     INTEGER NOT NULL,
    PRIMARY KEY(agent_id, step)
) WITHOUT ROWID;

-- A workflow: turns of distinct sessions whose specific steps align.
CREATE TABLE workflows (
    id          INTEGER PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    steps       TEXT NOT NULL,              -- JSON array of step keys: the representative sequence
    members     INTEGER NOT NULL DEFAULT 0,
    sessions    INTEGER NOT NULL DEFAULT 0, -- distinct sessions among members
    candidate_id INTEGER,                   -- skill_candidates row once proposed or recorded
    updated_at  TEXT NOT NULL
);

CREATE TABLE workflow_members (
    workflow_id INTEGER NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
    turn_id     INTEGER NOT NULL,
    session_key TEXT NOT NULL,
    project     TEXT,
    steps       TEXT NOT NULL,              -- JSON array of [key, detail] after collapsing
    failures    TEXT NOT NULL DEFAULT '[]', -- JSON array of [failed key, [fix keys]]
    request     TEXT NOT NULL,
    at          TEXT,
    success     INTEGER NOT NULL,
    PRIMARY KEY(workflow_id, turn_id)
) WITHOUT ROWID;

-- Inverted index: workflows by the steps of their representative sequence.
CREATE TABLE workflow_index (
    agent_id    TEXT NOT NULL,
    step        TEXT NOT NULL,
    workflow_id INTEGER NOT NULL,
    PRIMARY KEY(agent_id, step, workflow_id)
) WITHOUT ROWID;
"#;

/// Drafting: injection flags on a candidate's evidence and who wrote its draft (owned by
/// `draft::candidates`).
const V_WRITE: &str = r#"
ALTER TABLE skill_candidates ADD COLUMN flags TEXT NOT NULL DEFAULT '[]'; -- JSON [text::injection::Flag]
ALTER TABLE skill_candidates ADD COLUMN drafted_by TEXT NOT NULL DEFAULT 'mechanical'; -- or 'draft.command'
ALTER TABLE skill_candidates ADD COLUMN draft_note TEXT;  -- why draft.command's text was not kept
"#;

/// Transcript files are keyed by canonical path (one file however it is spelled). Rows stored
/// under other spellings are rewritten by the next ingest (`ingest::write::canonical_keys`),
/// which needs the filesystem: this flag asks for it.
const V_CANONICAL_KEYS: &str = r#"
INSERT INTO meta(key, value) VALUES ('ingest.keys', 'spelled')
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
"#;

/// The implicit-failure pass looks, for each skill use, for the next turn of its session with the
/// same signature: with this index that is one seek, not a scan of the session's later turns
/// (the pass was quadratic in a session's turns and held the write lock past the busy timeout).
const V_RETRY_INDEX: &str = r#"
CREATE INDEX IF NOT EXISTS turns_session_signature ON turns(session_id, signature, id);
"#;

/// Usage: a usage-based lifecycle beside the outcome-based one, and merges.
const V_LOOP: &str = r#"
ALTER TABLE skills ADD COLUMN stale_since TEXT;       -- unused for lifecycle.stale_days since then
ALTER TABLE skills ADD COLUMN absorbed_into INTEGER;  -- the skill a merge folded this one into
"#;

/// Discovery, second step: merged workflows remember their consensus, candidates the workflow
/// holding their turn, and the lookups by session and turn are indexed.
const V_WORKFLOWS: &str = r#"
ALTER TABLE workflows ADD COLUMN consensus TEXT;   -- JSON array of consensus step keys, once recorded
ALTER TABLE skill_candidates ADD COLUMN workflow_id INTEGER; -- the mined workflow holding its turn
CREATE INDEX skill_candidates_workflow ON skill_candidates(workflow_id) WHERE workflow_id IS NOT NULL;
CREATE INDEX workflow_members_session ON workflow_members(workflow_id, session_key);
CREATE INDEX workflow_members_turn ON workflow_members(turn_id);
CREATE INDEX sequence_sightings_turn ON sequence_sightings(turn_id);
"#;

/// Crash recovery: the intent of a folder or file step, committed before the step and
/// deleted in the transaction that makes its database change final (owned by `journal`).
const V_INTENTS: &str = r#"
CREATE TABLE intents (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK(kind IN ('move', 'write', 'install', 'drafts')),
    pid         INTEGER NOT NULL,           -- the process doing the step
    from_path   TEXT,                       -- move: the folder's old place; install: the staged folder
    to_path     TEXT,                       -- move, install: the new place; write: the file
    aside_path  TEXT,                       -- install: where the replaced folder waits
    old_content BLOB,                       -- write: the file's bytes before
    new_sha256  TEXT,                       -- write: the new bytes' hash
    started_at  TEXT NOT NULL
);
"#;

/// Consolidation: a merge proposal is a proposed version of the surviving skill that
/// names the skill approving it archives (owned by `draft::candidates`).
const V_MERGES: &str = r#"
ALTER TABLE skill_candidates ADD COLUMN absorbs_skill_id INTEGER; -- merge: the skill it folds in
"#;

/// Detection linear in turns: a sequence or streak candidate's sessions, one row each
/// (owned by `draft::candidates`), instead of a JSON array rewritten whole on every sighting.
/// Rows written before keep their JSON; a candidate's sessions are both. Naming a new candidate
/// looks its name up (a scan of every candidate without the index).
const V_CANDIDATE_SESSIONS: &str = r#"
CREATE TABLE candidate_sessions (
    candidate_id INTEGER NOT NULL,
    session_key  TEXT NOT NULL,
    UNIQUE(candidate_id, session_key)
);
CREATE INDEX skill_candidates_name ON skill_candidates(name);
"#;

/// Detection reads pending turns 500 at a time in (ended_at, id) order: with the order in the
/// index each batch reads its 500 rows, instead of sorting every pending turn again (which made
/// detection quadratic in turns).
const V_PENDING_ORDER: &str = r#"
DROP INDEX turns_pending;
CREATE INDEX turns_pending_order ON turns(detected, complete, ended_at, id);
"#;

/// Loops: each iteration of a workflow done again and again inside one task is a member of its
/// own, so a member is a (turn, iteration) pair.
const V_ITERATIONS: &str = r#"
ALTER TABLE workflow_members RENAME TO workflow_members_before_loops;
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
INSERT INTO workflow_members (workflow_id, turn_id, iteration, session_key, project, steps,
    failures, request, at, success)
    SELECT workflow_id, turn_id, 0, session_key, project, steps, failures, request, at, success
    FROM workflow_members_before_loops;
DROP TABLE workflow_members_before_loops;
CREATE INDEX workflow_members_session ON workflow_members(workflow_id, session_key);
CREATE INDEX workflow_members_turn ON workflow_members(turn_id);
"#;

/// Lessons: what the user had to correct, and failures fixed the same way in several sessions,
/// proposed for review and measured after approval (owned by `lessons::db`).
const V_LESSONS: &str = r#"
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

-- Each session a lesson was seen in, with the evidence (redacted) in context.
CREATE TABLE lesson_sessions (
    lesson_id   INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,
    session_key TEXT NOT NULL,
    turn_id     INTEGER NOT NULL,
    project     TEXT,
    evidence    TEXT NOT NULL,                  -- JSON lessons::Evidence
    PRIMARY KEY(lesson_id, session_key)
) WITHOUT ROWID;

-- How far lesson extraction has read each session's detected turns.
CREATE TABLE lesson_progress (
    session_id   INTEGER PRIMARY KEY,
    last_turn_id INTEGER NOT NULL
);
"#;

/// A team's shared store: what this machine has queued for the team's server and whether it
/// was sent (owned by `team::outbox`). `item_key` is the item's identity on the server too, so a
/// batch sent again after a crash adds nothing there.
const V_TEAM_OUTBOX: &str = r#"
CREATE TABLE team_outbox (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK(kind IN ('turn', 'use')),
    item_key    TEXT NOT NULL UNIQUE,
    payload     TEXT NOT NULL,              -- JSON, exactly what is sent
    queued_at   TEXT NOT NULL,
    sent_at     TEXT
);
CREATE INDEX team_outbox_unsent ON team_outbox(id) WHERE sent_at IS NULL;
"#;

/// Effect: the model and tokens a transcript records for a turn (`ingest::write`), and each
/// skill's measured effect as the last sweep computed it (owned by `usage::effects`).
const V_EFFECT: &str = r#"
ALTER TABLE turns ADD COLUMN model TEXT;
ALTER TABLE turns ADD COLUMN tokens INTEGER;
CREATE TABLE skill_effects (
    skill_id    INTEGER PRIMARY KEY,
    computed_at TEXT NOT NULL,
    verdict     TEXT NOT NULL,
    score       REAL,                       -- success rate with minus without, when judged
    runs_with   INTEGER NOT NULL,
    runs_without INTEGER NOT NULL,
    effect      TEXT NOT NULL               -- JSON usage::effect::Effect
);
"#;

/// A merge's approval and its undo are one journaled step: an intent of kind `merge` spans their
/// two doors (owned by `journal`). SQLite cannot change a CHECK in place: the table is rebuilt.
const V_MERGE_INTENTS: &str = r#"
ALTER TABLE intents RENAME TO intents_before_merges;
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
INSERT INTO intents SELECT * FROM intents_before_merges;
DROP TABLE intents_before_merges;
"#;

/// A proposed version records the sha256 of the live text it was proposed against (owned by
/// `draft::candidates`): approving it after that text changed (a hand edit) is refused once, with
/// the proposal shown against the current text, so the edit is never dropped unseen.
const V_PROPOSAL_BASE: &str = r#"
ALTER TABLE skill_candidates ADD COLUMN base_sha256 TEXT;
"#;

/// Trials: the agent run on the user's tasks with a skill and without it (owned by
/// `trial::record`). A row says `running` while its trial runs, then `done` with the result, or
/// `failed` with the error that stopped it. A draft's trial names its candidate; a live skill's,
/// the skill (and the candidate it came from, so a draft's trial follows it into the catalog).
const V_TRIALS: &str = r#"
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
"#;

/// The agent's proposed workflow candidates, read each time a workflow is judged (is it a piece
/// of a bigger one?): a seek, not a walk over every evidence row.
const V_PROPOSED_WORKFLOWS: &str = r#"
CREATE INDEX IF NOT EXISTS skill_candidates_proposed_workflows
    ON skill_candidates(agent_id) WHERE evidence_only = 0 AND source = 'workflow';
"#;

/// Sessions that asked a task the same way (its signature), counted when work asked for in a
/// fixed way is judged: a seek over the turns that carry that signature.
const V_ASKED_SESSIONS: &str = r#"
CREATE INDEX IF NOT EXISTS turns_signature_session
    ON turns(signature, session_id) WHERE signature IS NOT NULL AND signature <> '';
"#;

/// The agent's own title of a session (Claude Code's `ai-title` lines), evidence of what was asked.
const V_SESSION_TITLES: &str = r#"
ALTER TABLE sessions ADD COLUMN title TEXT;
"#;

/// A turn's calls read in their order (detection and lessons read every turn's): the index hands
/// them over sorted, where a sort of its own ran for each turn.
const V_CALLS_IN_ORDER: &str = r#"
DROP INDEX IF EXISTS tool_calls_turn;
CREATE INDEX tool_calls_turn_order ON tool_calls(turn_id, ordinal);
"#;

/// Only pending turns in the order detection reads them: marking a turn detected takes it out of
/// this index rather than moving its entry to the other end of a whole-table one, and the index
/// stays the size of the backlog.
const V_PENDING_ONLY: &str = r#"
DROP INDEX IF EXISTS turns_pending_order;
CREATE INDEX turns_pending_only ON turns(ended_at, id) WHERE complete = 1 AND detected = 0;
"#;

/// What detection has not consumed yet is a queue of its own, in the order detection reads it,
/// and a turn's task signature is written with the turn. Marking a turn consumed takes it out of
/// the queue instead of rewriting its row: on the 1.5 GB benchmark tree, rewriting the turns and
/// their signature index was two thirds of the log detection wrote. Turns already consumed keep
/// their signature; the others get theirs when detection reads them.
const V_PENDING_QUEUE: &str = r#"
CREATE TABLE pending_turns (
    turn_id  INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    ended_at TEXT                -- the turn's, for the order
);
INSERT INTO pending_turns (turn_id, ended_at)
    SELECT id, ended_at FROM turns WHERE complete = 1 AND detected = 0;
CREATE INDEX pending_turns_order ON pending_turns(ended_at, turn_id);
DROP INDEX IF EXISTS turns_pending_only;
DROP INDEX IF EXISTS turns_pending;
DROP INDEX IF EXISTS turns_pending_order;
ALTER TABLE turns DROP COLUMN detected;
"#;

/// The calls that failed, by turn: lessons ask of every turn they read whether any of its calls
/// failed, and the answer was a walk over all of that turn's calls, each read from the table (on
/// the 1.5 GB benchmark tree, about a third of the lessons' reading). About one call in ten
/// fails, so this index is small and cheap to keep.
const V_FAILED_CALLS: &str = r#"
CREATE INDEX tool_calls_failed ON tool_calls(turn_id) WHERE is_error;
"#;

/// A sighting's sequence by its turn, from the index alone: a proposed workflow asks which
/// sequences its members' turns ran at every batch it is recorded in, and each sighting's row
/// was read from the table for its hash.
const V_SIGHTINGS_BY_TURN: &str = r#"
DROP INDEX IF EXISTS sequence_sightings_turn;
CREATE INDEX sequence_sightings_turn ON sequence_sightings(turn_id, agent_id, hash);
"#;
