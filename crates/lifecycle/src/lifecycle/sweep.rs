//! The health sweep: judge skills from their invocation record, write only what changed. It
//! only judges: recording outside edits, implicit failures and evolution are the pipeline's
//! upkeep (`pipeline::sweep`), run once per pass before this.
//!
//! A full sweep folds the whole invocation table in one ordered index scan. Later sweeps are
//! incremental: only skills with invocation rows newer than the last sweep's high-water mark,
//! newly linked rows, or a row changed since the last sweep (record, pin, restore, version) are
//! recomputed, each from the table. Skills nothing touched keep the verdict they had (the rules
//! are idempotent on an unchanged tally). A changed `[lifecycle]` config forces a full sweep.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use rusqlite::{Connection, TransactionBehavior};
use serde::Serialize;

use super::rules::{Judged, judge};
use super::tally::{self, Tally};
use super::{files, register};
use crate::catalog::EventKind;
use crate::catalog::events;
use crate::catalog::skills::{self, Counters};
use crate::catalog::{SkillStatus, invocations};
use crate::config;
use crate::fsio;
use crate::journal;
use crate::store;
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
    /// Merge proposals added to the review queue (`draft::merge`), and pairs whose merged text
    /// failed its checks.
    pub proposed_merges: usize,
    pub merges_skipped: Vec<String>,
    /// Skills that started or stopped "not triggering" in this sweep (`usage::triggering`).
    pub triggering: Vec<TriggerChange>,
    /// Skills whose effect was measured again (`usage::effects`).
    pub effects_measured: usize,
    /// Trigger rewrites and restores added to the review queue (`draft::fixes`).
    pub proposed_fixes: ProposedFixes,
    pub invocations_linked: usize,
    pub counters_synced: usize,
    pub changes: Vec<StatusChange>,
    /// The usage-based rules: skills marked stale, archived unused, or used again.
    pub usage: super::StaleReport,
    /// A full sweep: live skills `skilldeck validate` reports errors for, (name, errors).
    pub spec_errors: Vec<(String, Vec<String>)>,
    pub elapsed_ms: u64,
    pub phases_ms: Phases,
}

/// What `draft::fixes` proposed in a sweep (counted here: lifecycle sits below drafting).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProposedFixes {
    pub trigger_rewrites: usize,
    pub restores: usize,
    pub skipped: Vec<String>,
}

