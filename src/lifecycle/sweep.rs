//! The health sweep: judge every skill from its invocation record, write only what changed.
//!
//! Precedence (README "## Lifecycle"): rate rules (seed 001) apply to every skill once the window
//! holds `min_invocations`; Ghost's streak rules (seed 004) degrade any skill, but only retire
//! auto-created ones, and only in two steps: a sweep first flags the skill (degraded or
//! deprecated), and a later sweep retires it if a retire rule still holds and it failed again
//! since it was flagged. Protected skills are at worst `warning`.

use std::time::Instant;

use anyhow::Result;
use rusqlite::params;
use serde::Serialize;

use super::status::{DEGRADED, DEPRECATED, HEALTHY, RETIRED, WARNING, is_live};
use super::tally::{self, Tally};
use super::{SkillRow, add_event, implicit, register, versions};
use crate::config::LifecycleConfig;
use crate::model::Outcome;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default, Serialize)]
pub struct SweepReport {
    pub skills_judged: usize,
    pub edits_recorded: usize,
    pub implicit_failures: usize,
    pub invocations_linked: usize,
    pub counters_synced: usize,
    pub changes: Vec<StatusChange>,
    pub elapsed_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusChange {
    pub skill_id: i64,
    pub agent_id: String,
    pub name: String,
    pub from: String,
    pub to: String,
    pub reason: String,
}

/// What the rules say about one skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub status: &'static str,
    pub reason: String,
}

/// The state a skill is judged from.
pub struct Judged<'a> {
    pub status: &'a str,
    pub protected: bool,
    pub is_auto_created: bool,
    /// Newest invocation id when the skill was last flagged.
    pub flag_mark: Option<i64>,
}

