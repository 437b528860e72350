//! Owns the table `skills`: one row per skill folder a person or skilldeck made, in either scope.
//!
//! Every read and write of `skills` is a function here. The one insert is [`insert`], reached
//! through `lifecycle::register` (promotion, adoption, packages and acquired code all register
//! that way). Here: the header every view embeds, the row, lookups and the insert; by purpose
//! beside it: [`state`] (what the sweep, the edit scan and review write), [`views`] (the readers'
//! rows), [`identity`] (references by namespace and scope), [`package`] (package columns).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use super::{Scope, SkillSource, SkillStatus};
use crate::model::Outcome;

mod identity;
mod package;
mod state;
mod views;

pub use identity::*;
pub use package::*;
pub use state::*;
pub use views::*;

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
         ORDER BY namespace = 'default' DESC, scope = ?3 DESC, id LIMIT 1"
    );
    Ok(conn.query_row(&sql, params![agent, name, Scope::Workspace], from_row).optional()?)
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
