//! What the Procedures pane shows of a procedure, in words, and what its keys do there.

use super::action::Action;
use super::state::UiState;
use crate::catalog::SkillStatus;
use crate::engine::Command;
use crate::engine::snapshot::{Rules, Snapshot};
use crate::procedures::Procedure;
use crate::text::safe;

/// A procedure's health as a skill's would read at the same rates (`[lifecycle] warning_rate`
/// and `deprecated_rate`, over every run it has): `None` until it has run as often as a skill
/// must be used before its rate is judged (`min_invocations`).
pub fn health(p: &Procedure, rules: &Rules) -> Option<SkillStatus> {
    if p.runs == 0 || p.runs < rules.min_invocations {
        return None;
    }
    let rate = p.succeeded as f64 / p.runs as f64;
    Some(if rate <= rules.deprecated_rate {
        SkillStatus::Deprecated
    } else if rate <= rules.warning_rate {
        SkillStatus::Warning
    } else {
        SkillStatus::Healthy
    })
}

/// The state word of the row: the skill state its runs would give, or `few runs`.
pub fn state_word(p: &Procedure, rules: &Rules) -> &'static str {
    health(p, rules).map_or("few runs", SkillStatus::as_str)
}

/// Runs that ended well out of all: `12/14 ok`.
pub fn ok_text(p: &Procedure) -> String {
    format!("{}/{} ok", p.succeeded, p.runs)
}

/// The day of the last run (`2026-03-02`), or `-` when the history has no time for it.
pub fn last_day(p: &Procedure) -> String {
    last_run(p).chars().take(10).collect()
}

/// The minute of the last run (`2026-03-02 14:00`), or `-`.
pub fn last_run(p: &Procedure) -> String {
    let Some(at) = p.last_run.as_deref() else { return "-".to_string() };
    safe::inline(&at.chars().take(16).collect::<String>()).replacen('T', " ", 1)
}

/// Why the health reads as it does, in the detail's words.
pub fn health_reason(p: &Procedure, rules: &Rules) -> String {
    let pct = |r: f64| format!("{:.0}%", r * 100.0);
    let share = match p.runs {
        0 => "no runs yet".to_string(),
        n => format!(
            "{} of {n} runs ended well ({})",
            p.succeeded,
            pct(p.succeeded as f64 / n as f64)
        ),
    };
    match health(p, rules) {
        None => format!("{share}; judged from {} runs on, like a skill", rules.min_invocations),
        Some(SkillStatus::Deprecated) => format!("{share} ≤ {}", pct(rules.deprecated_rate)),
        Some(SkillStatus::Warning) => format!("{share} ≤ {}", pct(rules.warning_rate)),
        Some(_) => share,
    }
}

/// The keys the Procedures pane answers itself, so that none reaches a skill behind it.
pub fn read_only(action: Action) -> bool {
    use Action::*;
    matches!(action, Approve | Reject | ToggleProtected | Archive | Restore | Edit | CopyPath)
}

/// Keys that change a skill or a draft do not reach one from the Procedures pane (its rows are
/// the person's own procedures): `y` copies where the selected one is defined, the others say
/// where they act.
pub fn on_key(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let said = match (action, ui.procedure(snap)) {
        (_, None) => "no procedure selected",
        (Action::CopyPath, Some(p)) => match &p.defined_at {
            Some(at) => {
                ui.clipboard = Some(at.clone());
                return None;
            }
            None => "nothing to copy: the history does not show where this procedure is defined",
        },
        (Action::Edit, Some(_)) => {
            "a procedure is edited where it is defined (y copies the place), not here"
        }
        _ => "procedures are only read here: approve, pin, archive and restore act on skills (2)",
    };
    ui.engine.result(said.to_owned(), false);
    None
}
