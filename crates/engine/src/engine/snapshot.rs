//! The one place the console reads data: builds an immutable [`Snapshot`].
//!
//! Built to stay cheap on large stores: the skills list comes from the `skills` table only; rates,
//! use counts and trends are read for the rows on screen ([`load_health`], through
//! `lifecycle::timeline`); the timeline and versions only for the selected skill ([`load_detail`],
//! through `lifecycle::timeline` and `lifecycle::versions`), and its package detail
//! (`packages::detail`) only while the skill's detail view is open. The procedures
//! (`procedures::list`, one read of the main-thread turns) are read with the lists, when the
//! store changed, never per frame.
//!
//! Over 700 lines: every read the console makes is here by design (the engine has no SQL of
//! its own and the tui none at all), so the cost notes above cover all of them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use chrono::{Days, NaiveDate};
use rusqlite::Connection;

use crate::catalog;
use crate::catalog::SkillHeader;
use crate::catalog::invocations;
use crate::catalog::skills;
use crate::config;
use crate::lessons;
use crate::lessons::LessonStatus;
use crate::lessons::db;
use crate::lessons::guard;
use crate::packages::{self, PackageDetail};
use crate::procedures;
use crate::store::Store;
use crate::team;
use crate::trial;
use crate::trial::record;
use crate::usage::effect;
use crate::usage::effects;
use crate::usage::missed;
use crate::usage::missed::Uptake;
use crate::workspace;
use crate::{draft, lifecycle, text};

/// Outcomes drawn in a skill's trend cell.
pub const TREND_LEN: usize = 10;
/// Days in the per-day outcome sparkline.
pub const TIMELINE_DAYS: usize = 30;
/// Invocations behind the rolling-rate chart.
pub const ROLLING_POINTS: usize = 200;

/// Everything the console draws, as of one moment. Cloning is cheap (shared parts are `Arc`s).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Bumps whenever the store content behind the lists changed; 0 until the first load.
    pub generation: u64,
    pub watching: Arc<Watching>,
    pub candidates: Arc<Vec<CandidateView>>,
    pub skills: Arc<Vec<SkillLine>>,
    /// Rates for the skills in view, by skill id.
    pub health: Arc<HashMap<i64, Health>>,
    /// Timeline and versions of the selected skill.
    pub detail: Option<Arc<SkillDetail>>,
    /// Package, identity and traces of the selected skill, while its detail view is open.
    pub package: Option<Arc<PackageDetail>>,
    /// Dismissed and rejected candidates, newest first, while the history overlay is open.
    pub history: Option<Arc<Vec<HistoryRow>>>,
    /// Uses against missed triggers of the selected live skill, while its detail view is open.
    pub uptake: Option<Arc<Uptake>>,
    /// Lessons to review and live ones, proposed first (`lessons::db::list`).
    pub lessons: Arc<Vec<lessons::Lesson>>,
    /// The dangerous commands each shown lesson stands for (`lessons::guard::lesson_danger`),
    /// by lesson id; lessons with none are absent.
    pub lesson_flags: Arc<HashMap<i64, Vec<String>>>,
    pub lessons_config: config::LessonsConfig,
    /// The procedures the history shows (`procedures::list`), most runs first: read with the
    /// lists, so once per change of the store.
    pub procedures: Arc<Vec<procedures::Procedure>>,
    /// The team's state as the last team sync or decision read it; `None` without `[team]` or
    /// before the first read.
    pub team: Option<Arc<team::TeamView>>,
    /// The selected skill's effect as the last sweep measured it, while its detail view is open.
    pub effect: Option<Arc<effect::Effect>>,
    /// The selected skill's id and latest trial (`trial::record`), while its detail view is open.
    pub trial: Option<(i64, Arc<trial::TrialRow>)>,
    pub rules: Rules,
    /// The view this snapshot was built for: the console's request answered.
    pub view: View,
    /// The person's last change in this console, which `u` offers to take back.
    pub undo: Option<UndoOffer>,
}

/// The last change `u` would take back: what it was (past tense: "promoted summarize-pr"),
/// whether it can be undone, and the number the undo must name.
#[derive(Debug, Clone, PartialEq)]
pub struct UndoOffer {
    pub seq: u64,
    pub what: String,
    pub undoable: bool,
    pub at: std::time::SystemTime,
}

