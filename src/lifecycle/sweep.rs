//! The health sweep: judge skills from their invocation record, write only what changed.
//!
//! A full sweep folds the whole invocation table in one ordered index scan. Later sweeps are
//! incremental: only skills with invocation rows newer than the last sweep's high-water mark,
//! newly linked rows, or a row changed since the last sweep (record, pin, restore, version) are
//! recomputed, each from the table. Skills nothing touched keep the verdict they had (the rules
//! are idempotent on an unchanged tally). A changed `[lifecycle]` config forces a full sweep.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

use super::rules::{Judged, judge};
use super::status::{DEGRADED, DEPRECATED, RETIRED, is_live};
use super::tally::{self, Tally};
use super::{SkillRow, add_event, files, implicit, register, versions};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default, Serialize)]
pub struct SweepReport {
    /// `full` (whole table) or `incremental`.
    pub mode: &'static str,
    pub skills_judged: usize,
    pub edits_recorded: usize,
    pub implicit_failures: usize,
    /// Open candidates that became proposed versions of a live skill in this sweep.
    pub proposed_versions: usize,
    pub invocations_linked: usize,
    pub counters_synced: usize,
    pub changes: Vec<StatusChange>,
    pub elapsed_ms: u64,
    pub phases_ms: Phases,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Phases {
    pub scan_edits: u64,
    pub implicit: u64,
    pub tally: u64,
    pub apply: u64,
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

const WATERMARK: &str = "lifecycle.sweep_watermark";
const SWEPT_AT: &str = "lifecycle.swept_at";
const CONFIG: &str = "lifecycle.sweep_config";
const FULL_AT: &str = "lifecycle.full_sweep_at";
/// A full sweep at least this often catches what leaves no trace for the incremental one
/// (invocation rows deleted or rewritten by hand).
const FULL_EVERY: chrono::Duration = chrono::Duration::hours(24);

/// Records external edits and implicit failures, links open candidates to the skills they
/// evolve, then judges the skills whose record changed since the last sweep (all of them the
/// first time, daily, or after a config change).
pub fn sweep(ws: &mut Workspace) -> Result<SweepReport> {
    run(ws, false)
}

/// Like `sweep`, but recomputes every skill from the whole invocation table.
pub fn sweep_full(ws: &mut Workspace) -> Result<SweepReport> {
    run(ws, true)
}

fn ms(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn run(ws: &mut Workspace, force_full: bool) -> Result<SweepReport> {
    let started = Instant::now();
    let mut report = SweepReport::default();
    let t = Instant::now();
    report.edits_recorded = versions::scan_edits(ws)?;
    report.phases_ms.scan_edits = ms(t);
    let t = Instant::now();
    report.implicit_failures = implicit::implicit_failures(ws)?;
    report.proposed_versions = super::link_evolutions(ws)?;
    report.phases_ms.implicit = ms(t);

    let cfg = ws.config.lifecycle.clone();
    let cfg_key = serde_json::to_string(&cfg)?;
    ws.store.meta_set("lifecycle.window", &cfg.window.to_string())?;
    let now = now_rfc3339();
    let t = Instant::now();
    // Reading the invocation index through a memory map saves a copy per page on a full scan.
    ws.store.conn().query_row("PRAGMA mmap_size = 268435456", [], |_| Ok(()))?;
    let tx = ws.store.conn_mut().transaction_with_behavior(TransactionBehavior::Immediate)?;
    let meta = |key: &str| -> Result<Option<String>> {
        Ok(tx.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    };
    let watermark: Option<i64> = meta(WATERMARK)?.and_then(|w| w.parse().ok());
    let swept_at = meta(SWEPT_AT)?;
    let full_due = meta(FULL_AT)?
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok())
        .is_none_or(|at| chrono::Utc::now().signed_duration_since(at) > FULL_EVERY);
    let full =
        force_full || full_due || watermark.is_none() || meta(CONFIG)?.as_deref() != Some(&cfg_key);
    let high: i64 =
        tx.query_row("SELECT COALESCE(MAX(id), 0) FROM skill_invocations", [], |r| r.get(0))?;
    let newly_linked = tally::unlinked_targets(&tx)?;
    report.invocations_linked = tally::link_invocations(&tx)?;
    let resets = tally::resets(&tx)?;
    let (skills, tallies) = if full {
        (sweep_rows(&tx, None)?, tally::tally_all(&tx, cfg.window, &resets)?)
    } else {
        let mut dirty = dirty_skills(&tx, watermark.unwrap_or(0), swept_at.as_deref())?;
        dirty.extend(newly_linked);
        let mut tallies = HashMap::new();
        for id in &dirty {
            let reset = resets.get(id).map(String::as_str);
            tallies.insert(*id, tally::tally_one(&tx, *id, cfg.window, reset)?);
        }
        (sweep_rows(&tx, Some(&dirty))?, tallies)
    };
    report.mode = if full { "full" } else { "incremental" };
    report.phases_ms.tally = ms(t);

    let t = Instant::now();
    let empty = Tally::default();
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut sync = tx.prepare(
        "UPDATE skills SET success_count = ?1, failure_count = ?2, last_outcome = ?3 WHERE id = ?4",
    )?;
    for (skill, cached, flag_mark) in &skills {
        let t = tallies.get(&skill.id).unwrap_or(&empty);
        let counters = counters_of(t);
        if *cached != counters {
            sync.execute(params![counters.0, counters.1, counters.2, skill.id])?;
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
            // A folder that cannot move (say, a name already in the retired folder) must not
            // stop the sweep: the skill stays as it is and its timeline says why.
            if let Err(e) = files::move_dir(Path::new(&skill.path), &to) {
                let reason = format!("{}; not retired: {e:#}", v.reason);
                add_event(&tx, skill.id, &now, "retire_blocked", None, None, &reason)?;
                continue;
            }
            moved.push((to.clone(), PathBuf::from(&skill.path)));
            path = to.to_string_lossy().into_owned();
        }
        let mark = matches!(v.status, DEGRADED | DEPRECATED).then_some(t.newest_id);
        // `updated_at` is left alone: it marks changes the next incremental sweep must judge,
        // and this one is already judged (its time is on the event).
        tx.execute(
            "UPDATE skills SET status = ?1, path = ?2, flag_mark = ?4,
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
    drop(sync);
    let mut marks = vec![(WATERMARK, high.to_string()), (SWEPT_AT, now.clone()), (CONFIG, cfg_key)];
    if full {
        marks.push((FULL_AT, now));
    }
    for (key, value) in marks {
        tx.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
    }
    if let Err(e) = tx.commit() {
        for (from, to) in moved {
            let _ = files::move_dir(&from, &to);
        }
        return Err(e.into());
    }
    report.phases_ms.apply = ms(t);
    report.elapsed_ms = ms(started);
    Ok(report)
}

type Counters = (i64, i64, Option<String>);

fn counters_of(t: &Tally) -> Counters {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    (n(t.successes), n(t.failures), t.last_outcome.map(|o| o.as_str().to_string()))
}

/// Skills with invocation rows above the watermark, or whose row changed since the last sweep.
fn dirty_skills(conn: &Connection, watermark: i64, swept_at: Option<&str>) -> Result<HashSet<i64>> {
    let mut out = HashSet::new();
    let mut stmt = conn.prepare(
        // NOT INDEXED: walk the rowid range, never the whole skill index.
        "SELECT skill_id FROM skill_invocations NOT INDEXED WHERE id > ?1 AND skill_id IS NOT NULL",
    )?;
    for id in stmt.query_map([watermark], |r| r.get(0))? {
        out.insert(id?);
    }
    // No sweep time yet means every row (`""` sorts before any time).
    let mut stmt = conn.prepare("SELECT id FROM skills WHERE updated_at >= ?1")?;
    for id in stmt.query_map([swept_at.unwrap_or("")], |r| r.get(0))? {
        out.insert(id?);
    }
    Ok(out)
}

type SweepRow = (SkillRow, Counters, Option<i64>);

fn sweep_rows(conn: &Connection, only: Option<&HashSet<i64>>) -> Result<Vec<SweepRow>> {
    let sql = "SELECT id, agent_id, name, path, status, protected, version, is_auto_created,
                approved_sha256, needs_review, success_count, failure_count, last_outcome, flag_mark
         FROM skills";
    let read = |r: &rusqlite::Row| -> rusqlite::Result<SweepRow> {
        Ok((super::skill_from_row(r)?, (r.get(10)?, r.get(11)?, r.get(12)?), r.get(13)?))
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
