//! The Team pane's rows and keys: `p` promotes the selected candidate (as the text shown), `d`
//! dismisses it, `P` pins or unpins the selected team skill. Each is a team decision the engine
//! runs beside its jobs; its twins are `skilldeck team promote|dismiss|pin|unpin`.

use super::action::Action;
use super::state::UiState;
use crate::engine::Command;
use crate::engine::snapshot::Snapshot;
use crate::team::shared::{TeamCandidate, TeamSkill};
use crate::team::{TeamOp, TeamView};

/// A row of the Team pane: open candidates first, then the team's skills.
pub enum Row<'a> {
    Candidate(&'a TeamCandidate),
    Skill(&'a TeamSkill),
}

pub fn rows(view: &TeamView) -> Vec<Row<'_>> {
    view.candidates.iter().map(Row::Candidate).chain(view.skills.iter().map(Row::Skill)).collect()
}

/// Open candidates (the tab's count).
pub fn open(snap: &Snapshot) -> usize {
    snap.team.as_ref().map_or(0, |v| v.candidates.len())
}

pub fn op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let Some(view) = snap.team.as_deref() else {
        ui.engine.result("no team state yet".into(), false);
        return None;
    };
    let op = match (rows(view).get(ui.team_sel), action) {
        (Some(Row::Candidate(c)), Action::Promote) => match &c.problem {
            Some(why) => {
                ui.engine.result(format!("{} cannot be promoted: {why}", c.name), false);
                return None;
            }
            None => TeamOp::Promote {
                id: c.id,
                seen: crate::text::hex::sha256_hex(c.skill_md.as_bytes()),
            },
        },
        (Some(Row::Candidate(c)), Action::Dismiss) => TeamOp::Dismiss { id: c.id },
        (Some(Row::Skill(s)), Action::ToggleProtected) => {
            TeamOp::Pin { name: s.name.clone(), on: !s.decided_pin.unwrap_or(false) }
        }
        (Some(_), _) => {
            ui.engine.result(
                "on a team candidate: p promote, d dismiss; on a team skill: P pin/unpin".into(),
                false,
            );
            return None;
        }
        (None, _) => {
            ui.engine.result("nothing selected in the team scope".into(), false);
            return None;
        }
    };
    ui.engine.result(format!("{}: sent to the team server…", describe(&op)), false);
    Some(Command::Team(op))
}

fn describe(op: &TeamOp) -> String {
    match op {
        TeamOp::Promote { id, .. } => format!("promoting team candidate #{id}"),
        TeamOp::Dismiss { id } => format!("dismissing team candidate #{id}"),
        TeamOp::Pin { name, on } => format!("{} {name}", if *on { "pinning" } else { "unpinning" }),
    }
}
