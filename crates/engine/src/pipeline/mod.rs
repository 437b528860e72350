//! The pipeline in one call: what `ingest`, `demo` and the console's engine run after reading
//! transcripts — register hand-made skill folders, detect repeated work and draft it, and turn
//! candidates that overlap a live skill into proposed versions — and the upkeep before each
//! health sweep (outside edits, implicit failures, evolution), each run once per pass.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::catalog::{invocations, skills};
use crate::detect::{self, DetectReport};
use crate::draft::{
    self, CandidateSource, CandidateStatus, PendingDrafts, Recorder, candidates, finish, fixes,
    stage,
};
use crate::fsio;
use crate::identity;
use crate::ingest::{self, IngestReport, Progress};
use crate::journal;
use crate::lessons::{self, playbook};
use crate::lifecycle::{self, SweepReport};
use crate::store;
use crate::team;
use crate::usage::{effects, triggering};
use crate::workspace::Workspace;

mod learn;

pub use learn::{Learned, Pick};

/// What a pass runs. Every door builds one and hands it to [`run`]: `skilldeck ingest`, the
/// agents' hook, the console's engine, the demo; team sync is one of its steps.
#[derive(Debug, Clone, Default)]
pub struct Pass {
    /// Transcripts to read; `None` reads nothing.
    pub read: Option<Read>,
    /// Detection and what follows it (lessons, candidates, drafts, evolution).
    pub detect: Detect,
    /// Upkeep and judging (`upkeep_and_judge`).
    pub judge: bool,
    /// Push this member's evidence to the team and pull its skills (a no-op without a team).
    pub team: bool,
}

/// Which transcripts a pass reads.
#[derive(Debug, Clone, Default)]
pub struct Read {
    /// Files or folders; empty: the configured transcript roots.
    pub paths: Vec<PathBuf>,
    /// The agent owning `paths` (default: the one each file's content names, `ingest::run`).
    pub agent: Option<String>,
    /// Parser threads (default: the cores available, at most 4).
    pub threads: Option<usize>,
}

/// How much detection a pass runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detect {
    #[default]
    Off,
    /// Every pending turn.
    All,
    /// At most this many pending turns (a hook's bounded pass).
    AtMost(usize),
}

impl Pass {
    /// The console's timed pass and a second demo pass: read the configured roots, detect,
    /// judge, sync with the team.
    pub fn full() -> Pass {
        Pass { read: Some(Read::default()), detect: Detect::All, judge: true, team: true }
    }

    /// Read and detect, without judging (`skilldeck ingest`, a console pass on a file change).
    pub fn ingest(read: Read) -> Pass {
        Pass { read: Some(read), detect: Detect::All, judge: false, team: false }
    }
}

/// A step of the plan, in the order [`run`] runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Undo what a killed process left half done; adopt skill folders the database lacks.
    Recover,
    Ingest,
    /// Register the agent's hand-made skill folders before detection reads the live skills.
    Register,
    Detect,
    Lessons,
    /// Write the draft folders the recorded candidates describe.
    StageDrafts,
    /// `draft.command` and the flags of evidence aimed at the agent.
    ModelDrafting,
    AutoPromote,
    /// Open candidates that overlap a live skill become proposed versions.
    Evolve,
    /// Outside edits, implicit failures, judging, usage, effects, fixes, merges.
    Judge,
    TeamSync,
}