/// What changed between two loads of the lists, in words, for the status line: skills whose
/// state changed (the first few by name), skills added or gone, new queue items. Empty when
/// nothing the person would notice changed.
pub fn changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    let old: HashMap<i64, &SkillLine> = before.skills.iter().map(|s| (s.id, s)).collect();
    let mut moved = Vec::new();
    let mut added: u64 = 0;
    for s in after.skills.iter() {
        match old.get(&s.id) {
            Some(o) if o.status != s.status => {
                moved.push(format!("{} {}→{}", s.name, o.status, s.status))
            }
            Some(_) => {}
            None => added += 1,
        }
    }
    if !moved.is_empty() {
        let more = if moved.len() > 3 { ", …" } else { "" };
        out.push(format!("{}{more}", moved.into_iter().take(3).collect::<Vec<_>>().join(", ")));
    }
    if added > 0 {
        out.push(text::count(added, "new skill"));
    }
    let known: std::collections::HashSet<i64> = before.candidates.iter().map(|c| c.id).collect();
    let queued = after.candidates.iter().filter(|c| !known.contains(&c.id)).count();
    if queued > 0 {
        out.push(format!("{} in the queue", text::count(queued as u64, "new item")));
    }
    out
}

/// Why `u` does nothing: the last change cannot be undone and `u` never reaches past it.
pub fn cannot_undo(what: &str) -> String {
    format!("the last change ({what}) cannot be undone, and u does not reach past it")
}

impl Snapshot {
    /// Whether the lists have been read at least once.
    pub fn loaded(&self) -> bool {
        self.generation > 0
    }

    /// An empty snapshot describing `ws` (what it watches, its thresholds); fill with [`refresh`].
    pub fn for_workspace(ws: &workspace::Workspace) -> Snapshot {
        let db = ws.store.path().map(|p| p.to_path_buf()).unwrap_or_else(|| ws.paths.db.clone());
        let lifecycle = &ws.config.lifecycle;
        Snapshot {
            watching: Arc::new(Watching {
                transcript_roots: ws.transcript_roots().into_iter().map(|r| r.path).collect(),
                skills_dir: ws.paths.skills_dir.clone(),
                staging_dir: ws.paths.staging_dir.clone(),
                db,
                config_file: ws.paths.config_file.clone(),
                config_exists: ws.paths.config_file.exists(),
                agents: config::AgentNames::of(&ws.config),
            }),
            lessons_config: ws.config.lessons.clone(),
            rules: Rules {
                window: lifecycle.window,
                warning_rate: lifecycle.warning_rate,
                deprecated_rate: lifecycle.deprecated_rate,
                min_invocations: lifecycle.min_invocations,
            },
            ..Snapshot::default()
        }
    }
}

/// The skills on screen (for rates) and the selected one (for its timeline and versions).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct View {
    pub visible: Vec<i64>,
    pub selected: Option<i64>,
    /// The selected skill's detail view is open: load its package detail too.
    pub package: bool,
    /// The history overlay is open: load the dismissed and rejected candidates.
    pub history: bool,
}

/// A dismissed new-skill candidate, or a rejected proposed version (`target`: the skill).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRow {
    pub id: i64,
    pub agent: String,
    pub name: String,
    pub target: Option<String>,
    /// When it was dismissed or rejected.
    pub at: Option<String>,
}

