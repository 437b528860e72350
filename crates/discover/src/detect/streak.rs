//! Streak buckets: consecutive successes per (agent, task signature), kept so a streak survives
//! between runs.
//!
//! Owns the table `signature_streaks`.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Example {
    pub user_input: String,
    pub summary: Option<String>,
    pub turn_id: i64,
    #[serde(default)]
    pub session_key: String,
}

pub enum Step {
    /// A failure dropped an existing bucket.
    Reset,
    /// A failure with no bucket, or a success that grew one below the threshold.
    Nothing,
    /// The threshold was reached: the bucket is cleared and these are its trajectories.
    Triggered(Vec<Example>),
}

pub fn observe(
    conn: &Connection,
    agent: &str,
    signature: &str,
    success: bool,
    example: Example,
    threshold: u32,
    now: &str,
) -> Result<Step> {
    if !success {
        let dropped = conn
            .prepare_cached("DELETE FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2")?
            .execute(params![agent, signature])?;
        return Ok(if dropped > 0 { Step::Reset } else { Step::Nothing });
    }
    let bucket: Option<(i64, String)> = conn
        .prepare_cached(
            "SELECT count, examples FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2",
        )?
        .query_row(params![agent, signature], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (count, mut examples) = match bucket {
        Some((count, text)) => (count, serde_json::from_str::<Vec<Example>>(&text)?),
        None => (0, Vec::new()),
    };
    examples.push(example);
    let count = count + 1;
    if count >= i64::from(threshold.max(1)) {
        conn.prepare_cached(
            "DELETE FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2",
        )?
        .execute(params![agent, signature])?;
        return Ok(Step::Triggered(examples));
    }
    conn.prepare_cached(
        "INSERT INTO signature_streaks (agent_id, signature, count, examples, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(agent_id, signature) DO UPDATE SET count = excluded.count,
             examples = excluded.examples, updated_at = excluded.updated_at",
    )?
    .execute(params![agent, signature, count, serde_json::to_string(&examples)?, now])?;
    Ok(Step::Nothing)
}
