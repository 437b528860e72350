//! The engine's writing jobs: the person's ops, their undo, and the ingest/detect/sweep pass.
//! Each runs on tokio's blocking pool with the workspace moved in, and calls the domain
//! functions the command line calls (`draft`, `lifecycle`, `ingest`, `pipeline`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use tokio::sync::mpsc::UnboundedSender;

use super::{CandidateId, Op, Progress, SkillId, Subject, Update};
use crate::catalog;
use crate::catalog::{SkillStatus, skills};
use crate::ingest::IngestReport;
use crate::lessons;
use crate::lessons::LessonStatus;
use crate::lessons::db;
use crate::lifecycle::SweepReport;
use crate::pipeline::{self, AfterIngest};
use crate::text::count;
use crate::text::safe;
use crate::workspace::Workspace;
use crate::{draft, lifecycle};

/// A unit of writing work.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Work {
    Op(Op),
    /// Undo the entry's op if what it changed is still as the op left it.
    Undo(Entry),
    Pass {
        ingest: bool,
        sweep: bool,
    },
    /// The live skills folder changed: record edited SKILL.md files as versions.
    ScanEdits,
    /// The person's editor exited on `file` (a live skill's when `skill`).
    Edited {
        file: PathBuf,
        skill: bool,
    },
}

pub(super) fn describe(job: &Work) -> String {
    match job {
        Work::Op(op) => format!("{} {}…", verb(op), op.name()),
        Work::Undo(e) => format!("undoing {} {}…", verb(&e.done.op), e.done.op.name()),
        Work::Pass { ingest: true, sweep: true } => "ingest, detect, sweep…".into(),
        Work::Pass { ingest: true, .. } => "ingest, detect…".into(),
        Work::Pass { .. } => "sweep…".into(),
        Work::ScanEdits => "reading edited skills…".into(),
        Work::Edited { .. } => "reading the saved file…".into(),
    }
}

fn verb(op: &Op) -> &'static str {
    match op {
        Op::Promote(_) => "promote",
        Op::Dismiss(_) => "dismiss",
        Op::Approve(_) => "approve",
        Op::Reject(_) => "reject",
        Op::SetProtected(_, true) => "pin",
        Op::SetProtected(_, false) => "unpin",
        Op::Archive(_) => "archive",
        Op::Restore(_) => "restore",
        Op::ApproveEdit(_) => "approve the edit of",
        Op::Rollback(..) => "roll back",
        Op::Reopen(_) => "reopen",
        Op::Lesson(_, status) => match status {
            lessons::LessonStatus::Approved => "approve",
            lessons::LessonStatus::Pinned => "pin",
            lessons::LessonStatus::Dismissed => "dismiss",
            _ => "reopen",
        },
    }
}

/// What a job did: its message, the op to remember for undo, and the skill folders it wrote
/// with the SKILL.md each holds after it (file events that find a folder just so are the
/// echo of the engine's own write, not an outside edit).
pub(super) struct JobDone {
    pub result: Result<String>,
    pub done: Option<Done>,
    /// An undo that failed gives its entry back, now as one that cannot be undone.
    pub back: Option<Entry>,
    pub wrote: Vec<OwnWrite>,
}

/// A change in the undo history: its number (what `u` asked about) and when it was made.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub seq: u64,
    pub done: Done,
    pub at: std::time::SystemTime,
}

/// A change the person made, as the undo history keeps it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Done {
    pub op: Op,
    /// Whether `u` can take it back; one that cannot stops `u` from reaching past it.
    pub undoable: bool,
    /// What the op left (see [`state_of`]): an undo refuses once this has changed.
    pub state: OpState,
    /// What the op found: the status a lesson decision's undo puts back.
    pub before: OpState,
}

/// What an op changed, as the database has it: what an undo compares, and names when it refuses.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum OpState {
    /// A candidate's status (`None`: gone).
    Candidate(Option<draft::CandidateStatus>),
    /// A promotion or approval: the candidate's status and the skill it made or changed, by
    /// name and version (`None`: no skill).
    Decided { status: Option<draft::CandidateStatus>, skill: Option<(String, i64)> },
    /// A lesson's status (`None`: gone).
    Lesson(Option<LessonStatus>),
    /// A skill's pin (`None`: the skill is gone).
    Pin { name: String, pinned: Option<bool> },
    /// A skill's status and version (`None`: the skill is gone).
    Skill { name: String, now: Option<(SkillStatus, i64)> },
}

