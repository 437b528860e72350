//! The engine's writing jobs: the person's ops, their undo, and the ingest/detect/sweep pass.
//! Each runs on tokio's blocking pool with the workspace moved in, and calls the domain
//! functions the command line calls (`draft`, `lifecycle`, `ingest`, `pipeline`).

use anyhow::{Context, Result};
use tokio::sync::mpsc::UnboundedSender;

use super::{Op, Progress, Target, Update};
use crate::ingest::IngestReport;
use crate::lifecycle::SweepReport;
use crate::pipeline::{self, AfterIngest};
use crate::workspace::Workspace;
use crate::{draft, ingest, lifecycle};

/// A unit of writing work.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Job {
    Op(Op),
    Undo(Op),
    Pass {
        ingest: bool,
        sweep: bool,
    },
    /// The live skills folder changed: record edited SKILL.md files as versions.
    ScanEdits,
}

pub(super) fn describe(job: &Job) -> String {
    match job {
        Job::Op(op) => format!("{} {}…", verb(op), target(op).name),
        Job::Undo(op) => format!("undoing {} {}…", verb(op), target(op).name),
        Job::Pass { ingest: true, sweep: true } => "ingest, detect, sweep…".into(),
        Job::Pass { ingest: true, .. } => "ingest, detect…".into(),
        Job::Pass { .. } => "sweep…".into(),
        Job::ScanEdits => "reading edited skills…".into(),
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
    }
}

fn target(op: &Op) -> &Target {
    match op {
        Op::Promote(t)
        | Op::Dismiss(t)
        | Op::Approve(t)
        | Op::Reject(t)
        | Op::SetProtected(t, _)
        | Op::Archive(t)
        | Op::Restore(t) => t,
    }
}

/// Runs one job; returns its message and, for undoable ops, the op to remember.
pub(super) fn run_job(
    ws: &mut Workspace,
    job: Job,
    updates: &UnboundedSender<Update>,
) -> (Result<String>, Option<Op>) {
    match job {
        Job::Op(op) => {
            let result = apply(ws, &op);
            let undoable = matches!(op, Op::Promote(_) | Op::Dismiss(_) | Op::Archive(_));
            let keep = (result.is_ok() && undoable).then_some(op);
            (result, keep)
        }
        Job::Undo(op) => (undo(ws, &op), None),
        Job::Pass { ingest, sweep } => (pass(ws, ingest, sweep, updates), None),
        Job::ScanEdits => {
            // Nothing new (a file touched, not changed) says nothing.
            let result = lifecycle::scan_edits(ws).map(|n| match n {
                0 => String::new(),
                n => format!("{n} edited skills recorded as versions"),
            });
            (result, None)
        }
    }
}

fn apply(ws: &mut Workspace, op: &Op) -> Result<String> {
    Ok(match op {
        Op::Promote(t) => {
            let p = draft::promote(ws, t.id)?;
            format!("promoted {} to {} (u undoes)", p.name, p.path.display())
        }
        Op::Dismiss(t) => {
            draft::dismiss(ws, t.id)?;
            format!("dismissed {} (u undoes)", t.name)
        }
        Op::Approve(t) => {
            draft::approve(ws, t.id)?;
            let target = draft::get_candidate(ws.store.conn(), t.id)?.target_skill_id;
            let version = match target {
                Some(id) => crate::catalog::skills::by_id(ws.store.conn(), id)?.version,
                None => 0,
            };
            format!("approved {} version {version}", t.name)
        }
        Op::Reject(t) => {
            draft::reject(ws, t.id)?;
            format!("rejected the proposed version of {}", t.name)
        }
        Op::SetProtected(t, on) => {
            lifecycle::set_protected(ws, &t.agent, &t.name, *on)?;
            if *on {
                format!("pinned {} (protected)", t.name)
            } else {
                format!("unpinned {}", t.name)
            }
        }
        Op::Archive(t) => {
            lifecycle::archive(ws, &t.agent, &t.name)?;
            format!("archived {} (u undoes)", t.name)
        }
        Op::Restore(t) => {
            lifecycle::restore(ws, &t.agent, &t.name)?;
            format!("restored {} to the live folder as healthy", t.name)
        }
    })
}

fn undo(ws: &mut Workspace, op: &Op) -> Result<String> {
    match op {
        Op::Promote(t) => draft::undo_promote(ws, t.id)?,
        Op::Dismiss(t) => draft::undo_dismiss(ws, t.id)?,
        Op::Archive(t) => lifecycle::restore(ws, &t.agent, &t.name)?,
        other => anyhow::bail!("{} cannot be undone", verb(other)),
    }
    Ok(format!("undid {} of {}", verb(op), target(op).name))
}

fn pass(
    ws: &mut Workspace,
    ingest: bool,
    sweep: bool,
    updates: &UnboundedSender<Update>,
) -> Result<String> {
    let mut report = |p: &Progress| {
        let _ = updates.send(Update::Progress(*p));
    };
    Ok(match (ingest, sweep) {
        (true, true) => {
            let r = pipeline::run_pass(ws, &[], &mut report).context("ingest, detect, sweep")?;
            format!("{}; {}; {}", ingested(&r.ingest), detected(&r.after), swept(&r.sweep))
        }
        (true, false) => {
            let read = ingest::run(ws, &[], &mut report).context("ingest")?;
            let after = pipeline::after_ingest(ws).context("detect")?;
            format!("{}; {}", ingested(&read), detected(&after))
        }
        (false, _) => swept(&pipeline::sweep(ws, false).context("sweep")?),
    })
}

fn ingested(r: &IngestReport) -> String {
    let mut text = format!("{}/{} files read, {} new turns", r.files_read, r.files, r.turns);
    let skipped = r.bad_lines + r.unknown_lines;
    if skipped > 0 {
        text.push_str(&format!(", {skipped} lines skipped"));
    }
    text
}

fn detected(a: &AfterIngest) -> String {
    let mut text = format!("{} new candidates", a.detect.candidates_created);
    if a.proposed_versions > 0 {
        text.push_str(&format!(", {} proposed versions", a.proposed_versions));
    }
    text
}

/// What the status line says of a sweep: skills judged, state changes (the first few by name),
/// proposed versions.
fn swept(r: &SweepReport) -> String {
    let mut text = format!("sweep judged {} skills, {} changed", r.skills_judged, r.changes.len());
    let named: Vec<String> =
        r.changes.iter().take(3).map(|c| format!("{} {}→{}", c.name, c.from, c.to)).collect();
    if !named.is_empty() {
        text.push_str(&format!(
            " ({}{})",
            named.join(", "),
            if r.changes.len() > 3 { ", …" } else { "" }
        ));
    }
    if r.proposed_versions > 0 {
        text.push_str(&format!(", {} proposed versions", r.proposed_versions));
    }
    if r.edits_recorded > 0 {
        text.push_str(&format!(", {} edits recorded as versions", r.edits_recorded));
    }
    text
}
