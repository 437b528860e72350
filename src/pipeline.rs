//! The pipeline in one call: what `ingest`, `demo` and the console's engine run after reading
//! transcripts — register hand-made skill folders, detect repeated work and draft it, and turn
//! candidates that overlap a live skill into proposed versions — and the upkeep before each
//! health sweep (outside edits, implicit failures, evolution), each run once per pass.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use crate::detect::{self, DetectReport};
use crate::ingest::{self, IngestReport, Progress};
use crate::journal;
use crate::lifecycle::{self, SweepReport};
use crate::workspace::Workspace;

#[derive(Debug, Serialize)]
pub struct AfterIngest {
    /// Skill folders found in the skills folders that were not registered yet.
    pub skills_registered: usize,
    pub detect: DetectReport,
    /// Open candidates that became proposed new versions of a live skill.
    pub proposed_versions: usize,
    /// Corrections and recurring fixes found in the turns detection read.
    pub lessons: crate::lessons::LessonsReport,
}

/// Detection and evolution over whatever ingestion stored and nothing has consumed yet.
pub fn after_ingest(ws: &mut Workspace) -> Result<AfterIngest> {
    after_ingest_limited(ws, None)
}

/// `after_ingest` detecting over at most `limit` pending turns (a hook's bounded pass).
pub fn after_ingest_limited(ws: &mut Workspace, limit: Option<usize>) -> Result<AfterIngest> {
    let agent = ws.config.agent_id.clone();
    let skills_registered = crate::identity::register_folders(ws, &agent)?;
    // The sessions whose turns detection is about to read: lessons read the same turns after.
    let sessions = ingest::pending_session_ids(ws.store.conn())?;
    let detect = detect::run_limited(ws, limit)?;
    let lessons = crate::lessons::after_detect(ws, &sessions)?;
    let proposed_versions = crate::draft::link_evolutions(ws)?;
    Ok(AfterIngest { skills_registered, detect, proposed_versions, lessons })
}

/// What every command and engine pass does first: [`recover`] what a killed process left
/// half done, then register the skill folders the database does not know yet
/// (`lifecycle::reconcile`). Returns the folders registered.
pub fn reconcile(ws: &mut Workspace) -> Result<usize> {
    recover(ws)?;
    lifecycle::reconcile(ws)
}

/// Undoes the folder and file steps of operations whose process died before their database
/// change committed (`journal::recover`), completes the drafts a killed detection run did not
/// write, and clears the scratch folders of dead processes. Cheap when nothing is pending: one
/// indexed query and a few folder listings.
pub fn recover(ws: &mut Workspace) -> Result<journal::Recovered> {
    let recovered = journal::recover(ws.store.conn_mut())?;
    if recovered.drafts {
        crate::draft::stage::restage_missing(&ws.store)?;
        journal::end_drafts(ws.store.conn())?;
    }
    if recovered.merges {
        // After the undone file and folder steps above: the merge is completed from the state
        // they left.
        for (intent, candidate) in journal::claim_merges(ws.store.conn())? {
            crate::draft::finish_merge(ws, candidate)?;
            journal::end(ws.store.conn(), intent)?;
        }
    }
    clear_debris(ws)?;
    crate::lessons::playbook::recover(ws)?;
    Ok(recovered)
}

/// Deletes what killed processes left in the scratch folders beside and inside every skills
/// folder (keeping what a pending intent names). Needs no write to the database, so read-only
/// commands run it too.
pub fn clear_debris(ws: &Workspace) -> Result<usize> {
    let mut dirs: Vec<PathBuf> =
        lifecycle::agent_folders(ws).into_iter().map(|(_, _, dir)| dir).collect();
    let p = &ws.paths;
    dirs.extend([p.staging_dir.clone(), p.archive_dir.clone(), p.retired_dir.clone()]);
    journal::clear_scratch(ws.store.conn(), &dirs)
}

#[derive(Debug, Serialize)]
pub struct PassReport {
    pub ingest: IngestReport,
    #[serde(flatten)]
    pub after: AfterIngest,
    pub sweep: SweepReport,
}

/// A whole background pass: ingest the given paths (empty: the configured roots), detect,
/// evolve, record outside edits and implicit failures, then judge (and propose merges). Evolution runs once (in
/// `after_ingest`).
pub fn run_pass(
    ws: &mut Workspace,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(&Progress),
) -> Result<PassReport> {
    reconcile(ws)?;
    let ingest = ingest::run(ws, paths, progress)?;
    let after = after_ingest(ws)?;
    let sweep = upkeep_and_judge(ws, false, false)?;
    Ok(PassReport { ingest, after, sweep })
}

