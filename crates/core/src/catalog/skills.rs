//! Owns the table `skills`: one row per skill folder a person or skilldeck made, in either scope.
//!
//! Every read and write of `skills` is a function here. The one insert is [`insert`], reached
//! through `lifecycle::register` (promotion, adoption, packages and acquired code all register
//! that way).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use super::{Scope, SkillSource, SkillStatus};
use crate::model::Outcome;

/// What every view of a skill starts with: which skill it is, where its folder is, and its
/// state. The views embed it (and read through to it), so its fields have one name each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillHeader {
    pub id: i64,
    pub agent_id: String,
    pub name: String,
    /// The skill's folder.
    pub path: String,
    pub status: SkillStatus,
    pub protected: bool,
    pub version: i64,
    /// Edited by hand since its approval: in the queue until approved or rolled back.
    pub needs_review: bool,
}

impl SkillHeader {
    /// `name`, or `agent:name` outside the default agent.
    pub fn label(&self) -> String {
        if self.agent_id == "default" {
            self.name.clone()
        } else {
            format!("{}:{}", self.agent_id, self.name)
        }
    }
}

/// The header's columns, first in every select that reads one ([`header`]).
const HEADER: &str = "id, agent_id, name, path, status, protected, version, needs_review";

/// The header from the first columns of a row selected with [`HEADER`].
fn header(r: &Row) -> rusqlite::Result<SkillHeader> {
    Ok(SkillHeader {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        name: r.get(2)?,
        path: r.get(3)?,
        status: r.get(4)?,
        protected: r.get(5)?,
        version: r.get(6)?,
        needs_review: r.get(7)?,
    })
}

/// A view that embeds the header reads through to it (`row.name`).
macro_rules! reads_through_to_header {
    ($($view:ty),+) => {$(
        impl std::ops::Deref for $view {
            type Target = SkillHeader;
            fn deref(&self) -> &SkillHeader {
                &self.header
            }
        }
        impl std::ops::DerefMut for $view {
            fn deref_mut(&mut self) -> &mut SkillHeader {
                &mut self.header
            }
        }
    )+};
}

/// Status sets as SQL lists, from [`SkillStatus`]'s own rules.
static LIVE: LazyLock<String> = LazyLock::new(|| SkillStatus::sql_list(SkillStatus::is_live));
static PARKED: LazyLock<String> = LazyLock::new(|| SkillStatus::sql_list(SkillStatus::is_parked));
static SUGGESTIBLE: LazyLock<String> =
    LazyLock::new(|| SkillStatus::sql_list(SkillStatus::is_suggestible));

/// One `skills` row as the lifecycle reads it.
#[derive(Debug, Clone)]
pub struct SkillRow {
    pub header: SkillHeader,
    pub is_auto_created: bool,
    pub approved_sha256: Option<String>,
}

reads_through_to_header!(SkillRow, ListedSkill, ConsoleRow);

/// [`HEADER`], then the row's own columns.
const COLUMNS: &str = "id, agent_id, name, path, status, protected, version, needs_review, \
     is_auto_created, approved_sha256";

fn from_row(r: &Row) -> rusqlite::Result<SkillRow> {
    Ok(SkillRow { header: header(r)?, is_auto_created: r.get(8)?, approved_sha256: r.get(9)? })
}

/// The skill an agent loads under `name`: default namespace first, and a workspace skill over the
/// account skill it shadows.
pub fn find(conn: &Connection, agent: &str, name: &str) -> Result<Option<SkillRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM skills INDEXED BY skills_agent_name
         WHERE agent_id = ?1 AND name = ?2
         ORDER BY namespace = 'default' DESC, scope = 'workspace' DESC, id LIMIT 1"
    );
    Ok(conn.query_row(&sql, params![agent, name], from_row).optional()?)
}

pub fn require(conn: &Connection, agent: &str, name: &str) -> Result<SkillRow> {
    match find(conn, agent, name)? {
        Some(s) => Ok(s),
        None => bail!("no skill named {name:?} for agent {agent:?} (see `skilldeck audit`)"),
    }
}