impl std::fmt::Display for OpState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpState::Candidate(status) => queue_word(f, *status),
            OpState::Decided { status, skill } => {
                queue_word(f, *status)?;
                match skill {
                    Some((name, version)) => write!(f, ", {name} at v{version}"),
                    None => f.write_str(", no skill"),
                }
            }
            OpState::Lesson(Some(s)) => write!(f, "{s}"),
            OpState::Lesson(None) => f.write_str("gone"),
            OpState::Pin { name, pinned: Some(true) } => write!(f, "{name} pinned"),
            OpState::Pin { name, pinned: Some(false) } => write!(f, "{name} not pinned"),
            OpState::Skill { name, now: Some((status, version)) } => {
                write!(f, "{name} {status} at v{version}")
            }
            OpState::Pin { name, pinned: None } | OpState::Skill { name, now: None } => {
                write!(f, "{name} gone")
            }
        }
    }
}

/// The op in the past tense, for the undo question: "promoted summarize-pr".
pub(super) fn past(op: &Op) -> String {
    let name = &op.name();
    match op {
        Op::Promote(_) => format!("promoted {name}"),
        Op::Dismiss(_) => format!("dismissed {name}"),
        Op::Approve(_) => format!("approved the proposed version of {name}"),
        Op::Reject(_) => format!("rejected the proposed version of {name}"),
        Op::SetProtected(_, true) => format!("pinned {name}"),
        Op::SetProtected(_, false) => format!("unpinned {name}"),
        Op::Archive(_) => format!("archived {name}"),
        Op::Restore(_) => format!("restored {name}"),
        Op::ApproveEdit(_) => format!("approved the hand edit of {name}"),
        Op::Rollback(_, v) => format!("rolled {name} back to v{v}"),
        Op::Reopen(_) => format!("reopened {name} from the history"),
        Op::Lesson(_, status) => format!("set {name} to {status}"),
    }
}

/// Whether `u` can take `op` back. Rollbacks, approved edits and restores cannot: each is
/// itself a way back, and its own reversal is the key that made it.
fn undoable(op: &Op) -> bool {
    !matches!(op, Op::Restore(_) | Op::ApproveEdit(_) | Op::Rollback(..))
}

fn queue_word(
    f: &mut std::fmt::Formatter<'_>,
    status: Option<draft::CandidateStatus>,
) -> std::fmt::Result {
    match status {
        Some(draft::CandidateStatus::Candidate) => f.write_str("in the queue"),
        Some(s) => write!(f, "{s}"),
        None => f.write_str("gone"),
    }
}

/// What an op changed, as the database has it now: the candidate's status and the skill's
/// version for review decisions, the pin or the state for a skill.
fn state_of(ws: &Workspace, op: &Op) -> OpState {
    let conn = ws.store.conn();
    let candidate = |id: CandidateId| draft::get_candidate(conn, id.0).ok();
    let skill_version = |id: Option<i64>| match id.map(|id| skills::by_id(conn, id)) {
        Some(Ok(s)) => Some((s.header.name, s.header.version)),
        _ => None,
    };
    let skill = |t: &Subject<SkillId>| skills::find(conn, &t.agent, &t.name).ok().flatten();
    match op {
        Op::Promote(t) => {
            let c = candidate(t.id);
            let agent = c.as_ref().map(|c| c.agent_id.clone()).unwrap_or_default();
            let id = skills::promoted_from(conn, t.id.0, &agent).ok().flatten().map(|(id, _)| id);
            OpState::Decided { status: c.map(|c| c.status), skill: skill_version(id) }
        }
        Op::Approve(t) => {
            let c = candidate(t.id);
            let id = c.as_ref().and_then(|c| c.target_skill_id);
            OpState::Decided { status: c.map(|c| c.status), skill: skill_version(id) }
        }
        Op::Dismiss(t) | Op::Reject(t) | Op::Reopen(t) => {
            OpState::Candidate(candidate(t.id).map(|c| c.status))
        }
        Op::Lesson(t, _) => {
            OpState::Lesson(db::get(conn, t.id.0, &ws.config.lessons).ok().map(|l| l.status))
        }
        Op::SetProtected(t, _) => {
            OpState::Pin { name: t.name.clone(), pinned: skill(t).map(|s| s.protected) }
        }
        Op::Archive(t) | Op::Restore(t) | Op::ApproveEdit(t) | Op::Rollback(t, _) => {
            OpState::Skill { name: t.name.clone(), now: skill(t).map(|s| (s.status, s.version)) }
        }
    }
}

/// A folder an op wrote and its SKILL.md as the op left it (`None`: no file there).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct OwnWrite {
    pub folder: PathBuf,
    pub skill_md: Option<Vec<u8>>,
}