#[derive(Debug, Default, Serialize)]
pub struct PassReport {
    /// The steps this pass ran, in order, each once.
    pub steps: Vec<Step>,
    /// Milliseconds each step took, in the order of `steps`.
    pub step_ms: Vec<u64>,
    /// Skill folders adopted while recovering.
    pub adopted: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ingest: Option<IngestReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<AfterIngest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepReport>,
    /// What team sync said, when it had something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

/// Runs `pass`: recover, ingest, register, detect, lessons, stage drafts, model drafting,
/// auto-promote, evolve, judge, team sync — each step the pass asks for, once. The pass's commits
/// copy nothing of the write-ahead log into the database: a long log is copied alongside, on a
/// connection and thread of their own, while the pass goes on (`Store::checkpoint_alongside`).
pub fn run(
    ws: &mut Workspace,
    pass: &Pass,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PassReport> {
    let alongside = ws.store.checkpoint_alongside()?;
    let report = run_steps(ws, pass, &alongside, progress);
    let finished = alongside.finish(&mut ws.store);
    let report = report?;
    finished?;
    Ok(report)
}

fn run_steps(
    ws: &mut Workspace,
    pass: &Pass,
    alongside: &store::Alongside,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PassReport> {
    let mut line = Timeline::start();
    let mut report = PassReport { adopted: reconcile(ws)?, ..Default::default() };
    line.done(Step::Recover);
    if let Some(read) = &pass.read {
        let agent = read.agent.as_deref();
        report.ingest =
            Some(ingest::run_with_threads(ws, &read.paths, agent, read.threads, progress)?);
        line.done(Step::Ingest);
        // What ingest left in the log is copied beside detection.
        alongside.copy_now();
    }
    let limit = match pass.detect {
        Detect::Off => None,
        Detect::All => Some(None),
        Detect::AtMost(n) => Some(Some(n)),
    };
    if let Some(limit) = limit {
        report.after = Some(after_ingest_steps(ws, limit, &mut line)?);
    }
    if pass.judge {
        // Evolution runs once a pass: after detection when it ran, else with the upkeep.
        let evolve = report.after.is_none();
        report.sweep = Some(upkeep_and_judge(ws, false, evolve)?);
        line.done(Step::Judge);
    }
    if pass.team {
        report.team = team::sync(ws);
        line.done(Step::TeamSync);
    }
    (report.steps, report.step_ms) = (line.steps, line.ms);
    Ok(report)
}

/// The steps a pass ran and how long each took.
struct Timeline {
    steps: Vec<Step>,
    ms: Vec<u64>,
    since: Instant,
}

impl Timeline {
    fn start() -> Timeline {
        Timeline { steps: Vec::new(), ms: Vec::new(), since: Instant::now() }
    }

    /// `step` ended now: it took the time since the previous step ended.
    fn done(&mut self, step: Step) {
        self.steps.push(step);
        self.ms.push(lifecycle::ms(self.since));
        self.since = Instant::now();
    }
}

#[derive(Debug, Serialize)]
pub struct AfterIngest {
    /// Skill folders found in the skills folders that were not registered yet.
    pub skills_registered: usize,
    pub detect: Drafted,
    /// Open candidates that became proposed new versions of a live skill.
    pub proposed_versions: usize,
    /// Corrections and recurring fixes found in the turns detection read.
    pub lessons: lessons::LessonsReport,
}

/// What detection found and the stages after it made of it: its counts, then what model
/// drafting and auto-promotion did with the candidates it recorded (one object in `--json`).
#[derive(Debug, Default, Serialize)]
pub struct Drafted {
    #[serde(flatten)]
    pub detected: DetectReport,
    pub auto_promoted: u64,
    /// Candidates auto-promotion could not promote, with the reason.
    pub auto_promote_errors: Vec<String>,
    /// Flags, and `draft.command` drafts, of the candidates this run drafted.
    pub finish: finish::FinishReport,
}

/// Detection and what follows it over whatever ingestion stored and nothing has consumed yet,
/// outside a pass (learn, tests).
pub fn after_ingest(ws: &mut Workspace) -> Result<AfterIngest> {
    after_ingest_steps(ws, None, &mut Timeline::start())
}

/// The plan after ingest: register folders, detect (recording candidates), lessons over the
/// sessions detection read, stage the drafts, model drafting, auto-promote, evolve.
fn after_ingest_steps(
    ws: &mut Workspace,
    limit: Option<usize>,
    line: &mut Timeline,
) -> Result<AfterIngest> {
    let agent = ws.config.agent_id.clone();
    let skills_registered = identity::register_folders(ws, &agent)?;
    line.done(Step::Register);
    // The sessions whose turns detection is about to read: lessons read the same turns after.
    let sessions = ingest::pending_session_ids(ws.store.conn())?;
    let cache = ws.store.widen_cache()?;
    let mut recorder = Recorder::new(ws.paths.staging_dir.clone());
    let revisits = detect_and_learn(ws, limit, &mut recorder, &sessions, line);
    let restored = ws.store.restore_cache(cache);
    let (detected, lessons) = revisits?;
    restored?;
    let detect = draft_stages(ws, detected, recorder, line)?;
    let proposed_versions = draft::link_evolutions(ws)?;
    line.done(Step::Evolve);
    Ok(AfterIngest { skills_registered, detect, proposed_versions, lessons })
}

/// Detection, then lessons over the sessions it read: the two steps that read back what ingest
/// and detection just wrote.
fn detect_and_learn(
    ws: &mut Workspace,
    limit: Option<usize>,
    recorder: &mut Recorder,
    sessions: &[i64],
    line: &mut Timeline,
) -> Result<(detect::Detected, lessons::LessonsReport)> {
    let detected = detect::run_limited(ws, limit, recorder)?;
    line.done(Step::Detect);
    let lessons = lessons::after_detect(ws, sessions)?;
    line.done(Step::Lessons);
    Ok((detected, lessons))
}

/// Detection alone with the stages that turn its candidates into drafts on disk (what the
/// benchmarks and the detection tests run).
pub fn detect(ws: &mut Workspace) -> Result<Drafted> {
    detect_limited(ws, None)
}

/// `detect` over at most `limit` pending turns (the hook's bounded pass).
pub fn detect_limited(ws: &mut Workspace, limit: Option<usize>) -> Result<Drafted> {
    let mut recorder = Recorder::new(ws.paths.staging_dir.clone());
    let detected = detect::run_limited(ws, limit, &mut recorder)?;
    draft_stages(ws, detected, recorder, &mut Timeline::start())
}

/// Stage drafts, model drafting, auto-promotion: the candidates detection recorded become draft
/// folders, `draft.command` rewrites them, and (when configured) enough evidence goes live.
fn draft_stages(
    ws: &mut Workspace,
    detected: detect::Detected,
    recorder: Recorder,
    line: &mut Timeline,
) -> Result<Drafted> {
    let detect::Detected { report, touched } = detected;
    let mut report = Drafted { detected: report, ..Drafted::default() };
    let drafts = recorder.into_drafts();
    stage_drafts(ws, &drafts)?;
    line.done(Step::StageDrafts);
    report.finish = finish::after_detection(ws, drafts.staged.iter().map(|(id, d)| (*id, d)))?;
    line.done(Step::ModelDrafting);
    if ws.config.detect.auto_promote {
        auto_promote(ws, &touched, &mut report)?;
        line.done(Step::AutoPromote);
    }
    Ok(report)
}

/// Writes the draft folders of committed candidate rows and removes those of candidates that
/// became evidence. After the commits: the rows hold each draft's text, so a crash here loses no
/// evidence, and recovery (or `promote`) rewrites a missing draft from its row.
fn stage_drafts(ws: &Workspace, drafts: &PendingDrafts) -> Result<()> {
    fsio::fault("drafts");
    for draft in drafts.staged.values() {
        draft.write()?;
    }
    let written: HashSet<&Path> = drafts.staged.values().map(|d| d.folder.as_path()).collect();
    for folder in &drafts.stale {
        if !written.contains(folder.as_path()) {
            match std::fs::remove_dir_all(folder) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("removing {}", folder.display()));
                }
                _ => {}
            }
        }
    }
    if let Some(id) = drafts.intent {
        journal::end(ws.store.conn(), id)?;
    }
    Ok(())
}