pub fn by_id(conn: &Connection, id: i64) -> Result<SkillRow> {
    let sql = format!("SELECT {COLUMNS} FROM skills WHERE id = ?1");
    conn.query_row(&sql, [id], from_row)
        .optional()?
        .with_context(|| format!("no skill with id {id}"))
}

pub fn all(conn: &Connection) -> Result<Vec<SkillRow>> {
    let sql = format!("SELECT {COLUMNS} FROM skills ORDER BY id");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Whether `agent` has a skill named `name` in any namespace or scope.
pub fn exists_named(conn: &Connection, agent: &str, name: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM skills WHERE agent_id = ?1 AND name = ?2)",
        params![agent, name],
        |r| r.get(0),
    )?)
}

/// Whether a folder is already registered: by its path, or by its name in the default
/// namespace of `scope`.
pub fn knows_folder(
    conn: &Connection,
    agent: &str,
    name: &str,
    scope: Scope,
    path: &str,
) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM skills WHERE path = ?1 OR (agent_id = ?2 AND name = ?3 AND scope = ?4 AND namespace = 'default'))",
        params![path, agent, name, scope],
        |r| r.get(0),
    )?)
}

/// The skill registered at folder `path`, if any.
pub fn id_at_path(conn: &Connection, path: &str) -> Result<Option<i64>> {
    Ok(conn.query_row("SELECT id FROM skills WHERE path = ?1", [path], |r| r.get(0)).optional()?)
}

/// The skill's agent, for commands handed a bare id.
pub fn agent_of(conn: &Connection, skill_id: i64) -> Result<String> {
    conn.query_row("SELECT agent_id FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))
        .with_context(|| format!("no skill with id {skill_id}"))
}

/// (agent, name) of a skill.
pub fn agent_and_name(conn: &Connection, skill_id: i64) -> Result<(String, String)> {
    conn.query_row("SELECT agent_id, name FROM skills WHERE id = ?1", [skill_id], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .with_context(|| format!("no skill with id {skill_id}"))
}

/// The current version number of the skill `candidate_id` was promoted into, if any.
pub fn version_of_promoted(conn: &Connection, candidate_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT version FROM skills WHERE candidate_id = ?1 ORDER BY id DESC LIMIT 1",
            [candidate_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// A skill row about to be inserted. Only [`insert`] writes one.
pub struct NewSkillRow<'a> {
    pub agent: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
    pub is_public: bool,
    pub scope: Scope,
    pub description: Option<&'a str>,
    pub path: &'a str,
    pub is_auto_created: bool,
    pub tool_sequence: Option<&'a str>,
    pub approved_sha256: Option<&'a str>,
    /// JSON array of trigger phrases.
    pub triggers: &'a str,
    pub file_mtime_ns: Option<i64>,
    pub file_size: Option<i64>,
    pub now: &'a str,
}

/// Inserts a `healthy` skill at version 1 and returns its id.
pub fn insert(conn: &Connection, new: &NewSkillRow) -> Result<i64> {
    conn.execute(
        "INSERT INTO skills(agent_id, name, namespace, is_public, description, path, status, version,
             is_auto_created, tool_sequence, approved_sha256, triggers, file_mtime_ns, file_size,
             created_at, updated_at, scope)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14, ?15)",
        params![
            new.agent,
            new.name,
            new.namespace,
            new.is_public,
            new.description,
            new.path,
            SkillStatus::Healthy,
            new.is_auto_created,
            new.tool_sequence,
            new.approved_sha256,
            new.triggers,
            new.file_mtime_ns,
            new.file_size,
            new.now,
            new.scope
        ],
    )
    .with_context(|| format!("registering skill {:?} for agent {:?}", new.name, new.agent))?;
    Ok(conn.last_insert_rowid())
}

/// Removes a skill row (its versions and events go with it; invocations keep their name).
pub fn delete(conn: &Connection, skill_id: i64) -> Result<()> {
    super::invocations::unlink_skill(conn, skill_id)?;
    super::events::delete_for(conn, skill_id)?;
    super::versions::delete_for(conn, skill_id)?;
    conn.execute("DELETE FROM skills WHERE id = ?1", [skill_id])?;
    Ok(())
}

/// The skill promoted from `candidate_id`: (id, folder).
pub fn promoted_from(
    conn: &Connection,
    candidate_id: i64,
    agent: &str,
) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, path FROM skills WHERE candidate_id = ?1 AND agent_id = ?2",
            params![candidate_id, agent],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

pub fn set_candidate(conn: &Connection, skill_id: i64, candidate_id: i64) -> Result<()> {
    conn.execute(
        "UPDATE skills SET candidate_id = ?2 WHERE id = ?1",
        params![skill_id, candidate_id],
    )?;
    Ok(())
}

pub fn set_protected(conn: &Connection, skill_id: i64, protected: bool, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET protected = ?1, updated_at = ?2 WHERE id = ?3",
        params![protected, now, skill_id],
    )?;
    Ok(())
}

