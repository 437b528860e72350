//! Owns the table `evolved_prompts`: the prompt store, one row per drafted SKILL.md (fresh
//! UUID v4 key) and per benchmark score, read by `suggest` as reliability priors.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, params};

/// Records one scored prompt for a skill name.
pub fn add(
    conn: &Connection,
    agent: &str,
    skill_name: &str,
    prompt: &str,
    score: f64,
    scorer: &str,
    now: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO evolved_prompts (id, agent_id, skill_name, prompt, score, scorer, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![uuid::Uuid::new_v4().to_string(), agent, skill_name, prompt, score, scorer, now],
    )?;
    Ok(())
}

/// The latest score per skill name of `agent` from the `bench` and `auto_drafter` scorers, a
/// `bench` score winning: skill name → (scorer, score).
pub fn latest_scores(
    conn: &Connection,
    agent: &str,
) -> Result<HashMap<String, (&'static str, f64)>> {
    let mut out = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT skill_name, scorer, score FROM evolved_prompts
         WHERE agent_id = ?1 AND scorer IN ('bench', 'auto_drafter')
         ORDER BY scorer = 'bench', created_at",
    )?;
    let mut rows = stmt.query([agent])?;
    while let Some(r) = rows.next()? {
        let scorer = if r.get_ref(1)?.as_str()? == "bench" { "bench" } else { "auto_drafter" };
        // Later rows overwrite: bench rows come last, and the newest row of each scorer last.
        out.insert(r.get(0)?, (scorer, r.get::<_, f64>(2)?));
    }
    Ok(out)
}
