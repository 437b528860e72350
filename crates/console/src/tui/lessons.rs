//! What the Lessons pane shows of a lesson, in words (its keys are in [`super::update`]).

use crate::engine::snapshot::Snapshot;
use crate::lessons::{Evidence, Lesson, LessonStatus};

/// Lessons waiting for a person's decision (the tab's count).
pub fn to_review(snap: &Snapshot) -> usize {
    snap.lessons.iter().filter(|l| l.status == LessonStatus::Proposed).count()
}

/// What a live lesson's measures show, in words: a count never taken reads "no data", not 0.
/// The Lessons pane and `skilldeck lessons` print the same line.
pub fn measured(l: &Lesson) -> String {
    let of = |hits: i64, turns: i64| match turns {
        0 => "no data".to_string(),
        _ => format!("{hits} of {turns} turns"),
    };
    let helped = match l.retrievals {
        0 => "helped: no data yet (no later turn ran into it)".to_string(),
        n => format!("helped {} of {n} later turns ({:.0}%)", l.helpful, l.hit_rate * 100.0),
    };
    format!(
        "{helped} · anti-pattern before approval: {}, after: {}",
        of(l.before_hits, l.before_turns),
        of(l.after_hits, l.after_turns)
    )
}

/// The steps that fixed a failure, as commands (`mix format`); empty for a correction.
pub fn fix_steps(e: &Evidence) -> String {
    let fix: Vec<&str> = e.fix.iter().map(|k| k.strip_prefix("sh:").unwrap_or(k)).collect();
    fix.join(", ")
}

/// What the agent did next, said plainly when it ran the same command again.
pub fn then_text(e: &Evidence) -> Option<String> {
    let next = e.followed_by.as_deref()?;
    Some(match next == e.action {
        true => "ran the same command again, and it passed".to_string(),
        false => next.to_string(),
    })
}