/// Brings `snap` up to date for `view`, reloading the candidate and skill lists too when
/// `lists`. Returns the connection's `data_version` read before loading.
pub fn refresh(store: &Store, snap: &mut Snapshot, view: &View, lists: bool) -> Result<i64> {
    let conn = store.conn();
    let version = store.data_version()?;
    snap.view = view.clone();
    if lists {
        let skills = load_skills(conn)?;
        let staging = snap.watching.staging_dir.clone();
        snap.candidates = Arc::new(load_candidates(store, &skills, &staging)?);
        snap.skills = Arc::new(skills);
        let lessons = load_lessons(conn, &snap.lessons_config)?;
        let mut flags = HashMap::new();
        for l in &lessons {
            let found = guard::lesson_danger(conn, l)?;
            if !found.is_empty() {
                flags.insert(l.id, found.into_iter().map(|f| f.reason).collect());
            }
        }
        snap.lesson_flags = Arc::new(flags);
        snap.lessons = Arc::new(lessons);
        snap.procedures = Arc::new(procedures::list(conn, None)?);
        snap.generation += 1;
    }
    let wanted: std::collections::HashSet<i64> =
        view.visible.iter().copied().chain(view.selected).collect();
    let by_id: HashMap<i64, &SkillLine> = if wanted.is_empty() {
        HashMap::new()
    } else {
        snap.skills.iter().filter(|s| wanted.contains(&s.id)).map(|s| (s.id, s)).collect()
    };
    let visible: Vec<&SkillLine> =
        view.visible.iter().filter_map(|id| by_id.get(id).copied()).collect();
    let (health, selected_timeline) = load_health(store, &visible, view.selected)?;
    snap.health = Arc::new(health);
    let selected = view.selected.and_then(|id| by_id.get(&id));
    snap.detail = match selected {
        Some(skill) => {
            Some(Arc::new(load_detail(store, skill, &snap.candidates, selected_timeline)?))
        }
        None => None,
    };
    snap.package = match selected {
        Some(skill) if view.package => Some(Arc::new(packages::detail(store, skill.id)?)),
        _ => None,
    };
    snap.history = match view.history {
        true => Some(Arc::new(load_history(store)?)),
        false => None,
    };
    snap.uptake = match selected {
        Some(skill) if view.package && skill.status.is_live() => {
            let r = skills::uptake_ref(conn, skill.id)?;
            Some(Arc::new(missed::uptake(conn, &r, draft::candidates::workflow_steps)?))
        }
        _ => None,
    };
    snap.effect = match selected {
        Some(skill) if view.package => effects::load(conn, skill.id)?.map(Arc::new),
        _ => None,
    };
    snap.trial = match selected {
        Some(skill) if view.package => {
            let from = skills::uptake_ref(conn, skill.id)?.candidate_id;
            record::latest_for_skill(conn, skill.id, from)?.map(|t| (skill.id, Arc::new(t)))
        }
        _ => None,
    };
    Ok(version)
}

/// Lessons for the Lessons pane, newest first (an order a decision does not change, so the
/// selection stays on the lesson decided): every one but those seen in one session only.
fn load_lessons(
    conn: &rusqlite::Connection,
    cfg: &config::LessonsConfig,
) -> Result<Vec<lessons::Lesson>> {
    use LessonStatus as S;
    let shown = [S::Proposed, S::Approved, S::Pinned, S::Rejected, S::Dismissed, S::Pruned];
    db::list(conn, &shown, cfg)
}

/// Dismissed and rejected candidates (`draft::list_candidates`), newest first.
pub fn load_history(store: &Store) -> Result<Vec<HistoryRow>> {
    let mut rows: Vec<HistoryRow> = draft::list_candidates(store, None)?
        .into_iter()
        .filter(|c| c.status == draft::CandidateStatus::Dismissed)
        .map(|c| HistoryRow {
            id: c.id,
            agent: c.agent_id,
            name: c.name,
            target: c.target_skill_name.or(c.target_skill_id.map(|id| format!("skill {id}"))),
            at: c.dismissed_at,
        })
        .collect();
    rows.sort_by(|a, b| (&b.at, b.id).cmp(&(&a.at, a.id)));
    Ok(rows)
}

/// What the engine watches and where it writes, for the empty-state text and the header.
#[derive(Debug, Clone, Default)]
pub struct Watching {
    pub transcript_roots: Vec<PathBuf>,
    pub skills_dir: PathBuf,
    pub staging_dir: PathBuf,
    pub db: PathBuf,
    pub config_file: PathBuf,
    pub config_exists: bool,
    /// The agents' names as a person knows them ("Claude Code", "Codex").
    pub agents: config::AgentNames,
}

/// Lifecycle thresholds, drawn as lines on the rate chart and judging procedures' runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    pub window: usize,
    pub warning_rate: f64,
    pub deprecated_rate: f64,
    /// Uses needed before a rate is judged at all.
    pub min_invocations: usize,
}

impl Default for Rules {
    fn default() -> Self {
        let c = config::LifecycleConfig::default();
        Rules {
            window: c.window,
            warning_rate: c.warning_rate,
            deprecated_rate: c.deprecated_rate,
            min_invocations: c.min_invocations,
        }
    }
}