fn pct(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

/// The rules, as a pure function (tested at their edges).
pub fn judge(skill: &Judged, t: &Tally, cfg: &LifecycleConfig) -> Verdict {
    let rate = t.window_rate().filter(|_| t.window_uses as usize >= cfg.min_invocations.max(1));
    let rate_note =
        |r: f64| format!("rolling rate {} ({}/{})", pct(r), t.window_successes, t.window_uses);
    let verdict = |status, reason| Verdict { status, reason };
    if skill.protected {
        return match rate {
            Some(r) if r <= cfg.warning_rate => {
                verdict(WARNING, format!("{} ≤ {}; protected", rate_note(r), pct(cfg.warning_rate)))
            }
            _ => verdict(HEALTHY, "protected".into()),
        };
    }
    let streak_rule = (t.ghost_streak >= cfg.retire_failure_streak)
        .then(|| format!("{} consecutive failures", t.ghost_streak));
    let young_rule = (t.ghost_failures >= u64::from(cfg.retire_failures)
        && t.ghost_uses < u64::from(cfg.retire_max_uses))
    .then(|| format!("{} failures in {} uses", t.ghost_failures, t.ghost_uses));
    let retire_rule = if skill.is_auto_created { streak_rule.or(young_rule) } else { None };
    let flagged = matches!(skill.status, DEGRADED | DEPRECATED);
    let failed_since_flag = t.last_outcome == Some(Outcome::Failure)
        && skill.flag_mark.is_none_or(|mark| t.newest_id > mark);
    if let Some(rule) = &retire_rule
        && flagged
        && failed_since_flag
    {
        return verdict(RETIRED, format!("{rule}, still failing after being {}", skill.status));
    }
    if let Some(r) = rate.filter(|r| *r <= cfg.deprecated_rate) {
        return verdict(DEPRECATED, format!("{} ≤ {}", rate_note(r), pct(cfg.deprecated_rate)));
    }
    if t.ghost_streak >= cfg.degraded_streak {
        return verdict(DEGRADED, format!("{} consecutive failures", t.ghost_streak));
    }
    if let Some(rule) = retire_rule {
        return verdict(DEGRADED, format!("{rule}; retires if it fails again"));
    }
    if let Some(r) = rate.filter(|r| *r <= cfg.warning_rate) {
        return verdict(WARNING, format!("{} ≤ {}", rate_note(r), pct(cfg.warning_rate)));
    }
    match rate {
        Some(r) => verdict(HEALTHY, rate_note(r)),
        None => verdict(
            HEALTHY,
            format!("{} of {} invocations needed", t.window_uses, cfg.min_invocations),
        ),
    }
}

/// Runs the implicit-signal pass and `scan_edits`, syncs counters from `skill_invocations`,
/// judges every live skill and applies the changes (retirements move the folder).
pub fn sweep(ws: &mut Workspace) -> Result<SweepReport> {
    let started = Instant::now();
    let mut report = SweepReport {
        edits_recorded: versions::scan_edits(ws)?,
        implicit_failures: implicit::implicit_failures(ws)?,
        ..SweepReport::default()
    };
    let cfg = ws.config.lifecycle.clone();
    ws.store.meta_set("lifecycle.window", &cfg.window.to_string())?;
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    report.invocations_linked = tally::link_invocations(&tx)?;
    let tallies = tally::tally_all(&tx, cfg.window, &tally::resets(&tx)?)?;
    let skills = sweep_rows(&tx)?;
    let empty = Tally::default();
    let mut moved = Vec::new();
    for (skill, cached, flag_mark) in &skills {
        let t = tallies.get(&skill.id).unwrap_or(&empty);
        let counters = counters_of(t);
        if *cached != counters {
            tx.execute(
                "UPDATE skills SET success_count = ?1, failure_count = ?2, last_outcome = ?3
                 WHERE id = ?4",
                params![counters.0, counters.1, counters.2, skill.id],
            )?;
            report.counters_synced += 1;
        }
        if !is_live(&skill.status) {
            continue;
        }
        report.skills_judged += 1;
        let judged = Judged {
            status: &skill.status,
            protected: skill.protected,
            is_auto_created: skill.is_auto_created,
            flag_mark: *flag_mark,
        };
        let v = judge(&judged, t, &cfg);
        if v.status == skill.status {
            continue;
        }
        let mut path = skill.path.clone();
        if v.status == RETIRED {
            let to = register::parked_path(&ws.paths.retired_dir, &skill.agent_id, &skill.name);
            super::files::move_dir(std::path::Path::new(&skill.path), &to)?;
            moved.push((to.clone(), std::path::PathBuf::from(&skill.path)));
            path = to.to_string_lossy().into_owned();
        }
        let mark = matches!(v.status, DEGRADED | DEPRECATED).then_some(t.newest_id);
        tx.execute(
            "UPDATE skills SET status = ?1, path = ?2, updated_at = ?3, flag_mark = ?4,
                 deprecated_at = CASE WHEN ?1 = 'deprecated' THEN ?3 ELSE deprecated_at END
             WHERE id = ?5",
            params![v.status, path, now, mark, skill.id],
        )?;
        add_event(&tx, skill.id, &now, "status", Some(&skill.status), Some(v.status), &v.reason)?;
        report.changes.push(StatusChange {
            skill_id: skill.id,
            agent_id: skill.agent_id.clone(),
            name: skill.name.clone(),
            from: skill.status.clone(),
            to: v.status.to_string(),
            reason: v.reason,
        });
    }
    if let Err(e) = tx.commit() {
        for (from, to) in moved {
            let _ = super::files::move_dir(&from, &to);
        }
        return Err(e.into());
    }
    report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report)
}

type Counters = (i64, i64, Option<String>);

fn counters_of(t: &Tally) -> Counters {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    (n(t.successes), n(t.failures), t.last_outcome.map(|o| o.as_str().to_string()))
}

fn sweep_rows(conn: &rusqlite::Connection) -> Result<Vec<(SkillRow, Counters, Option<i64>)>> {
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, name, path, status, protected, version, is_auto_created,
                approved_sha256, needs_review, success_count, failure_count, last_outcome, flag_mark
         FROM skills",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((super::skill_from_row(r)?, (r.get(10)?, r.get(11)?, r.get(12)?), r.get(13)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