/// `detect.auto_promote`: candidates this run created or fed, still open, not a proposed version,
/// with enough evidence, go live without review.
fn auto_promote(ws: &mut Workspace, ids: &[i64], report: &mut Drafted) -> Result<()> {
    let cfg = ws.config.detect.clone();
    let mut done = HashSet::new();
    for &id in ids {
        if !done.insert(id) {
            continue;
        }
        let c = candidates::get_candidate(ws.store.conn(), id)?;
        let needed = if c.source == CandidateSource::Signature {
            i64::from(cfg.streak_threshold)
        } else {
            cfg.min_sessions as i64
        };
        if c.status != CandidateStatus::Candidate
            || c.evidence_only
            || c.target_skill_id.is_some()
            || c.occurrences < needed
        {
            continue;
        }
        match draft::promote(ws, id) {
            Ok(_) => report.auto_promoted += 1,
            Err(e) => {
                report.auto_promote_errors.push(format!("candidate {id} ({}): {e:#}", c.name))
            }
        }
    }
    Ok(())
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
        stage::restage_missing(&ws.store)?;
        journal::end_drafts(ws.store.conn())?;
    }
    if recovered.merges {
        // After the undone file and folder steps above: the merge is completed from the state
        // they left.
        for (intent, candidate) in journal::claim_merges(ws.store.conn())? {
            draft::finish_merge(ws, candidate)?;
            journal::end(ws.store.conn(), intent)?;
        }
    }
    clear_debris(ws)?;
    playbook::recover(ws)?;
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

