//! Execution traces: one row per artifact execution or output check.
//!
//! Owns the table `skill_execution_traces` (its listing reads artifact names from
//! `skill_artifacts`, owned by `packages::db`).

use anyhow::Result;
use serde::Serialize;

use crate::store::Store;
use crate::store::rusqlite::{Connection, params};

#[derive(Debug, Clone, Default)]
pub struct NewTrace {
    pub session_id: String,
    pub skill_id: i64,
    pub artifact_id: String,
    pub artifact_kind: String,
    pub rendered_input: Option<String>,
    pub raw_output: Option<String>,
    pub error: Option<String>,
    pub started_at: String,
    pub completed_at: Option<String>,
    pub duration_ms: Option<i64>,
    pub model_id: Option<String>,
    pub assertions_run: i64,
    pub assertions_passed: i64,
    pub assertion_results: Option<String>,
}

/// Stores `t` and returns its id.
pub fn record(conn: &Connection, t: &NewTrace) -> Result<String> {
    let id = uuid::Uuid::new_v4().to_string();
    conn.execute(
        "INSERT INTO skill_execution_traces (id, session_id, skill_id, artifact_id, artifact_kind, rendered_input,
            raw_output, error, started_at, completed_at, duration_ms, model_id, assertions_run, assertions_passed,
            assertion_results)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        params![
            id,
            t.session_id,
            t.skill_id,
            t.artifact_id,
            t.artifact_kind,
            t.rendered_input,
            t.raw_output,
            t.error,
            t.started_at,
            t.completed_at,
            t.duration_ms,
            t.model_id,
            t.assertions_run,
            t.assertions_passed,
            t.assertion_results
        ],
    )?;
    Ok(id)
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceView {
    pub id: String,
    pub session_id: String,
    pub artifact_id: String,
    pub artifact_name: Option<String>,
    pub artifact_kind: String,
    pub started_at: String,
    pub duration_ms: Option<i64>,
    pub model_id: Option<String>,
    pub error: Option<String>,
    pub assertions_run: i64,
    pub assertions_passed: i64,
}

/// The newest `limit` traces of a skill, newest first.
pub fn recent(store: &Store, skill_id: i64, limit: usize) -> Result<Vec<TraceView>> {
    let mut stmt = store.conn().prepare(
        "SELECT t.id, t.session_id, t.artifact_id, a.name, t.artifact_kind, t.started_at, t.duration_ms,
                t.model_id, t.error, COALESCE(t.assertions_run, 0), COALESCE(t.assertions_passed, 0)
         FROM skill_execution_traces t LEFT JOIN skill_artifacts a ON a.id = t.artifact_id
         WHERE t.skill_id = ?1 ORDER BY t.started_at DESC, t.rowid DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![skill_id, limit as i64], |r| {
        Ok(TraceView {
            id: r.get(0)?,
            session_id: r.get(1)?,
            artifact_id: r.get(2)?,
            artifact_name: r.get(3)?,
            artifact_kind: r.get(4)?,
            started_at: r.get(5)?,
            duration_ms: r.get(6)?,
            model_id: r.get(7)?,
            error: r.get(8)?,
            assertions_run: r.get(9)?,
            assertions_passed: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