impl OwnWrite {
    fn now(folder: PathBuf) -> OwnWrite {
        let skill_md = std::fs::read(folder.join("SKILL.md")).ok();
        OwnWrite { folder, skill_md }
    }

    /// Whether the folder is still as the op left it.
    pub fn unchanged(&self) -> bool {
        std::fs::read(self.folder.join("SKILL.md")).ok() == self.skill_md
    }
}

/// Runs one job. `personal`: the person asked for it, so a pass that found nothing says so.
pub(super) fn run_job(
    ws: &mut Workspace,
    job: Work,
    personal: bool,
    updates: &UnboundedSender<Update>,
) -> JobDone {
    let mut back = None;
    let (result, done, wrote) = match job {
        Work::Op(op) => {
            let mut wrote = folders(ws, &op);
            let before = state_of(ws, &op);
            let result = apply(ws, &op);
            wrote.extend(folders(ws, &op));
            let wrote = wrote.into_iter().map(OwnWrite::now).collect();
            let done = result.is_ok().then(|| Done {
                undoable: undoable(&op),
                state: state_of(ws, &op),
                before,
                op,
            });
            (result, done, wrote)
        }
        Work::Undo(entry) => {
            let op = &entry.done.op;
            let mut wrote = folders(ws, op);
            let now = state_of(ws, op);
            let result = match now == entry.done.state {
                true => undo(ws, op, &entry.done.before),
                false => Err(anyhow::anyhow!(
                    "nothing undone: {} changed since ({} then, {now} now)",
                    op.name(),
                    entry.done.state
                )),
            };
            wrote.extend(folders(ws, op));
            if result.is_err() {
                back =
                    Some(Entry { done: Done { undoable: false, ..entry.done.clone() }, ..entry });
            }
            (result, None, wrote.into_iter().map(OwnWrite::now).collect())
        }
        Work::Pass { ingest, sweep } => {
            let result = pass(ws, ingest, sweep, updates).map(|parts| match parts.is_empty() {
                true if personal => "no changes".to_string(),
                // A background pass that found nothing keeps the last message on screen.
                true => String::new(),
                false => parts.join("; "),
            });
            (result, None, Vec::new())
        }
        Work::ScanEdits => {
            // Nothing new (a file touched, not changed) says nothing.
            let result = lifecycle::scan_edits_by_kind(ws).map(|scan| scanned(&scan).join("; "));
            (result, None, Vec::new())
        }
        Work::Edited { file, skill } => {
            let shown = safe::inline(&file.to_string_lossy()).into_owned();
            let result = match skill {
                true => lifecycle::scan_edits_by_kind(ws).map(|scan| {
                    let found = scanned(&scan);
                    match (found.is_empty(), parked(ws, &file)) {
                        // A parked skill's file is read when it comes back, not now.
                        (true, Some((name, status))) => format!(
                            "back from the editor: {name} is {status}; the edit becomes its next \
                             version when it is restored (R)"
                        ),
                        (true, None) => format!("back from the editor: {shown} unchanged"),
                        (false, _) => format!("back from the editor: {}", found.join("; ")),
                    }
                }),
                false => Ok(format!("back from the editor: the draft {shown} as saved is shown")),
            };
            (result, None, Vec::new())
        }
    };
    JobDone { result, done, back, wrote }
}

/// The skill (name, status) whose SKILL.md is `file`, when it is not live (archived, retired).
fn parked(ws: &Workspace, file: &std::path::Path) -> Option<(String, catalog::SkillStatus)> {
    let folder = file.parent()?;
    let all = skills::all(ws.store.conn()).ok()?;
    all.into_iter()
        .find(|s| !s.status.is_live() && std::path::Path::new(&s.path) == folder)
        .map(|s| (s.header.name, s.header.status))
}

/// The live folders an op touches, as the catalog has them (called before and after the op,
/// so a folder moved in or out is covered at both ends). A candidate's folder is the one of
/// the skill it was promoted to or proposes a version of; a new one is named as the candidate.
fn folders(ws: &Workspace, op: &Op) -> Vec<PathBuf> {
    let conn = ws.store.conn();
    let mut out = Vec::new();
    match op {
        Op::Promote(t) | Op::Dismiss(t) | Op::Approve(t) | Op::Reject(t) | Op::Reopen(t) => {
            let Ok(c) = draft::get_candidate(conn, t.id.0) else { return out };
            out.push(ws.live_dir(&c.agent_id).join(&c.name));
            if let Ok(Some((_, path))) = skills::promoted_from(conn, t.id.0, &c.agent_id) {
                out.push(PathBuf::from(path));
            }
            if let Some(skill) = c.target_skill_id.and_then(|id| skills::by_id(conn, id).ok()) {
                out.push(PathBuf::from(skill.header.path));
            }
        }
        Op::Lesson(..) => out.push(ws.paths.skills_dir.join(&ws.config.lessons.playbook_name)),
        Op::SetProtected(t, _)
        | Op::Archive(t)
        | Op::Restore(t)
        | Op::ApproveEdit(t)
        | Op::Rollback(t, _) => {
            if let Ok(Some(skill)) = skills::find(conn, &t.agent, &t.name) {
                out.push(PathBuf::from(skill.header.path));
            }
        }
    }
    out
}

