//! Lifecycle signals as predictor features, one row per skill.

use anyhow::Result;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::outcomes::store_window;
use super::tally::{self, Tally};
use crate::catalog::{SkillStatus, invocations, skills};
use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct SkillFeatures {
    #[serde(skip)]
    pub skill_id: i64,
    pub agent_id: String,
    pub name: String,
    pub status: SkillStatus,
    pub skill_age_days: f64,
    /// Rolling success rate over the window; `null` before any invocation.
    pub skill_success_rate: Option<f64>,
    /// Invocations per day over the last 7 days.
    pub skill_invocation_velocity: f64,
    pub skill_version: i64,
    pub is_auto_created: bool,
    pub use_count: u64,
    pub last_used_at: Option<String>,
    /// The effect the last sweep measured (`usage::effects::annotate` fills these): its
    /// verdict, the success rate with the skill minus without, and the runs on each side.
    pub effect: Option<String>,
    pub effect_success_delta: Option<f64>,
    pub effect_runs_with: Option<u64>,
    pub effect_runs_without: Option<u64>,
    /// The latest trial (`trial::record::annotate` fills these): its verdict, when it finished,
    /// the pass rate with the skill and without, and the runs in each arm.
    pub trial: Option<String>,
    pub trial_at: Option<String>,
    pub trial_pass_with: Option<f64>,
    pub trial_pass_without: Option<f64>,
    pub trial_runs: Option<u64>,
}

/// Features of every skill (of `agent`, or all), as of `now`.
pub fn features(
    store: &Store,
    agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Vec<SkillFeatures>> {
    let conn = store.conn();
    let tallies = tally::tally_all(conn, store_window(store)?, &skills::resets(conn)?)?;
    let since = (now - Duration::days(7)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let recent = invocations::counts_since(conn, &since)?;
    let empty = Tally::default();
    let out = skills::list(conn, agent)?
        .into_iter()
        .map(|s| {
            let t = tallies.get(&s.id).unwrap_or(&empty);
            let age = DateTime::parse_from_rfc3339(&s.created_at)
                .map(|c| (now - c.with_timezone(&Utc)).num_seconds().max(0) as f64 / 86_400.0)
                .unwrap_or(0.0);
            let recent = recent.get(&s.id).copied().unwrap_or(0);
            SkillFeatures {
                skill_id: s.id,
                agent_id: s.header.agent_id.clone(),
                name: s.header.name.clone(),
                status: s.status,
                skill_age_days: (age * 1000.0).round() / 1000.0,
                skill_success_rate: t.window_rate(),
                skill_invocation_velocity: recent as f64 / 7.0,
                skill_version: s.version,
                is_auto_created: s.is_auto_created,
                use_count: t.uses,
                last_used_at: t.last_used_at.clone(),
                effect: None,
                effect_success_delta: None,
                effect_runs_with: None,
                effect_runs_without: None,
                trial: None,
                trial_at: None,
                trial_pass_with: None,
                trial_pass_without: None,
                trial_runs: None,
            }
        })
        .collect();
    Ok(out)
}

pub fn to_csv(rows: &[SkillFeatures]) -> String {
    let mut out = String::from(
        "agent_id,name,status,skill_age_days,skill_success_rate,skill_invocation_velocity,\
         skill_version,is_auto_created,use_count,last_used_at,effect,effect_success_delta,\
         effect_runs_with,effect_runs_without,trial,trial_at,trial_pass_with,trial_pass_without,\
         trial_runs\n",
    );
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for f in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{:.4},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            quote(&f.agent_id),
            quote(&f.name),
            f.status,
            f.skill_age_days,
            f.skill_success_rate.map(|r| format!("{r:.4}")).unwrap_or_default(),
            f.skill_invocation_velocity,
            f.skill_version,
            f.is_auto_created,
            f.use_count,
            f.last_used_at.as_deref().unwrap_or(""),
            f.effect.as_deref().map(quote).unwrap_or_default(),
            f.effect_success_delta.map(|r| format!("{r:.4}")).unwrap_or_default(),
            f.effect_runs_with.map(|n| n.to_string()).unwrap_or_default(),
            f.effect_runs_without.map(|n| n.to_string()).unwrap_or_default(),
            f.trial.as_deref().map(quote).unwrap_or_default(),
            f.trial_at.as_deref().unwrap_or(""),
            f.trial_pass_with.map(|r| format!("{r:.4}")).unwrap_or_default(),
            f.trial_pass_without.map(|r| format!("{r:.4}")).unwrap_or_default(),
            f.trial_runs.map(|n| n.to_string()).unwrap_or_default(),
        ));
    }
    out
}
