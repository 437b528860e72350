//! The engine's writing jobs: the person's ops, their undo, and the ingest/detect/sweep pass.
//! Each runs on tokio's blocking pool with the workspace moved in.

use anyhow::{Context, Result};
use tokio::sync::mpsc::UnboundedSender;

use super::{Op, Progress, Target, Update, ops};
use crate::workspace::Workspace;

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
            let result =
                ops::scan_edits(ws).map(|n| format!("{n} edited skills recorded as versions"));
            (result, None)
        }
    }
}

fn apply(ws: &mut Workspace, op: &Op) -> Result<String> {
    Ok(match op {
        Op::Promote(t) => {
            let p = ops::promote(ws, t.id)?;
            format!("promoted {} to {} (u undoes)", p.name, p.path.display())
        }
        Op::Dismiss(t) => {
            ops::dismiss(ws, t.id)?;
            format!("dismissed {} (u undoes)", t.name)
        }
        Op::Approve(t) => {
            let v = ops::approve(ws, t.id)?;
            format!("approved {} version {v}", t.name)
        }
        Op::Reject(t) => {
            ops::reject(ws, t.id)?;
            format!("rejected the proposed version of {}", t.name)
        }
        Op::SetProtected(t, on) => {
            ops::set_protected(ws, &t.agent, &t.name, *on)?;
            if *on {
                format!("pinned {} (protected)", t.name)
            } else {
                format!("unpinned {}", t.name)
            }
        }
        Op::Archive(t) => {
            ops::archive(ws, &t.agent, &t.name)?;
            format!("archived {} (u undoes)", t.name)
        }
        Op::Restore(t) => {
            ops::restore(ws, &t.agent, &t.name)?;
            format!("restored {}", t.name)
        }
    })
}

fn undo(ws: &mut Workspace, op: &Op) -> Result<String> {
    match op {
        Op::Promote(t) => ops::undo_promote(ws, t.id)?,
        Op::Dismiss(t) => ops::undo_dismiss(ws, t.id)?,
        Op::Archive(t) => ops::restore(ws, &t.agent, &t.name)?,
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
    let mut parts = Vec::new();
    if ingest {
        let mut report = |p: &Progress| {
            let _ = updates.send(Update::Progress(*p));
        };
        parts.push(ops::ingest(ws, &mut report).context("ingest")?);
        parts.push(ops::detect(ws).context("detect")?);
    }
    if sweep {
        let edited = ops::scan_edits(ws).context("scanning skill edits")?;
        if edited > 0 {
            parts.push(format!("{edited} edited skills recorded as versions"));
        }
        let changed = ops::sweep(ws).context("sweep")?;
        parts.push(format!("sweep changed {changed} skills"));
    }
    Ok(parts.join("; "))
}