/// `skilldeck sweep`: record outside edits (adopting unknown live folders), add implicit
/// failures, link open candidates to the skills they evolve, then judge the skills whose record
/// changed (every skill when `full`), then propose merges of strongly overlapping live skills.
/// A full sweep also lists the live skills that break the Agent Skills spec.
pub fn sweep(ws: &mut Workspace, full: bool) -> Result<SweepReport> {
    let mut report = upkeep_and_judge(ws, full, true)?;
    if full {
        // Read every live folder only when asked to look at everything.
        for (_, name, path, status) in skills::live_folders(ws.store.conn())? {
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

/// What the usage rules last read: the live skills, the newest turn and the newest use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
struct Seen {
    live: String,
    turn: i64,
    uses: i64,
}

/// What changed since a rule last ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Changed {
    Nothing,
    /// Only new uses, after the use with this id.
    UsesSince(i64),
    /// New turns or a changed live set (or the rule never ran).
    Everything,
}

impl Seen {
    fn now(ws: &Workspace) -> Result<Seen> {
        let conn = ws.store.conn();
        Ok(Seen {
            live: skills::live_stamp(conn)?,
            turn: ingest::max_turn_id(conn)?,
            uses: invocations::max_id(conn)?,
        })
    }

    /// The stamp under `key`; `None` when the rule never ran (or a stamp of an older release).
    fn load(ws: &Workspace, key: &str) -> Result<Option<Seen>> {
        Ok(ws.store.meta_get(key)?.and_then(|text| serde_json::from_str(&text).ok()))
    }

    fn save(&self, ws: &Workspace, key: &str) -> Result<()> {
        ws.store.meta_set(key, &serde_json::to_string(self)?)
    }

    fn since(&self, last: Option<Seen>) -> Changed {
        match last {
            Some(last) if last.live == self.live && last.turn == self.turn => {
                if last.uses == self.uses {
                    Changed::Nothing
                } else {
                    Changed::UsesSince(last.uses)
                }
            }
            _ => Changed::Everything,
        }
    }
}

pub fn upkeep_and_judge(ws: &mut Workspace, full: bool, evolve: bool) -> Result<SweepReport> {
    let started = Instant::now();
    let t = Instant::now();
    let edits_recorded = lifecycle::scan_edits(ws)?;
    let scan_edits = lifecycle::ms(t);
    let t = Instant::now();
    let implicit_failures = lifecycle::implicit_failures(ws)?;
    let proposed_versions = if evolve { draft::link_evolutions(ws)? } else { 0 };
    let implicit = lifecycle::ms(t);
    let mut report = lifecycle::judge_skills(ws, full)?;
    let t = Instant::now();
    // Usage beside outcomes: after judging, so a skill judged on this pass's uses is not stale.
    report.usage = lifecycle::staleness_if_due(ws, chrono::Utc::now(), full)?;
    let now = Seen::now(ws)?;
    let live = now.live.clone();
    // Uptake and consolidation rerun only when what they read changed (a full sweep always).
    let changed =
        if full { Changed::Everything } else { now.since(Seen::load(ws, TRIGGERING_STAMP)?) };
    if changed != Changed::Nothing {
        // New turns or skills: every skill; only new uses: only the skills flagged now.
        let flagged_only = matches!(changed, Changed::UsesSince(_));
        report.triggering =
            triggering::record_transitions(ws, flagged_only, candidates::workflow_steps)?;
        now.save(ws, TRIGGERING_STAMP)?;
    }
    // Effect reruns on what changed: new turns or skills, every live skill; only new uses, the
    // skills they belong to.
    let changed = if full { Changed::Everything } else { now.since(Seen::load(ws, EFFECT_STAMP)?) };
    if changed != Changed::Nothing {
        let conn = ws.store.conn();
        let only = match changed {
            Changed::UsesSince(mark) => Some(invocations::skills_above(conn, mark)?),
            _ => None,
        };
        report.effects_measured =
            effects::refresh(conn, only.as_ref(), candidates::workflow_steps)?;
        // Fixes read new turns (requests a skill missed, sessions a parked one recurs in) and the
        // skills: a new use alone can end a skill's not triggering, never start one.
        if only.is_none() {
            report.proposed_fixes = fixes::propose_fixes(ws)?;
        }
        now.save(ws, EFFECT_STAMP)?;
    }
    // Consolidation: after judging and staleness, so only skills still live are paired.
    if full || ws.store.meta_get(MERGES_STAMP)?.as_deref() != Some(live.as_str()) {
        let merges = draft::propose_merges(ws)?;
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

/// `skilldeck learn`: a detection pass over what was ingested (so the session's work sits in a
/// workflow), then the session drafted as a candidate for review (`pipeline::learn`).
pub fn learn(ws: &mut Workspace, pick: Pick) -> Result<Learned> {
    after_ingest(ws)?;
    learn::learn(ws, pick)
}