/// Sets a status and clears the flag mark (a pinned or restored skill starts unflagged).
pub fn set_status_unflagged(conn: &Connection, skill_id: i64, status: SkillStatus) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, flag_mark = NULL WHERE id = ?2",
        params![status, skill_id],
    )?;
    Ok(())
}

/// Moves a skill to another status and folder (archive, restore).
pub fn set_status_and_path(
    conn: &Connection,
    skill_id: i64,
    status: SkillStatus,
    path: &str,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, path = ?2, updated_at = ?3 WHERE id = ?4",
        params![status, path, now, skill_id],
    )?;
    Ok(())
}

/// Ghost's streak rules count from `now` on: a restored skill starts afresh.
pub fn reset_streak(conn: &Connection, skill_id: i64, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET streak_reset_at = ?1, flag_mark = NULL WHERE id = ?2",
        params![now, skill_id],
    )?;
    Ok(())
}

pub fn streak_reset_at(conn: &Connection, skill_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT streak_reset_at FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))?)
}

/// `streak_reset_at` of the skills that have one.
pub fn resets(conn: &Connection) -> Result<HashMap<i64, String>> {
    let mut stmt =
        conn.prepare("SELECT id, streak_reset_at FROM skills WHERE streak_reset_at IS NOT NULL")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Points the skill at a new version and refreshes what is read from its SKILL.md.
#[allow(clippy::too_many_arguments)]
pub fn set_version(
    conn: &Connection,
    skill_id: i64,
    version: i64,
    description: Option<&str>,
    triggers: &str,
    stamp: (Option<i64>, Option<i64>),
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET version = ?1, description = COALESCE(?2, description), triggers = ?3,
             file_mtime_ns = ?4, file_size = ?5, updated_at = ?6 WHERE id = ?7",
        params![version, description, triggers, stamp.0, stamp.1, now, skill_id],
    )?;
    Ok(())
}

/// Remembers the SKILL.md stat last read (and, when given, the trigger phrases read from it).
pub fn set_file_stamp(
    conn: &Connection,
    skill_id: i64,
    stamp: (Option<i64>, Option<i64>),
    triggers: Option<&str>,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET file_mtime_ns = ?1, file_size = ?2, triggers = COALESCE(?3, triggers)
         WHERE id = ?4",
        params![stamp.0, stamp.1, triggers, skill_id],
    )?;
    Ok(())
}

/// An approved auto-draft whose bytes changed waits for a person again.
pub fn mark_needs_review(conn: &Connection, skill_id: i64) -> Result<()> {
    conn.execute("UPDATE skills SET needs_review = 1 WHERE id = ?1", [skill_id])?;
    Ok(())
}

/// Binds an auto-created skill's approval to `sha` (rollback: a person's decision).
pub fn bind_approval(conn: &Connection, skill_id: i64, sha: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET approved_sha256 = ?1, needs_review = 0 WHERE id = ?2",
        params![sha, skill_id],
    )?;
    Ok(())
}

/// A person approved the current bytes of a skill that went back to review.
pub fn approve_current(conn: &Connection, skill_id: i64, sha: &str, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET needs_review = 0, approved_sha256 = ?1, updated_at = ?2 WHERE id = ?3",
        params![sha, now, skill_id],
    )?;
    Ok(())
}

