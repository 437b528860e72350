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
    /// Open the selection's detail (queue: full SKILL.md; skills: the skill's package, identity,
    /// traces and versions; timeline: diff).
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
    /// The command-line twin of a change (`skilldeck …`), for the help overlay and scripts.
    /// `a|b` are alternatives; `ID` is a candidate id, `NAME` a skill name.
    pub fn cli_twin(self) -> Option<&'static str> {
        Some(match self {
            Action::Promote => "promote ID",
            Action::Dismiss => "dismiss ID",
            Action::Approve => "approve ID",
            Action::Reject => "reject ID",
            Action::ToggleProtected => "pin|unpin NAME",
            Action::Archive => "archive NAME",
            Action::Restore => "restore NAME",
            // Undoing an archive is `restore NAME`.
            Action::Undo => "undo-promote|undo-dismiss ID",
            Action::Sweep => "sweep",
            // `ingest` runs detection and evolution too.
            Action::Ingest => "ingest",
            _ => return None,
        })
    }

    /// Every command line `cli_twin` stands for, with `ID` and `NAME` filled in.
    pub fn cli_twin_commands(self, id: i64, name: &str) -> Vec<Vec<String>> {
        let Some(twin) = self.cli_twin() else { return Vec::new() };
        let mut words = twin.split(' ');
        let verbs = words.next().unwrap_or_default();
        let args: Vec<String> = words
            .map(|w| match w {
                "ID" => id.to_string(),
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