/// A skill that started (`not_triggering`) or stopped "not triggering", with the event's reason.
#[derive(Debug, Clone, Serialize)]
pub struct TriggerChange {
    pub agent: String,
    pub name: String,
    pub not_triggering: bool,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Phases {
    pub scan_edits: u64,
    pub implicit: u64,
    pub tally: u64,
    pub apply: u64,
    /// Staleness, uptake and consolidation, with the reads that decide whether each runs.
    pub usage: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusChange {
    pub skill_id: i64,
    pub agent_id: String,
    pub name: String,
    pub from: SkillStatus,
    pub to: SkillStatus,
    pub reason: String,
}

const WATERMARK: &str = "lifecycle.sweep_watermark";
const SWEPT_AT: &str = "lifecycle.swept_at";
const CONFIG: &str = "lifecycle.sweep_config";
const FULL_AT: &str = "lifecycle.full_sweep_at";
/// A full sweep at least this often catches what leaves no trace for the incremental one
/// (invocation rows deleted or rewritten by hand).
const FULL_EVERY: chrono::Duration = chrono::Duration::hours(24);

/// Judges the skills whose record changed since the last sweep (all of them the first time,
/// daily, after a config change, or when `force_full`), writing only what changed. Fills the
/// `mode`, `skills_judged`, `invocations_linked`, `counters_synced`, `changes` and timing fields.
pub fn judge_skills(ws: &mut Workspace, force_full: bool) -> Result<SweepReport> {
    run(ws, force_full)
}

/// Milliseconds since `t`, for the report's phase timings.
pub fn ms(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn run(ws: &mut Workspace, force_full: bool) -> Result<SweepReport> {
    let started = Instant::now();
    let mut report = SweepReport::default();

    let cfg = ws.config.lifecycle.clone();
    let cfg_key = serde_json::to_string(&cfg)?;
    ws.store.meta_set("lifecycle.window", &cfg.window.to_string())?;
    let now = now_rfc3339();
    let t = Instant::now();
    ws.store.map_for_scans()?;
    let tx = ws.store.conn_mut().transaction_with_behavior(TransactionBehavior::Immediate)?;
    let meta = |key: &str| store::meta_get(&tx, key);
    let watermark: Option<i64> = meta(WATERMARK)?.and_then(|w| w.parse().ok());
    let swept_at = meta(SWEPT_AT)?;
    let full_due = meta(FULL_AT)?
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok())
        .is_none_or(|at| chrono::Utc::now().signed_duration_since(at) > FULL_EVERY);
    let full =
        force_full || full_due || watermark.is_none() || meta(CONFIG)?.as_deref() != Some(&cfg_key);
    let high = invocations::max_id(&tx)?;
    let newly_linked = invocations::unlinked_targets(&tx)?;
    report.invocations_linked = invocations::link_all(&tx)?;
    let resets = skills::resets(&tx)?;
    let (rows, tallies) = if full {
        (skills::sweep_rows(&tx, None)?, tally::tally_all(&tx, cfg.window, &resets)?)
    } else {
        let mut dirty = dirty_skills(&tx, watermark.unwrap_or(0), swept_at.as_deref())?;
        dirty.extend(newly_linked);
        let mut tallies = HashMap::new();
        for id in &dirty {
            let reset = resets.get(id).map(String::as_str);
            tallies.insert(*id, tally::tally_one(&tx, *id, cfg.window, reset)?);
        }
        (skills::sweep_rows(&tx, Some(&dirty))?, tallies)
    };
    report.mode = if full { "full" } else { "incremental" };
    report.phases_ms.tally = ms(t);

    let t = Instant::now();
    let empty = Tally::default();
    let mut moved: Vec<Moved> = Vec::new();
    for row in &rows {
        let t = tallies.get(&row.0.id).unwrap_or(&empty);
        let judged = judge_row(&tx, &ws.paths.retired_dir, row, t, &cfg, &now, &mut moved)?;
        report.counters_synced += usize::from(judged.synced);
        report.skills_judged += usize::from(judged.judged);
        report.changes.extend(judged.change);
    }
    let mut marks = vec![(WATERMARK, high.to_string()), (SWEPT_AT, now.clone()), (CONFIG, cfg_key)];
    if full {
        marks.push((FULL_AT, now));
    }
    for (key, value) in marks {
        store::meta_set(&tx, key, &value)?;
    }
    let intents = retirements_pending(&tx, &moved)?;
    tx.commit()?;
    retire_folders(ws.store.conn(), &moved, &intents)?;
    report.phases_ms.apply = ms(t);
    report.elapsed_ms = ms(started);
    Ok(report)
}

/// A retired skill's folder move the judging decided: (the live folder, its place in the
/// retired folder). The row says the new place once the transaction commits; the folder moves
/// after, through the journal.
pub type Moved = (PathBuf, PathBuf);

/// Records, inside the judging transaction, an intent for each retirement move. Each is a move
/// intent written backwards (from the retired place to the live one): recovery undoes a move by
/// putting the folder back at its `from`, which here completes the retirement, so a kill after
/// the commit leaves the folder where the committed row says.
pub fn retirements_pending(tx: &Connection, moves: &[Moved]) -> Result<Vec<i64>> {
    moves.iter().map(|(live, retired)| journal::move_pending(tx, retired, live)).collect()
}

/// After the commit: moves each retired skill's folder and ends its intent. A move that fails
/// keeps its intent, and the next command's recovery moves the folder.
pub fn retire_folders(conn: &Connection, moves: &[Moved], intents: &[i64]) -> Result<()> {
    if !moves.is_empty() {
        fsio::fault("commit");
    }
    for ((live, retired), id) in moves.iter().zip(intents) {
        files::move_skill_folder(live, retired).with_context(|| {
            format!("retiring {}: the next command finishes the move", live.display())
        })?;
        journal::end(conn, *id)?;
    }
    Ok(())
}

/// What judging one skill did.
#[derive(Debug, Default)]
struct RowJudged {
    /// The cached counters were rewritten.
    synced: bool,
    /// The skill is live, so the rules ran.
    judged: bool,
    change: Option<StatusChange>,
}

/// Judges one skill from its tally inside `tx`: syncs its counters cache and, when the rules
/// give another state, writes it with one `status` event (moving the folder of a retired skill;
/// the move is pushed on `moved` so a failed commit can put it back).
fn judge_row(
    tx: &Connection,
    retired_dir: &Path,
    (skill, cached, flag_mark): &skills::SweepRow,
    t: &Tally,
    cfg: &config::LifecycleConfig,
    now: &str,
    moved: &mut Vec<Moved>,
) -> Result<RowJudged> {
    let mut out = RowJudged::default();
    let counters = counters_of(t);
    if *cached != counters {
        skills::set_counters(tx, skill.id, &counters)?;
        out.synced = true;
    }
    if !skill.status.is_live() {
        return Ok(out);
    }
    out.judged = true;
    let judged = Judged {
        status: skill.status,
        protected: skill.protected,
        is_auto_created: skill.is_auto_created,
        flag_mark: *flag_mark,
    };
    let v = judge(&judged, t, cfg);
    if v.status == skill.status {
        return Ok(out);
    }
    let mut path = skill.path.clone();
    if v.status == SkillStatus::Retired {
        let to = register::parked_path(retired_dir, &skill.agent_id, &skill.name)?;
        // A folder that cannot move (a name already in the retired folder) must not stop the
        // sweep: the skill stays as it is and its timeline says why.
        if to.exists() {
            let reason = format!("{}; not retired: {} already exists", v.reason, to.display());
            events::add(tx, skill.id, now, EventKind::RetireBlocked, None, None, &reason)?;
            return Ok(out);
        }
        if Path::new(&skill.path).exists() {
            moved.push((PathBuf::from(&skill.path), to.clone()));
        }
        path = to.to_string_lossy().into_owned();
    }
    let mark = v.status.is_flagged().then_some(t.newest_id);
    skills::set_judged_status(tx, skill.id, v.status, &path, mark, now)?;
    events::add(
        tx,
        skill.id,
        now,
        EventKind::Status,
        Some(skill.status),
        Some(v.status),
        &v.reason,
    )?;
    out.change = Some(StatusChange {
        skill_id: skill.id,
        agent_id: skill.agent_id.clone(),
        name: skill.name.clone(),
        from: skill.status,
        to: v.status,
        reason: v.reason,
    });
    Ok(out)
}

/// Judges one skill at once, inside the caller's transaction (a recorded outcome is judged
/// with the write that records it, so its state never lags its numbers). The same rules and
/// the same single `status` event as the sweep, which later finds nothing left to change.
/// Returns the change, if any, and the folder to move once it commits ([`retirements_pending`]).
pub fn judge_now(
    tx: &Connection,
    retired_dir: &Path,
    cfg: &config::LifecycleConfig,
    skill_id: i64,
    now: &str,
) -> Result<(Option<StatusChange>, Vec<Moved>)> {
    let reset = skills::streak_reset_at(tx, skill_id)?;
    let t = tally::tally_one(tx, skill_id, cfg.window, reset.as_deref())?;
    let mut moved = Vec::new();
    let only = HashSet::from([skill_id]);
    let mut change = None;
    for row in skills::sweep_rows(tx, Some(&only))? {
        change = judge_row(tx, retired_dir, &row, &t, cfg, now, &mut moved)?.change;
    }
    Ok((change, moved))
}

fn counters_of(t: &Tally) -> Counters {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    (n(t.successes), n(t.failures), t.last_outcome.map(|o| o.as_str().to_string()))
}

/// Skills with invocation rows above the watermark, or whose row changed since the last sweep.
fn dirty_skills(conn: &Connection, watermark: i64, swept_at: Option<&str>) -> Result<HashSet<i64>> {
    let mut out = invocations::skills_above(conn, watermark)?;
    // No sweep time yet means every row (`""` sorts before any time).
    out.extend(skills::changed_since(conn, swept_at.unwrap_or(""))?);
    Ok(out)
}