fn apply(ws: &mut Workspace, op: &Op) -> Result<String> {
    Ok(match op {
        Op::Promote(t) => {
            if let Some(seen) = &t.seen {
                draft::ensure_seen(ws, t.id.0, seen)?;
            }
            let p = draft::promote(ws, t.id.0)?;
            let loaded = ws.where_loaded(&p.agent_id);
            format!("promoted {} to {}, {loaded} (u undoes)", p.name, p.path.display())
        }
        Op::Dismiss(t) => {
            draft::dismiss(ws, t.id.0)?;
            format!("dismissed {} (u undoes)", t.name)
        }
        Op::Approve(t) => {
            if let Some(seen) = &t.seen {
                draft::ensure_seen(ws, t.id.0, seen)?;
            }
            draft::approve(ws, t.id.0)?;
            let target = draft::get_candidate(ws.store.conn(), t.id.0)?.target_skill_id;
            let version = match target {
                Some(id) => skills::by_id(ws.store.conn(), id)?.version,
                None => 0,
            };
            format!("approved {} version {version} (u undoes)", t.name)
        }
        Op::Reject(t) => {
            draft::reject(ws, t.id.0)?;
            format!("rejected the proposed version of {}", t.name)
        }
        Op::SetProtected(t, on) => {
            let now = lifecycle::set_protected(ws, &t.agent, &t.name, *on)?;
            lifecycle::pin_said(&t.name, *on, now)
        }
        Op::Archive(t) => {
            lifecycle::archive(ws, &t.agent, &t.name)?;
            format!("archived {} (u undoes)", t.name)
        }
        Op::ApproveEdit(t) => {
            draft::approve_current(ws, &t.agent, &t.name, t.seen.as_deref())?;
            format!("approved the edited {} as it is on disk", t.name)
        }
        Op::Rollback(t, version) => {
            let new = lifecycle::rollback(ws, &t.agent, &t.name, *version)?;
            format!("rolled {} back to v{version} (now v{new})", t.name)
        }
        Op::Restore(t) => {
            lifecycle::restore(ws, &t.agent, &t.name)?;
            format!("restored {} to the live folder as healthy", t.name)
        }
        Op::Reopen(t) => {
            draft::undo_dismiss(ws, t.id.0)?;
            format!("reopened {}: back in the review queue (u undoes)", t.name)
        }
        Op::Lesson(t, status) => {
            let l = lessons::set_status(ws, t.id.0, *status)?;
            // The playbook folder it (re)wrote is a skill the Skills pane shows now, not after
            // the next pass.
            lifecycle::scan_edits_by_kind(ws)?;
            match l.status.is_live() {
                true => format!("{} is {}: in the playbook", t.name, l.status),
                false => format!("{} is {}: not in the playbook", t.name, l.status),
            }
        }
    })
}

fn undo(ws: &mut Workspace, op: &Op, before: &OpState) -> Result<String> {
    match op {
        Op::Lesson(t, _) => {
            let OpState::Lesson(Some(was)) = *before else {
                anyhow::bail!("{} was {before} before; nothing to put back", t.name);
            };
            lessons::set_status(ws, t.id.0, was)?;
            lifecycle::scan_edits_by_kind(ws)?;
            return Ok(format!("undid the decision on {}: {was} again", t.name));
        }
        Op::Promote(t) => draft::undo_promote(ws, t.id.0)?,
        Op::Dismiss(t) => draft::undo_dismiss(ws, t.id.0)?,
        Op::Approve(t) => draft::undo_approve(ws, t.id.0)?,
        Op::Archive(t) => lifecycle::restore(ws, &t.agent, &t.name)?,
        Op::Reject(t) => draft::undo_dismiss(ws, t.id.0)?,
        Op::Reopen(t) => draft::dismiss(ws, t.id.0)?,
        Op::SetProtected(t, on) => {
            lifecycle::set_protected(ws, &t.agent, &t.name, !on)?;
        }
        other => anyhow::bail!("{} cannot be undone", verb(other)),
    }
    Ok(format!("undid {} of {}", verb(op), op.name()))
}