/// An approved proposed version: the skill takes over its tool sequence, and an auto-created
/// skill's approval follows the new bytes.
pub fn approve_evolution(
    conn: &Connection,
    skill_id: i64,
    sequence: &str,
    sha: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET tool_sequence = ?1, needs_review = 0,
             approved_sha256 = CASE WHEN is_auto_created = 1 THEN ?2 ELSE approved_sha256 END
         WHERE id = ?3",
        params![sequence, sha, skill_id],
    )?;
    Ok(())
}

/// A SKILL.md's modification time (ns) and size, as last read.
pub type FileStamp = (Option<i64>, Option<i64>);

/// The live skills' (id, folder, stamp) for the edit scan.
pub fn live_stamps(conn: &Connection) -> Result<Vec<(i64, String, FileStamp)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, path, file_mtime_ns, file_size FROM skills WHERE status NOT IN ({})",
        *PARKED
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, (r.get(2)?, r.get(3)?))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Skills whose folder belongs in a live folder (missing ones too): (id, name, path, status).
pub fn live_folders(conn: &Connection) -> Result<Vec<(i64, String, String, SkillStatus)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, name, path, status FROM skills WHERE status NOT IN ({})",
        *PARKED
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Live skills with a tool sequence: (id, agent, sequence JSON), for evolution.
pub fn live_sequences(conn: &Connection) -> Result<Vec<(i64, String, String)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, agent_id, tool_sequence FROM skills
         WHERE tool_sequence IS NOT NULL AND status IN ({})",
        *LIVE
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The counters cached on the row: (successes, failures, last outcome).
pub type Counters = (i64, i64, Option<String>);

/// A skill as the sweep reads it: the row, its cached counters and its flag mark.
pub type SweepRow = (SkillRow, Counters, Option<i64>);

/// The rows the sweep judges: every skill, or only `only`.
pub fn sweep_rows(conn: &Connection, only: Option<&HashSet<i64>>) -> Result<Vec<SweepRow>> {
    let sql = &format!(
        "SELECT {COLUMNS}, success_count, failure_count, last_outcome, flag_mark FROM skills"
    );
    let read = |r: &Row| -> rusqlite::Result<SweepRow> {
        Ok((from_row(r)?, (r.get(10)?, r.get(11)?, r.get(12)?), r.get(13)?))
    };
    match only {
        None => {
            let mut stmt = conn.prepare(sql)?;
            let rows = stmt.query_map([], read)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        }
        Some(ids) => {
            let mut stmt = conn.prepare(&format!("{sql} WHERE id = ?1"))?;
            let mut out = Vec::with_capacity(ids.len());
            let mut sorted: Vec<_> = ids.iter().copied().collect();
            sorted.sort_unstable();
            for id in sorted {
                if let Some(row) = stmt.query_map([id], read)?.next() {
                    out.push(row?);
                }
            }
            Ok(out)
        }
    }
}

/// Skills whose row changed at or after `since` (`""`: every row).
pub fn changed_since(conn: &Connection, since: &str) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM skills WHERE updated_at >= ?1")?;
    let rows = stmt.query_map([since], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Writes the counters cache.
pub fn set_counters(conn: &Connection, skill_id: i64, counters: &Counters) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "UPDATE skills SET success_count = ?1, failure_count = ?2, last_outcome = ?3 WHERE id = ?4",
    )?;
    stmt.execute(params![counters.0, counters.1, counters.2, skill_id])?;
    Ok(())
}

/// Adds one outcome to the counters cache (the sweep recomputes them from the invocations).
pub fn bump_counters(conn: &Connection, skill_id: i64, outcome: Outcome, now: &str) -> Result<()> {
    let (s, f) = match outcome {
        Outcome::Success => (1, 0),
        Outcome::Failure => (0, 1),
    };
    conn.execute(
        "UPDATE skills SET success_count = success_count + ?1, failure_count = failure_count + ?2,
             last_outcome = ?3, updated_at = ?4 WHERE id = ?5",
        params![s, f, outcome, now, skill_id],
    )?;
    Ok(())
}