/// A row of the review queue. `id` is the candidate's, except for a `QueueItem::HandEdit`,
/// where it is the edited skill's.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateView {
    pub id: i64,
    /// What the row asks the reviewer to decide.
    pub item: QueueItem,
    pub agent: String,
    pub name: String,
    pub description: Option<String>,
    /// What the evidence is; `None` for a hand edit, which has none.
    pub source: Option<draft::CandidateSource>,
    /// Task signature, for candidates drafted from a success streak.
    pub signature: Option<String>,
    pub occurrences: i64,
    pub sessions: Vec<String>,
    pub examples: Vec<String>,
    pub tool_sequence: Vec<String>,
    pub skill_md: String,
    pub staged_path: Option<String>,
    pub created_at: String,
    /// The workflow's steps with their commands (`draft::skill::step_summaries`), when mined.
    pub steps: Vec<String>,
    /// Why it was proposed (support, specificity), when mined.
    pub reason: Option<String>,
    /// `mechanical` or `draft.command`, with why the command's draft was refused.
    pub drafted_by: Option<draft::candidates::DraftedBy>,
    pub draft_note: Option<String>,
    /// Why its evidence looks aimed at the agent.
    pub flags: Vec<String>,
    /// Its latest trial in one line (`skilldeck trial ID`), when it was trialled.
    pub trial: Option<String>,
}

/// The four kinds of queue row.
#[derive(Debug, Clone, PartialEq)]
pub enum QueueItem {
    /// A new skill drafted from repeated work: promote or dismiss.
    NewSkill,
    /// A proposed new version of the live skill `target`: approve or reject.
    Version { target: TargetSkill },
    /// A proposed version of `target` that absorbs `absorbs`: approving archives `absorbs`.
    Merge { target: TargetSkill, absorbs: TargetSkill },
    /// A live skill edited by hand since its approval: approve binds the approval to the text on
    /// disk (`skill_md`); roll back returns to `approved` (its version and text).
    HandEdit { approved: TargetSkill },
}

impl QueueItem {
    /// The text the row's `skill_md` is compared against: the live or the approved version.
    pub fn target(&self) -> Option<&TargetSkill> {
        match self {
            QueueItem::NewSkill => None,
            QueueItem::Version { target } | QueueItem::Merge { target, .. } => Some(target),
            QueueItem::HandEdit { approved } => Some(approved),
        }
    }
}

/// The live skill a proposed version would replace.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSkill {
    pub id: i64,
    pub name: String,
    pub version: i64,
    pub live: String,
    /// A retired, archived or missing skill must be restored before a version is approved.
    pub status: catalog::SkillStatus,
}

impl TargetSkill {
    /// `live v2`, or `retired v1` for a skill not live.
    pub fn label(&self) -> String {
        match self.status.is_live() {
            true => format!("live v{}", self.version),
            false => format!("{} v{}", self.status, self.version),
        }
    }
}

/// A skill as the console lists it: its header and what the list sorts by.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillLine {
    pub header: SkillHeader,
    /// Outcomes on record, for sorting by use.
    pub uses: i64,
    /// Success rate over every outcome on record (`None` before any), for sorting by rate.
    pub rate: Option<f64>,
    /// Newest outcome's time, for sorting by last use.
    pub last_used: Option<String>,
    /// Unused for `lifecycle.stale_days`.
    pub stale: bool,
    /// The effect the last sweep measured, for sorting by effect.
    pub effect: Option<effects::Standing>,
}