/// `skilldeck sweep`: record outside edits (adopting unknown live folders), add implicit
/// failures, link open candidates to the skills they evolve, then judge the skills whose record
/// changed (every skill when `full`), then propose merges of strongly overlapping live skills.
/// A full sweep also lists the live skills that break the Agent Skills spec.
pub fn sweep(ws: &mut Workspace, full: bool) -> Result<SweepReport> {
    let mut report = upkeep_and_judge(ws, full, true)?;
    if full {
        // Read every live folder only when asked to look at everything.
        for (_, name, path, status) in crate::catalog::skills::live_folders(ws.store.conn())? {
            let errors = lifecycle::spec_errors(std::path::Path::new(&path));
            if status.is_live() && !errors.is_empty() {
                report.spec_errors.push((name, errors));
            }
        }
    }
    Ok(report)
}

/// `meta` keys: the stamps the uptake and merge passes last ran at.
const TRIGGERING_STAMP: &str = "usage.triggering_stamp";
const MERGES_STAMP: &str = "usage.merges_stamp";
const EFFECT_STAMP: &str = "usage.effect_stamp";

pub(crate) fn upkeep_and_judge(
    ws: &mut Workspace,
    full: bool,
    evolve: bool,
) -> Result<SweepReport> {
    let started = Instant::now();
    let t = Instant::now();
    let edits_recorded = lifecycle::scan_edits(ws)?;
    let scan_edits = lifecycle::ms(t);
    let t = Instant::now();
    let implicit_failures = lifecycle::implicit_failures(ws)?;
    let proposed_versions = if evolve { crate::draft::link_evolutions(ws)? } else { 0 };
    let implicit = lifecycle::ms(t);
    let mut report = lifecycle::judge_skills(ws, full)?;
    let t = Instant::now();
    // Usage beside outcomes: after judging, so a skill judged on this pass's uses is not stale.
    report.usage = lifecycle::staleness_if_due(ws, chrono::Utc::now(), full)?;
    let uses = crate::catalog::invocations::max_id(ws.store.conn())?.to_string();
    let live = crate::catalog::skills::live_stamp(ws.store.conn())?;
    // Uptake and consolidation rerun only when what they read changed (a full sweep always).
    let turns = format!("{live}/{}", crate::ingest::max_turn_id(ws.store.conn())?);
    let stamp = ws.store.meta_get(TRIGGERING_STAMP)?.unwrap_or_default();
    let (last_turns, last_uses) = stamp.rsplit_once('|').unwrap_or(("", ""));
    if full || last_turns != turns || last_uses != uses {
        // New turns or skills: every skill; only new uses: only the skills flagged now.
        let flagged_only = !full && last_turns == turns;
        report.triggering = crate::usage::triggering::record_transitions(
            ws,
            flagged_only,
            crate::draft::candidates::workflow_steps,
        )?;
        ws.store.meta_set(TRIGGERING_STAMP, &format!("{turns}|{uses}"))?;
    }
    // Effect reruns on what changed: new turns or skills, every live skill; only new uses, the
    // skills they belong to.
    let effect_stamp = ws.store.meta_get(EFFECT_STAMP)?.unwrap_or_default();
    let (effect_turns, effect_uses) = effect_stamp.rsplit_once('|').unwrap_or(("", ""));
    if full || effect_turns != turns || effect_uses != uses {
        let conn = ws.store.conn();
        let only = match effect_uses.parse::<i64>() {
            Ok(mark) if !full && effect_turns == turns => {
                Some(crate::catalog::invocations::skills_above(conn, mark)?)
            }
            _ => None,
        };
        report.effects_measured = crate::usage::effects::refresh(
            conn,
            only.as_ref(),
            crate::draft::candidates::workflow_steps,
        )?;
        // Fixes read new turns (requests a skill missed, sessions a parked one recurs in) and the
        // skills: a new use alone can end a skill's not triggering, never start one.
        if only.is_none() {
            report.proposed_fixes = crate::draft::fixes::propose_fixes(ws)?;
        }
        ws.store.meta_set(EFFECT_STAMP, &format!("{turns}|{uses}"))?;
    }
    // Consolidation: after judging and staleness, so only skills still live are paired.
    if full || ws.store.meta_get(MERGES_STAMP)?.as_deref() != Some(live.as_str()) {
        let merges = crate::draft::propose_merges(ws)?;
        report.proposed_merges = merges.proposed;
        report.merges_skipped = merges.skipped;
        // A proposal does not change the live set: the stamp read before it still holds.
        ws.store.meta_set(MERGES_STAMP, &live)?;
    }
    report.edits_recorded = edits_recorded;
    report.implicit_failures = implicit_failures;
    report.proposed_versions = proposed_versions;
    report.phases_ms.scan_edits = scan_edits;
    report.phases_ms.implicit = implicit;
    report.phases_ms.usage = lifecycle::ms(t);
    report.elapsed_ms = lifecycle::ms(started);
    Ok(report)
}

pub use crate::detect::learn::{Learned, Pick};

/// `skilldeck learn`: a detection pass over what was ingested (so the session's work sits in a
/// workflow), then the session drafted as a candidate for review (`detect::learn`).
pub fn learn(ws: &mut Workspace, pick: Pick) -> Result<Learned> {
    after_ingest(ws)?;
    crate::detect::learn::learn(ws, pick)
}
