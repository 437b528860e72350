//! The Team pane's rows: open candidates, then team skills (its keys are in [`super::update`]).

use crate::engine::snapshot::Snapshot;
use crate::team::TeamView;
use crate::team::shared::{TeamCandidate, TeamSkill};

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