/// The sweep's verdict. `updated_at` is left alone: it marks changes the next incremental sweep
/// must judge, and this one is already judged (its time is on the event).
pub fn set_judged_status(
    conn: &Connection,
    skill_id: i64,
    status: SkillStatus,
    path: &str,
    flag_mark: Option<i64>,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, path = ?2, flag_mark = ?4,
             deprecated_at = CASE WHEN ?1 = 'deprecated' THEN ?3 ELSE deprecated_at END
         WHERE id = ?5",
        params![status, path, now, flag_mark, skill_id],
    )?;
    Ok(())
}

/// One skill as `audit` and `features` list it.
#[derive(Debug, Clone)]
pub struct ListedSkill {
    pub header: SkillHeader,
    pub is_auto_created: bool,
    pub created_at: String,
}

/// Every skill of `agent` (all agents for `None`), by agent, name and id.
pub fn list(conn: &Connection, agent: Option<&str>) -> Result<Vec<ListedSkill>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEADER}, is_auto_created, created_at
             FROM skills WHERE ?1 IS NULL OR agent_id = ?1 ORDER BY agent_id, name, id"
    ))?;
    let rows = stmt.query_map([agent], |r| {
        Ok(ListedSkill { header: header(r)?, is_auto_created: r.get(8)?, created_at: r.get(9)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One suggestible skill as `suggest` scores it.
pub struct SuggestRow<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub triggers_json: &'a str,
    pub status: SkillStatus,
    pub successes: i64,
    pub failures: i64,
}

/// Calls `each` for every skill of `agent` that may be suggested (not deprecated, retired or
/// archived), borrowing the row's text.
pub fn for_each_suggestible(
    conn: &Connection,
    agent: &str,
    mut each: impl FnMut(SuggestRow) -> Result<()>,
) -> Result<()> {
    // `+agent_id`: one sequential table scan beats 10,000 lookups through the (agent, name) index.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT name, description, triggers, status, success_count, failure_count
         FROM skills WHERE +agent_id = ?1 AND status IN ({})",
        *SUGGESTIBLE
    ))?;
    let mut rows = stmt.query([agent])?;
    while let Some(r) = rows.next()? {
        each(SuggestRow {
            name: r.get_ref(0)?.as_str()?,
            description: r.get_ref(1)?.as_str_or_null()?.unwrap_or(""),
            triggers_json: r.get_ref(2)?.as_str()?,
            status: r.get(3)?,
            successes: r.get(4)?,
            failures: r.get(5)?,
        })?;
    }
    Ok(())
}

/// A skill as identity resolution sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRef {
    pub skill_id: i64,
    pub namespace: String,
    pub is_public: bool,
    pub name: String,
    pub scope: Scope,
    pub path: String,
    pub status: SkillStatus,
}

impl std::fmt::Display for SkillRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let vis = if self.is_public { "public:" } else { "" };
        write!(
            f,
            "{vis}{}/{} (#{}, {} scope)",
            self.namespace, self.name, self.skill_id, self.scope
        )
    }
}

const REF_COLUMNS: &str = "id, namespace, is_public, name, scope, path, status";

fn skill_ref(r: &Row) -> rusqlite::Result<SkillRef> {
    Ok(SkillRef {
        skill_id: r.get(0)?,
        namespace: r.get(1)?,
        is_public: r.get::<_, i64>(2)? != 0,
        name: r.get(3)?,
        scope: r.get(4)?,
        path: r.get(5)?,
        status: r.get(6)?,
    })
}

/// The skill `id` of `agent`, as a ref.
pub fn ref_by_id(conn: &Connection, id: i64, agent: &str) -> Result<Option<SkillRef>> {
    let sql = format!("SELECT {REF_COLUMNS} FROM skills WHERE id = ?1 AND agent_id = ?2");
    Ok(conn.query_row(&sql, params![id, agent], skill_ref).optional()?)
}

