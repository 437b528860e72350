//! The Lessons pane's keys: `a` approve, `P` pin (again: back to approved), `d` dismiss,
//! `O` back to proposed. Each becomes an engine op, whose twin is `skilldeck lessons …`.

use super::action::Action;
use super::state::UiState;
use crate::engine::snapshot::Snapshot;
use crate::engine::{Command, Op, Target};
use crate::lessons::LessonStatus;

/// Lessons waiting for a person's decision (the tab's count).
pub fn to_review(snap: &Snapshot) -> usize {
    snap.lessons.iter().filter(|l| l.status == LessonStatus::Proposed).count()
}

pub fn op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let Some(l) = ui.lesson(snap) else {
        ui.engine.result("no lesson selected".into(), false);
        return None;
    };
    let status = match action {
        Action::Approve => LessonStatus::Approved,
        Action::ToggleProtected if l.status == LessonStatus::Pinned => LessonStatus::Approved,
        Action::ToggleProtected => LessonStatus::Pinned,
        Action::Dismiss => LessonStatus::Dismissed,
        _ => LessonStatus::Proposed,
    };
    if status == l.status {
        ui.engine.result(format!("lesson #{} is already {status}", l.id), false);
        return None;
    }
    let target = Target { id: l.id, name: format!("lesson #{}", l.id), ..Target::default() };
    Some(Command::Op(Op::Lesson(target, status)))
}
