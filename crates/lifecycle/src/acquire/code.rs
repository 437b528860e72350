//! Owns the table `acquired_code`: the tested script behind an acquired code skill.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

/// One `acquired_code` row.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub skill_id: i64,
    /// Relative to the skill folder.
    pub script_path: String,
    /// JSON array: program and leading args.
    pub interpreter: String,
    pub sha256: String,
    pub test_payload: String,
    /// JSON array of the repairs applied.
    pub sanitized: String,
    pub tested_at: String,
}

/// Records (or replaces) the script of a code skill.
pub fn put(conn: &Connection, row: &CodeRow) -> Result<()> {
    conn.execute(
        "INSERT INTO acquired_code (skill_id, script_path, interpreter, sha256, test_payload, sanitized, tested_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(skill_id) DO UPDATE SET script_path = excluded.script_path, interpreter = excluded.interpreter,
           sha256 = excluded.sha256, test_payload = excluded.test_payload, sanitized = excluded.sanitized,
           tested_at = excluded.tested_at",
        params![
            row.skill_id,
            row.script_path,
            row.interpreter,
            row.sha256,
            row.test_payload,
            row.sanitized,
            row.tested_at
        ],
    )?;
    Ok(())
}

/// The script of a code skill, if the skill is one.
pub fn get(conn: &Connection, skill_id: i64) -> Result<Option<CodeRow>> {
    Ok(conn
        .query_row(
            "SELECT script_path, interpreter, sha256, test_payload, sanitized, tested_at
             FROM acquired_code WHERE skill_id = ?1",
            [skill_id],
            |r| {
                Ok(CodeRow {
                    skill_id,
                    script_path: r.get(0)?,
                    interpreter: r.get(1)?,
                    sha256: r.get(2)?,
                    test_payload: r.get(3)?,
                    sanitized: r.get(4)?,
                    tested_at: r.get(5)?,
                })
            },
        )
        .optional()?)
}