impl std::ops::Deref for SkillLine {
    type Target = SkillHeader;
    fn deref(&self) -> &SkillHeader {
        &self.header
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Health {
    /// Success rate over the last `window` invocations; `None` before any.
    pub rate: Option<f64>,
    pub uses: u64,
    /// Most recent outcomes, oldest first (`true` = success).
    pub trend: Vec<bool>,
    /// What `skilldeck validate` reports as errors for its live folder.
    pub spec_errors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkillDetail {
    pub skill_id: i64,
    pub days: Vec<DayOutcomes>,
    /// (invocation number, rolling success rate) over the last [`ROLLING_POINTS`] invocations.
    pub rolling: Vec<(f64, f64)>,
    pub events: Vec<EventRow>,
    pub versions: Vec<VersionRow>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DayOutcomes {
    pub day: String,
    /// `None` for a day without invocations.
    pub success: Option<u64>,
    pub failure: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub at: String,
    pub kind: catalog::EventKind,
    pub from: Option<catalog::SkillStatus>,
    pub to: Option<catalog::SkillStatus>,
    pub reason: String,
}

/// A stored version, or (with `proposal` set) a pending proposed version of the skill.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRow {
    pub version: i64,
    /// Where a stored version came from; `None` for a proposal.
    pub source: Option<catalog::VersionSource>,
    pub created_at: String,
    pub content: String,
    pub proposal: Option<i64>,
}

impl VersionRow {
    /// The word shown for where it came from: its source, or `proposed`.
    pub fn source_word(&self) -> &'static str {
        self.source.map_or("proposed", |s| s.as_str())
    }
}

/// The review queue: open candidates (`draft::list_candidates`), oldest first, each proposed
/// version with the live text of the skill it would replace (`lifecycle::versions`). A new
/// skill shows its draft as saved in `staging_dir` (what promote moves live, edits included).
pub fn load_candidates(
    store: &Store,
    skills: &[SkillLine],
    staging_dir: &std::path::Path,
) -> Result<Vec<CandidateView>> {
    let mut open: Vec<draft::CandidateView> = draft::list_candidates(store, None)?
        .into_iter()
        .filter(|c| c.status == draft::CandidateStatus::Candidate)
        .collect();
    open.sort_by(|a, b| (&a.created_at, a.id).cmp(&(&b.created_at, b.id)));
    let targets: HashMap<i64, &SkillLine> = open
        .iter()
        .filter_map(|c| c.target_skill_id)
        .filter_map(|id| skills.iter().find(|s| s.id == id).map(|s| (id, s)))
        .collect();
    let mut out = Vec::with_capacity(open.len());
    let trials = record::latest_by_candidate(store.conn())?;
    for c in open {
        let workflow = draft::candidates::workflow_of(store.conn(), c.id)?;
        let live_of = |skill: &SkillLine| -> Result<TargetSkill> {
            let live = lifecycle::versions(store, skill.id)?.pop().map(|v| v.content);
            Ok(TargetSkill {
                id: skill.id,
                name: skill.name.clone(),
                version: skill.version,
                live: live.unwrap_or_default(),
                status: skill.status,
            })
        };
        let target = match c.target_skill_id.and_then(|id| targets.get(&id)) {
            Some(skill) => Some(live_of(skill)?),
            None => None,
        };
        let absorbs = match draft::candidates::absorbs(store.conn(), c.id)?
            .and_then(|id| skills.iter().find(|s| s.id == id))
        {
            Some(skill) => Some(live_of(skill)?),
            None => None,
        };
        let absorbing = absorbs.is_some();
        let item = match (target, absorbs) {
            (Some(target), Some(absorbs)) => QueueItem::Merge { target, absorbs },
            (Some(target), None) => QueueItem::Version { target },
            (None, _) => QueueItem::NewSkill,
        };
        // A proposed version shows the text approve would write (named as the skill).
        let skill_md = match item.target() {
            Some(t) => draft::approval_text(c.skill_md.as_deref().unwrap_or_default(), &t.name),
            None => draft::staged_text(staging_dir, &c.name).or(c.skill_md).unwrap_or_default(),
        };
        out.push(CandidateView {
            id: c.id,
            item,
            agent: c.agent_id,
            name: c.name.clone(),
            description: c.description,
            source: Some(c.source),
            signature: c.signature,
            // The workflow's own counts, as its reason states them, when there is one.
            occurrences: workflow.as_ref().map_or(c.occurrences, |w| w.times() as i64),
            sessions: workflow.as_ref().map_or(c.session_keys, |w| w.sessions()),
            examples: c.examples,
            tool_sequence: step_names(c.tool_sequence),
            skill_md,
            staged_path: c.staged_path,
            created_at: c.created_at,
            steps: workflow.as_ref().map(draft::skill::step_summaries).unwrap_or_default(),
            reason: match (&workflow, &c.reason) {
                (Some(w), _) => Some(draft::skill::reason_line(w)),
                // A merge proposal says which skills overlap and how.
                (None, Some(r)) if absorbing => Some(text::safe::inline(&r.summary).into_owned()),
                _ => None,
            },
            drafted_by: Some(c.drafted_by),
            draft_note: c.draft_note.map(|n| text::safe::inline(&n).into_owned()),
            flags: c.flags.iter().map(|f| text::safe::inline(&f.reason).into_owned()).collect(),
            trial: trials.get(&c.id).map(|t| t.headline()),
        });
    }
    out.extend(review_rows(store, skills)?);
    Ok(out)
}

/// Live skills edited since their approval, as queue rows: the diff is the edit. A skill a
/// trial says makes things worse is one too (its text may be unchanged: the diff is empty).
fn review_rows(store: &Store, skills: &[SkillLine]) -> Result<Vec<CandidateView>> {
    let mut out = Vec::new();
    for s in skills.iter().filter(|s| s.needs_review) {
        let row = skills::by_id(store.conn(), s.id)?;
        let history = lifecycle::versions(store, s.id)?;
        let Some(now) = history.last() else { continue };
        let from = skills::uptake_ref(store.conn(), s.id)?.candidate_id;
        let trial = record::latest_for_skill(store.conn(), s.id, from)?;
        let hurts = trial.as_ref().is_some_and(|t| t.verdict == Some(effect::Verdict::Hurts));
        let approved = history
            .iter()
            .rev()
            .find(|v| Some(&v.sha256) == row.approved_sha256.as_ref())
            .or(history.iter().rev().nth(1))
            .or(hurts.then_some(now));
        let Some(approved) = approved else { continue };
        let description = match hurts && approved.sha256 == now.sha256 {
            true => {
                "A trial says this skill makes things worse. Approve keeps it as it is; \
                     archive it (2, x) to stop the agent loading it."
            }
            false => {
                "Approve binds the approval to the text on disk; roll back returns to the \
                      approved version."
            }
        };
        out.push(CandidateView {
            id: s.id,
            item: QueueItem::HandEdit {
                approved: TargetSkill {
                    id: s.id,
                    name: s.name.clone(),
                    version: approved.version,
                    live: approved.content.clone(),
                    status: s.status,
                },
            },
            agent: s.agent_id.clone(),
            name: s.name.clone(),
            description: Some(description.into()),
            source: None,
            signature: None,
            occurrences: 1,
            sessions: Vec::new(),
            examples: Vec::new(),
            tool_sequence: Vec::new(),
            skill_md: now.content.clone(),
            staged_path: Some(s.path.clone()),
            created_at: now.created_at.clone(),
            steps: Vec::new(),
            reason: None,
            drafted_by: None,
            draft_note: None,
            flags: Vec::new(),
            trial: trial.filter(|_| hurts).map(|t| t.headline()),
        });
    }
    Ok(out)
}

/// Every skill, ordered by agent and name, with its overall rate and last use for sorting.
pub fn load_skills(conn: &Connection) -> Result<Vec<SkillLine>> {
    let rows = skills::console_rows(conn)?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut last_used = invocations::last_used_each(conn, &ids)?;
    let effects = effects::standings(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| SkillLine {
            rate: (r.uses > 0).then(|| r.successes as f64 / r.uses as f64),
            last_used: last_used.remove(&r.id),
            uses: r.uses,
            stale: r.stale,
            effect: effects.get(&r.id).copied(),
            header: r.header,
        })
        .collect())
}

/// Rate, uses and trend for the given skills (those on screen). Rate and uses come from
/// `lifecycle::timeline` (by skill id, so a workspace skill and the account skill it shadows keep
/// their own figures); the trend is the newest outcomes.
///
/// The timeline of `keep` (the selected skill, when on screen) is handed back for its detail, so
/// a skill with a long record is read once.
pub fn load_health(
    store: &Store,
    skills: &[&SkillLine],
    keep: Option<i64>,
) -> Result<(HashMap<i64, Health>, Option<lifecycle::Timeline>)> {
    let mut out = HashMap::with_capacity(skills.len());
    let mut kept = None;
    for s in skills {
        let timeline = lifecycle::timeline(store, s.id)?;
        let trend = invocations::newest_outcomes(store.conn(), s.id, TREND_LEN)?;
        let uses = timeline.rate_points.len() as u64;
        let rate = timeline.rate_points.last().map(|p| p.rate);
        let spec_errors = match s.status.is_live() {
            true => lifecycle::spec_errors(std::path::Path::new(&s.path)),
            false => Vec::new(),
        };
        out.insert(s.id, Health { rate, uses, trend, spec_errors });
        if keep == Some(s.id) {
            kept = Some(timeline);
        }
    }
    Ok((out, kept))
}

/// Per-day outcomes, rolling rate and events (`lifecycle::timeline`), and the versions
/// (`lifecycle::versions`) plus pending proposals (from the queue) of one skill.
/// `timeline`: the skill's, if already read.
pub fn load_detail(
    store: &Store,
    skill: &SkillLine,
    candidates: &[CandidateView],
    timeline: Option<lifecycle::Timeline>,
) -> Result<SkillDetail> {
    let timeline = match timeline {
        Some(t) => t,
        None => lifecycle::timeline(store, skill.id)?,
    };
    let per_day: HashMap<String, (u64, u64)> = timeline
        .days
        .iter()
        .rev()
        .take(TIMELINE_DAYS)
        .map(|d| (d.day.clone(), (u64::from(d.successes), u64::from(d.failures))))
        .collect();
    let days = fill_days(&per_day);
    let points = &timeline.rate_points;
    let first = points.len().saturating_sub(ROLLING_POINTS);
    let rolling =
        points[first..].iter().enumerate().map(|(i, p)| ((first + i + 1) as f64, p.rate)).collect();
    let events = timeline
        .events
        .into_iter()
        .rev()
        .take(50)
        .map(|e| EventRow {
            at: e.at,
            kind: e.kind,
            from: e.from_status,
            to: e.to_status,
            reason: e.reason,
        })
        .collect();
    let stored = lifecycle::versions(store, skill.id)?.into_iter().map(|v| VersionRow {
        version: v.version,
        source: Some(v.source),
        created_at: v.created_at,
        content: v.content,
        proposal: None,
    });
    let proposed = candidates.iter().filter(|c| match &c.item {
        QueueItem::Version { target } | QueueItem::Merge { target, .. } => target.id == skill.id,
        QueueItem::NewSkill | QueueItem::HandEdit { .. } => false,
    });
    let mut proposed: Vec<VersionRow> = proposed
        .map(|c| VersionRow {
            version: 0,
            source: None,
            created_at: c.created_at.clone(),
            content: c.skill_md.clone(),
            proposal: Some(c.id),
        })
        .collect();
    proposed.sort_by_key(|v| v.proposal);
    let versions = stored.chain(proposed).collect();
    Ok(SkillDetail { skill_id: skill.id, days, rolling, events, versions })
}

/// Days from the first to the last day with invocations (at most [`TIMELINE_DAYS`], ending at the
/// latest), gaps as `None`.
fn fill_days(per_day: &HashMap<String, (u64, u64)>) -> Vec<DayOutcomes> {
    let dates: Vec<NaiveDate> =
        per_day.keys().filter_map(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()).collect();
    let (Some(&first), Some(&last)) = (dates.iter().min(), dates.iter().max()) else {
        return Vec::new();
    };
    let span = (last - first).num_days().clamp(0, TIMELINE_DAYS as i64 - 1) as u64;
    (0..=span)
        .rev()
        .filter_map(|back| last.checked_sub_days(Days::new(back)))
        .map(|day| {
            let key = day.format("%Y-%m-%d").to_string();
            let counts = per_day.get(&key);
            DayOutcomes { success: counts.map(|c| c.0), failure: counts.map(|c| c.1), day: key }
        })
        .collect()
}

/// Tool names of a stored tool sequence (steps are names or `{name, shape}` objects).
fn step_names(sequence: serde_json::Value) -> Vec<String> {
    match sequence {
        serde_json::Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Object(ref m) => m
                    .get("name")
                    .or_else(|| m.get("tool"))
                    .and_then(|n| n.as_str())
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.to_string()),
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_sequences_show_names() {
        let seq = step_names(serde_json::json!([{"name": "Read", "shape": "{}"}, "Bash"]));
        assert_eq!(seq, vec!["Read", "Bash"]);
    }
}
