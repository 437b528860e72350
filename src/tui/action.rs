//! Everything a person can do in the console. Keys map to these (see `keys.rs`); `Deserialize`
//! so a keymap could live in the config file.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    NextPane,
    PrevPane,
    GoQueue,
    GoSkills,
    GoTimeline,
    GoDiff,
    /// Open the selection's detail (queue: full SKILL.md; skills: timeline; timeline: diff).
    Enter,
    /// Close the overlay, the filter or the detail.
    Back,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
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
    Confirm,
    Cancel,
    Help,
    Quit,
}

impl Action {
    /// The command-line twin of a change, for the help overlay and scripts.
    pub fn cli_twin(self) -> Option<&'static str> {
        Some(match self {
            Action::Promote => "promote ID",
            Action::Dismiss => "dismiss ID",
            Action::Approve => "approve ID",
            Action::Reject => "reject ID",
            Action::ToggleProtected => "protect|unprotect SKILL",
            Action::Archive => "archive SKILL",
            Action::Restore => "restore SKILL",
            Action::Undo => "undo-promote|undo-dismiss ID",
            Action::Sweep => "sweep",
            Action::Ingest => "ingest; detect",
            _ => return None,
        })
    }
}