/// Live skills of `agent` named `name` or `slug`, or displayed as `name` (any case).
pub fn refs_named(conn: &Connection, agent: &str, name: &str, slug: &str) -> Result<Vec<SkillRef>> {
    let sql = format!(
        "SELECT {REF_COLUMNS} FROM skills
         WHERE agent_id = ?1 AND status NOT IN ({parked})
           AND (name = ?2 OR name = ?3 OR lower(display_name) = lower(?2))
         ORDER BY namespace, is_public, scope",
        parked = *PARKED
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params![agent, name, slug], skill_ref)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Live skills with the same identity as `skill_id` in the other scope.
pub fn same_identity_other_scope(conn: &Connection, skill_id: i64) -> Result<Vec<SkillRef>> {
    let sql = format!(
        "SELECT o.{} FROM skills s JOIN skills o
           ON o.agent_id = s.agent_id AND o.name = s.name AND o.namespace = s.namespace
          AND o.is_public = s.is_public AND o.id != s.id
          AND o.status NOT IN ({})
         WHERE s.id = ?1 AND s.scope != o.scope",
        REF_COLUMNS.replace(", ", ", o."),
        *PARKED
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([skill_id], skill_ref)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The skill with exactly this identity: (id, version).
pub fn find_exact(
    conn: &Connection,
    agent: &str,
    namespace: &str,
    name: &str,
    scope: Scope,
) -> Result<Option<(i64, i64)>> {
    Ok(conn
        .query_row(
            "SELECT id, version FROM skills WHERE agent_id = ?1 AND namespace = ?2 AND name = ?3 AND scope = ?4",
            params![agent, namespace, name, scope],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Another skill registered at `path`: (id, namespace).
pub fn owner_of_path(
    conn: &Connection,
    path: &str,
    except: Option<i64>,
) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, namespace FROM skills WHERE path = ?1 AND id IS NOT ?2",
            params![path, except],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// A package import or a re-acquired code skill replaces the skill's content: new description,
/// folder and visibility, and the version number `version`.
pub fn replace_content(
    conn: &Connection,
    skill_id: i64,
    description: Option<&str>,
    path: Option<&str>,
    is_public: Option<bool>,
    version: i64,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET description = ?2, path = COALESCE(?3, path),
             is_public = COALESCE(?4, is_public), version = ?5, updated_at = ?6
         WHERE id = ?1",
        params![skill_id, description, path, is_public, version, now],
    )?;
    Ok(())
}

/// The package columns of a skill (NULL for skills that are not packages).
#[derive(Debug, Clone, Default)]
pub struct PackageColumns {
    pub package_uuid: Option<String>,
    pub display_name: Option<String>,
    pub package_version: Option<String>,
    /// JSON arrays of strings.
    pub tags: Option<String>,
    pub source: Option<SkillSource>,
    pub author: Option<String>,
    pub intent_patterns: Option<String>,
    pub trigger_phrases: Option<String>,
    pub marketplace_id: Option<String>,
    pub sync_etag: Option<String>,
}

pub fn set_package_columns(conn: &Connection, skill_id: i64, p: &PackageColumns) -> Result<()> {
    conn.execute(
        "UPDATE skills SET package_uuid = ?2, display_name = ?3, package_version = ?4, tags = ?5, source = ?6,
            author = ?7, intent_patterns = ?8, trigger_phrases = ?9, marketplace_id = ?10, sync_etag = ?11
         WHERE id = ?1",
        params![
            skill_id,
            p.package_uuid,
            p.display_name,
            p.package_version,
            p.tags,
            p.source,
            p.author,
            p.intent_patterns,
            p.trigger_phrases,
            p.marketplace_id,
            p.sync_etag
        ],
    )?;
    Ok(())
}

/// Sets where a skill came from (acquired code is marked so).
pub fn set_source(conn: &Connection, skill_id: i64, source: SkillSource) -> Result<()> {
    conn.execute("UPDATE skills SET source = ?2 WHERE id = ?1", params![skill_id, source])?;
    Ok(())
}

/// The package columns and description of a skill.
pub fn package_columns(conn: &Connection, skill_id: i64) -> Result<(PackageColumns, String)> {
    conn.query_row(
        "SELECT package_uuid, display_name, package_version, tags, source, author, intent_patterns,
                trigger_phrases, marketplace_id, sync_etag, COALESCE(description, '')
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok((
                PackageColumns {
                    package_uuid: r.get(0)?,
                    display_name: r.get(1)?,
                    package_version: r.get(2)?,
                    tags: r.get(3)?,
                    source: r.get(4)?,
                    author: r.get(5)?,
                    intent_patterns: r.get(6)?,
                    trigger_phrases: r.get(7)?,
                    marketplace_id: r.get(8)?,
                    sync_etag: r.get(9)?,
                },
                r.get(10)?,
            ))
        },
    )
    .optional()?
    .with_context(|| format!("no skill with id {skill_id}"))
}

/// A skill as the package detail shows it.
#[derive(Debug, Clone)]
pub struct DetailRow {
    pub agent_id: String,
    pub name: String,
    pub display_name: Option<String>,
    pub namespace: String,
    pub is_public: bool,
    pub scope: Scope,
    pub path: String,
    pub status: SkillStatus,
    pub source: Option<SkillSource>,
    pub package_version: Option<String>,
    pub tags: Option<String>,
}

pub fn detail_row(conn: &Connection, skill_id: i64) -> Result<DetailRow> {
    conn.query_row(
        "SELECT agent_id, name, display_name, namespace, is_public, scope, path, status, source, package_version, tags
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok(DetailRow {
                agent_id: r.get(0)?,
                name: r.get(1)?,
                display_name: r.get(2)?,
                namespace: r.get(3)?,
                is_public: r.get(4)?,
                scope: r.get(5)?,
                path: r.get(6)?,
                status: r.get(7)?,
                source: r.get(8)?,
                package_version: r.get(9)?,
                tags: r.get(10)?,
            })
        },
    )
    .with_context(|| format!("no skill with id {skill_id}"))
}

/// The status of a skill.
pub fn status_of(conn: &Connection, skill_id: i64) -> Result<SkillStatus> {
    conn.query_row("SELECT status FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))
        .with_context(|| format!("no skill with id {skill_id}"))
}

/// A skill as the console's list shows it.
#[derive(Debug, Clone)]
pub struct ConsoleRow {
    pub header: SkillHeader,
    /// Outcomes on record (the counters cache the sweep keeps in step).
    pub uses: i64,
    /// Successes among them.
    pub successes: i64,
    /// Unused for `lifecycle.stale_days` (the usage sweep marks it).
    pub stale: bool,
}

/// Every skill for the console, ordered by agent, namespace, name and scope.
pub fn console_rows(conn: &Connection) -> Result<Vec<ConsoleRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEADER}, success_count + failure_count, stale_since IS NOT NULL, success_count
             FROM skills ORDER BY agent_id, namespace, name, scope"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(ConsoleRow {
            header: header(r)?,
            uses: r.get(8)?,
            stale: r.get(9)?,
            successes: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What the usage-based lifecycle reads of a skill.
#[derive(Debug, Clone)]
pub struct UsageRow {
    pub id: i64,
    pub agent_id: String,
    pub name: String,
    pub status: SkillStatus,
    pub protected: bool,
    pub is_auto_created: bool,
    pub created_at: String,
    pub streak_reset_at: Option<String>,
    pub stale_since: Option<String>,
}

/// Every skill's usage columns.
pub fn usage_rows(conn: &Connection) -> Result<Vec<UsageRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, name, status, protected, is_auto_created, created_at,
                streak_reset_at, stale_since FROM skills ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(UsageRow {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            name: r.get(2)?,
            status: r.get(3)?,
            protected: r.get(4)?,
            is_auto_created: r.get(5)?,
            created_at: r.get(6)?,
            streak_reset_at: r.get(7)?,
            stale_since: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks a skill stale since `since`, or active again (`None`).
pub fn set_stale(conn: &Connection, skill_id: i64, since: Option<&str>) -> Result<()> {
    conn.execute("UPDATE skills SET stale_since = ?2 WHERE id = ?1", params![skill_id, since])?;
    Ok(())
}

/// Since when each stale skill has been stale.
pub fn stale_map(conn: &Connection) -> Result<HashMap<i64, String>> {
    let mut stmt =
        conn.prepare("SELECT id, stale_since FROM skills WHERE stale_since IS NOT NULL")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What a skill's uptake is judged from.
#[derive(Debug, Clone)]
pub struct UptakeRef {
    pub id: i64,
    pub agent: String,
    pub name: String,
    pub description: String,
    /// The skill's folder (its SKILL.md names the steps of a hand-written skill).
    pub path: String,
    /// When it went live.
    pub since: String,
    pub candidate_id: Option<i64>,
}

/// What judging a skill's uptake needs: (id, agent, name, description, path, went live at,
/// candidate it was promoted from).
pub fn uptake_ref(conn: &Connection, skill_id: i64) -> Result<UptakeRef> {
    Ok(conn.query_row(
        "SELECT id, agent_id, name, coalesce(description, ''), path, created_at, candidate_id
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok(UptakeRef {
                id: r.get(0)?,
                agent: r.get(1)?,
                name: r.get(2)?,
                description: r.get(3)?,
                path: r.get(4)?,
                since: r.get(5)?,
                candidate_id: r.get(6)?,
            })
        },
    )?)
}

/// Sets when `skill_id` went live (what its uptake counts from). The demo's one use: its
/// hand-written skill has been live since before the sessions that missed it.
pub fn set_live_since(conn: &Connection, skill_id: i64, at: &str) -> Result<()> {
    conn.execute("UPDATE skills SET created_at = ?2 WHERE id = ?1", params![skill_id, at])?;
    Ok(())
}

/// Records that a merge folded `skill_id` into `into` (`None`: taken back).
pub fn set_absorbed_into(conn: &Connection, skill_id: i64, into: Option<i64>) -> Result<()> {
    conn.execute("UPDATE skills SET absorbed_into = ?2 WHERE id = ?1", params![skill_id, into])?;
    Ok(())
}

/// The skill a merge folded `skill_id` into, if any.
pub fn absorbed_into(conn: &Connection, skill_id: i64) -> Result<Option<i64>> {
    Ok(conn.query_row("SELECT absorbed_into FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))?)
}

/// Skills a merge absorbed: never proposed for a merge again, even once restored.
pub fn absorbed(conn: &Connection) -> Result<HashSet<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM skills WHERE absorbed_into IS NOT NULL")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A stamp of the live skills: changes when one is added, removed, moved, renamed, re-versioned
/// or described anew (for passes that rerun only when the live set changed).
pub fn live_stamp(conn: &Connection) -> Result<String> {
    Ok(conn.query_row(
        &format!(
        "SELECT COUNT(*) || ':' || COALESCE(MAX(updated_at), '') || ':' || COALESCE(SUM(version), 0)
                || ':' || COALESCE(SUM(id), 0)
         FROM skills WHERE status NOT IN ({})",
            *PARKED
        ),
        [],
        |r| r.get(0),
    )?)
}

/// A stamp of what the staleness rules read from the skills table (which skills are live,
/// pinned or auto-created, since when they count, which are marked stale): it changes whenever
/// one of those does, so the rules need not rerun while it holds (and no use is new). A
/// recorded outcome bumps `updated_at`, not this stamp: new uses are the rules' other input.
pub fn usage_stamp(conn: &Connection) -> Result<String> {
    Ok(conn.query_row(
        &format!(
        "SELECT COUNT(*) || ':' || COALESCE(SUM(id), 0) || ':' || TOTAL(protected * id) || ':' || TOTAL(is_auto_created * id)
                || ':' || TOTAL(julianday(created_at)) || ':' || TOTAL(julianday(streak_reset_at))
                || ':' || TOTAL(julianday(stale_since))
         FROM skills WHERE status NOT IN ({})",
            *PARKED
        ),
        [],
        |r| r.get(0),
    )?)
}
