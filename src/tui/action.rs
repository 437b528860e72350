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
            Action::Promote => "skilldeck promote ID",
            Action::Dismiss => "skilldeck dismiss ID",
            Action::Approve => "skilldeck approve ID",
            Action::Reject => "skilldeck reject ID",
            Action::ToggleProtected => "skilldeck protect|unprotect SKILL",
            Action::Archive => "skilldeck archive SKILL",
            Action::Restore => "skilldeck restore SKILL",
            Action::Undo => "skilldeck undo-promote|undo-dismiss ID",
            Action::Sweep => "skilldeck sweep",
            Action::Ingest => "skilldeck ingest && skilldeck detect",
            _ => return None,
        })
    }
}
