//! Owns the table `skill_effects`: each skill's measured effect (`effect::measure`) as the last
//! sweep computed it, for the console's sort and `features`. `skilldeck stats NAME --effect`
//! measures afresh.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::effect::{Effect, Verdict};
use super::missed::DraftedSteps;
use crate::catalog::skills;
use crate::lifecycle;
use crate::store::now_rfc3339;

/// What the sort and `features` read: the verdict, the success rate's difference, the runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    pub verdict: Verdict,
    pub score: Option<f64>,
    pub runs_with: u64,
    pub runs_without: u64,
}

pub fn save(conn: &Connection, e: &Effect) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO skill_effects(skill_id, computed_at, verdict, score, effect, runs_with,
             runs_without)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(skill_id) DO UPDATE SET computed_at = excluded.computed_at,
             verdict = excluded.verdict, score = excluded.score, effect = excluded.effect,
             runs_with = excluded.runs_with, runs_without = excluded.runs_without",
    )?
    .execute(params![
        e.skill_id,
        now_rfc3339(),
        e.overall.verdict,
        e.score(),
        serde_json::to_string(e)?,
        e.overall.runs_with as i64,
        e.overall.runs_without as i64,
    ])?;
    Ok(())
}

/// The stored effect of one skill, if a sweep measured it.
pub fn load(conn: &Connection, skill_id: i64) -> Result<Option<Effect>> {
    let text: Option<String> = conn
        .query_row("SELECT effect FROM skill_effects WHERE skill_id = ?1", [skill_id], |r| r.get(0))
        .optional()?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

/// Every stored standing, by skill.
pub fn standings(conn: &Connection) -> Result<HashMap<i64, Standing>> {
    let mut stmt = conn
        .prepare("SELECT skill_id, verdict, score, runs_with, runs_without FROM skill_effects")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get(0)?,
            Standing {
                verdict: r.get(1)?,
                score: r.get(2)?,
                runs_with: r.get::<_, i64>(3)? as u64,
                runs_without: r.get::<_, i64>(4)? as u64,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Fills the effect columns of `features` rows from the stored effects.
pub fn annotate(conn: &Connection, rows: &mut [lifecycle::SkillFeatures]) -> Result<()> {
    let all = standings(conn)?;
    for f in rows {
        if let Some(s) = all.get(&f.skill_id) {
            f.effect = Some(s.verdict.as_str().to_string());
            f.effect_success_delta = s.score;
            f.effect_runs_with = Some(s.runs_with);
            f.effect_runs_without = Some(s.runs_without);
        }
    }
    Ok(())
}

/// Measures and stores the effect of each live skill in `only` (every live skill when `None`)
/// whose workflow has specific steps; returns how many were measured.
pub fn refresh(
    conn: &Connection,
    only: Option<&std::collections::HashSet<i64>>,
    drafted: impl DraftedSteps,
) -> Result<usize> {
    let mut by_agent: HashMap<String, super::effect::AgentRuns> = HashMap::new();
    let mut n = 0;
    for row in skills::all(conn)? {
        if !row.status.is_live() || only.is_some_and(|o| !o.contains(&row.id)) {
            continue;
        }
        let r = skills::uptake_ref(conn, row.id)?;
        let workflow = super::missed::workflow_of(conn, &r, drafted)?;
        if super::steps::specific(&workflow.0).is_empty() {
            continue;
        }
        if !by_agent.contains_key(&r.agent) {
            by_agent.insert(r.agent.clone(), super::effect::AgentRuns::load(conn, &r.agent)?);
        }
        let e = super::effect::measure_on(conn, &r, workflow, &by_agent[&r.agent])?;
        save(conn, &e)?;
        n += 1;
    }
    Ok(n)
}
