//! Everything a person can do in the console. Keys map to these through the key map
//! (`keys.rs`, which a `[keys]` table in the config file can change); the help overlay describes
//! them with [`Action::describe`], and the ones that change something name their command-line
//! twin in [`Action::cli_twin`]. Both are `match`es without a catch-all, so a new action cannot
//! be added without deciding what it says and whether it has a twin.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    /// Diff and detail views: scroll sideways.
    ScrollLeft,
    ScrollRight,
    /// Diff views: jump to the next / previous changed block.
    NextHunk,
    PrevHunk,
    NextPane,
    PrevPane,
    GoQueue,
    GoSkills,
    GoTimeline,
    GoDiff,
    GoLessons,
    GoTeam,
    GoProcedures,
    /// Open the selection's detail (queue: full SKILL.md; skills: the skill's package, identity,
    /// traces and versions; timeline: diff).
    Enter,
    /// Close the overlay, the filter or the detail.
    Back,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    /// Skills: show only one state (all → healthy → warning → … → all).
    CycleStateFilter,
    /// Skills: order by name, state, rate, uses, last used, effect.
    CycleSort,
    /// Diff pane: compare the version under the cursor against this one.
    MarkBase,
    Promote,
    Dismiss,
    Approve,
    Reject,
    ToggleProtected,
    Archive,
    Restore,
    Undo,
    Sweep,
    Ingest,
    /// Copy the selected draft's or skill's path to the clipboard.
    CopyPath,
    /// Open the selected draft (queue) or SKILL.md (skills) in `$VISUAL` / `$EDITOR`.
    Edit,
    /// Show or hide the history of dismissed and rejected candidates.
    History,
    /// History: put the selected dismissed or rejected candidate back in the queue.
    Reopen,
    /// Diff pane: roll the skill back to the version under the cursor (asks y/n).
    Rollback,
    Confirm,
    Cancel,
    Help,
    Quit,
}

impl Action {
    /// What the action does, in the help overlay's words.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Up => "move up",
            Action::Down => "move down",
            Action::Top => "first row",
            Action::Bottom => "last row",
            Action::PageUp => "page / scroll up",
            Action::PageDown => "page / scroll down",
            Action::ScrollLeft => "scroll left",
            Action::ScrollRight => "scroll right",
            Action::NextHunk => "diff: next change",
            Action::PrevHunk => "diff: previous change",
            Action::NextPane => "next pane",
            Action::PrevPane => "previous pane",
            Action::GoQueue => "queue pane",
            Action::GoSkills => "skills pane",
            Action::GoTimeline => "timeline pane",
            Action::GoDiff => "diff pane",
            Action::GoLessons => "lessons pane",
            Action::GoTeam => "team pane",
            Action::GoProcedures => "procedures pane",
            Action::Enter => "open detail / keep filter",
            Action::Back => "back / close / clear filter",
            Action::StartFilter => "filter by name (fuzzy)",
            Action::FilterChar(_) => "type into the filter",
            Action::FilterBackspace => "erase from the filter",
            Action::CycleStateFilter => "skills: only one state",
            Action::CycleSort => "sort skills (state, rate…)",
            Action::MarkBase => "diff: set base version",
            Action::Promote => "promote candidate",
            Action::Dismiss => "dismiss candidate",
            Action::Approve => "approve proposal (asks y/n)",
            Action::Reject => "reject proposal (asks y/n)",
            Action::ToggleProtected => "pin / unpin (protected)",
            Action::Archive => "archive skill",
            Action::Restore => "restore skill",
            Action::Undo => "undo last change (y/n)",
            Action::Sweep => "sweep now",
            Action::Ingest => "ingest + detect now",
            Action::CopyPath => "copy path (clipboard)",
            Action::Edit => "edit in $VISUAL / $EDITOR",
            Action::History => "dismissed / rejected history",
            Action::Reopen => "history: reopen candidate",
            Action::Rollback => "diff: roll back to it (y/n)",
            Action::Confirm => "confirm (y)",
            Action::Cancel => "cancel",
            Action::Help => "this help",
            Action::Quit => "quit",
        }
    }

    /// The command-line twin of a change (`skilldeck …`), for the help overlay and scripts;
    /// `None` for actions that only move around or change what is shown.
    /// `a|b` are alternatives; `ID` is a candidate id, `NAME` a skill name, `VERSION` a
    /// version number.
    pub fn cli_twin(self) -> Option<&'static str> {
        match self {
            Action::Promote => Some("promote ID"),
            Action::Dismiss => Some("dismiss ID"),
            Action::Approve => Some("approve ID"),
            Action::Reject => Some("reject ID"),
            Action::ToggleProtected => Some("pin|unpin NAME"),
            Action::Archive => Some("archive NAME"),
            Action::Restore => Some("restore NAME"),
            // Undoing an archive is `restore NAME`.
            Action::Undo => Some("undo-promote|undo-dismiss|undo-approve ID"),
            Action::Sweep => Some("sweep"),
            // `ingest` runs detection and evolution too.
            Action::Ingest => Some("ingest"),
            // A candidate's draft by id, a skill's SKILL.md by name.
            Action::Edit => Some("edit ID|NAME"),
            Action::Reopen => Some("undo-dismiss ID"),
            Action::Rollback => Some("rollback NAME VERSION"),
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::PageUp
            | Action::PageDown
            | Action::ScrollLeft
            | Action::ScrollRight
            | Action::NextHunk
            | Action::PrevHunk
            | Action::NextPane
            | Action::PrevPane
            | Action::GoQueue
            | Action::GoSkills
            | Action::GoTimeline
            | Action::GoDiff
            | Action::GoLessons
            | Action::GoTeam
            | Action::GoProcedures
            | Action::Enter
            | Action::Back
            | Action::StartFilter
            | Action::FilterChar(_)
            | Action::FilterBackspace
            | Action::CycleStateFilter
            | Action::CycleSort
            | Action::MarkBase
            | Action::CopyPath
            | Action::History
            | Action::Confirm
            | Action::Cancel
            | Action::Help
            | Action::Quit => None,
        }
    }

    /// Every command line `cli_twin` stands for, with `ID` (and `VERSION`) and `NAME` filled in.
    pub fn cli_twin_commands(self, id: i64, name: &str) -> Vec<Vec<String>> {
        let Some(twin) = self.cli_twin() else { return Vec::new() };
        let mut words = twin.split(' ');
        let verbs = words.next().unwrap_or_default();
        let args: Vec<String> = words
            .map(|w| match w {
                "ID" | "VERSION" => id.to_string(),
                "NAME" => name.to_owned(),
                other => other.to_owned(),
            })
            .collect();
        verbs
            .split('|')
            .map(|verb| std::iter::once(verb.to_owned()).chain(args.iter().cloned()).collect())
            .collect()
    }
}