/// The pass the engine runs: a timed pass reads, detects, judges and syncs with the team; a file
/// event reads and detects; a sweep alone does upkeep (evolution included) and judging.
pub fn plan(ingest: bool, sweep: bool) -> pipeline::Pass {
    match (ingest, sweep) {
        // The team sync runs beside the engine's jobs, on its own connection (`start_team`).
        (true, true) => pipeline::Pass { team: false, ..pipeline::Pass::full() },
        (true, false) => pipeline::Pass::ingest(pipeline::Read::default()),
        (false, _) => pipeline::Pass { judge: true, ..Default::default() },
    }
}

/// What a pass found, in words; empty when it found nothing.
fn pass(
    ws: &mut Workspace,
    ingest: bool,
    sweep: bool,
    updates: &UnboundedSender<Update>,
) -> Result<Vec<String>> {
    let mut report = |p: &Progress| {
        let _ = updates.send(Update::Progress(*p));
    };
    let mut parts = Vec::new();
    let r = pipeline::run(ws, &plan(ingest, sweep), &mut report).context("pass")?;
    parts.extend(r.ingest.as_ref().and_then(ingested));
    parts.extend(r.after.as_ref().and_then(detected));
    if let Some(sweep) = &r.sweep {
        parts.extend(swept(sweep, !ingest));
    }
    parts.extend(r.team);
    let adopted = r.adopted;
    if adopted > 0 {
        parts.push(format!("adopted {}", count(adopted as u64, "new skill folder")));
    }
    Ok(parts)
}

fn ingested(r: &IngestReport) -> Option<String> {
    if r.files_read == 0 && r.turns == 0 {
        return None;
    }
    let mut text = format!("read {}, {}", count(r.files_read, "file"), count(r.turns, "new turn"));
    let skipped = r.bad_lines + r.unknown_lines;
    if skipped > 0 {
        text.push_str(&format!(" ({} skipped)", count(skipped, "line")));
    }
    Some(text)
}

fn detected(a: &AfterIngest) -> Option<String> {
    let mut parts = Vec::new();
    if a.detect.detected.candidates_created > 0 {
        parts.push(count(a.detect.detected.candidates_created, "new candidate"));
    }
    if a.proposed_versions > 0 {
        parts.push(count(a.proposed_versions as u64, "proposed version"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// What the status line says of a sweep: state changes (the first few by name), proposed
/// versions, edits. `always`: the person asked, so say how many were judged even when nothing
/// changed.
fn swept(r: &SweepReport, always: bool) -> Option<String> {
    let mut parts = Vec::new();
    if !r.changes.is_empty() {
        let named: Vec<String> =
            r.changes.iter().take(3).map(|c| format!("{} {}→{}", c.name, c.from, c.to)).collect();
        parts.push(format!(
            "{} ({}{})",
            count(r.changes.len() as u64, "state change"),
            named.join(", "),
            if r.changes.len() > 3 { ", …" } else { "" }
        ));
    }
    if r.proposed_versions > 0 {
        parts.push(count(r.proposed_versions as u64, "proposed version"));
    }
    if r.proposed_merges > 0 {
        parts.push(count(r.proposed_merges as u64, "proposed merge"));
    }
    if r.edits_recorded > 0 {
        parts.push(format!("{} recorded", count(r.edits_recorded as u64, "edit")));
    }
    if parts.is_empty() && !always {
        return None;
    }
    let judged = format!("sweep judged {}", count(r.skills_judged as u64, "skill"));
    Some(match parts.is_empty() {
        true => format!("{judged}: no changes"),
        false => format!("{judged}: {}", parts.join(", ")),
    })
}

/// What a look at the live skills folder found: edited skills and newly adopted folders.
fn scanned(scan: &lifecycle::EditScan) -> Vec<String> {
    let mut parts = Vec::new();
    if scan.edited > 0 {
        parts.push(format!(
            "{} recorded as new versions",
            count(scan.edited as u64, "edited skill")
        ));
    }
    if scan.adopted > 0 {
        parts.push(format!("adopted {}", count(scan.adopted as u64, "new skill folder")));
    }
    let names = |v: &[String]| v.join(", ");
    if !scan.missing.gone.is_empty() {
        parts.push(format!(
            "SKILL.md gone: {} now missing (R restores the last version)",
            names(&scan.missing.gone)
        ));
    }
    if !scan.missing.back.is_empty() {
        parts.push(format!("SKILL.md back: {}", names(&scan.missing.back)));
    }
    parts
}
