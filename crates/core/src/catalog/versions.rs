//! Owns the table `skill_versions`: the full text of every kept version of every skill.

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::VersionSource;
use crate::store::now_rfc3339;
use crate::text::hex;

#[derive(Debug, Clone, Serialize)]
pub struct VersionView {
    pub version: i64,
    pub sha256: String,
    pub source: VersionSource,
    pub created_at: String,
    pub content: String,
}

/// Every version of a skill, oldest first.
pub fn list(conn: &Connection, skill_id: i64) -> Result<Vec<VersionView>> {
    let mut stmt = conn.prepare(
        "SELECT version, sha256, source, created_at, content FROM skill_versions
         WHERE skill_id = ?1 ORDER BY version",
    )?;
    let rows = stmt.query_map([skill_id], |r| {
        Ok(VersionView {
            version: r.get(0)?,
            sha256: r.get(1)?,
            source: r.get(2)?,
            created_at: r.get(3)?,
            content: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The newest version: (number, sha256).
pub fn latest(conn: &Connection, skill_id: i64) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT version, sha256 FROM skill_versions WHERE skill_id = ?1
             ORDER BY version DESC LIMIT 1",
            [skill_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The newest version's text.
pub fn latest_content(conn: &Connection, skill_id: i64) -> Result<String> {
    conn.query_row(
        "SELECT content FROM skill_versions WHERE skill_id = ?1 ORDER BY version DESC LIMIT 1",
        [skill_id],
        |r| r.get(0),
    )
    .with_context(|| format!("skill {skill_id} has no version"))
}

/// The text of one version, if it exists.
pub fn content(conn: &Connection, skill_id: i64, version: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT content FROM skill_versions WHERE skill_id = ?1 AND version = ?2",
            params![skill_id, version],
            |r| r.get(0),
        )
        .optional()?)
}

/// Writes one kept version: the full text and its sha256. Every version row goes through here.
pub fn insert(
    conn: &Connection,
    skill_id: i64,
    version: i64,
    content: &str,
    source: VersionSource,
) -> Result<()> {
    insert_at(conn, skill_id, version, content, source, &now_rfc3339())
}

/// [`insert`] with the time given: a version recorded at a known moment (imports, fixtures).
pub fn insert_at(
    conn: &Connection,
    skill_id: i64,
    version: i64,
    content: &str,
    source: VersionSource,
    at: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![skill_id, version, content, hex::sha256_hex(content.as_bytes()), source, at],
    )?;
    Ok(())
}

pub(super) fn delete_for(conn: &Connection, skill_id: i64) -> Result<()> {
    conn.execute("DELETE FROM skill_versions WHERE skill_id = ?1", [skill_id])?;
    Ok(())
}
