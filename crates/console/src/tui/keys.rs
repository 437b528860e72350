//! Keys to actions (lazygit / gitui / k9s habits). The key map starts from [`DEFAULT_KEYS`]; a
//! `[keys]` table in the config file rebinds actions (`promote = "+"`, `down = ["j", "ctrl-n"]`),
//! and the help overlay is drawn from the same map, so what it shows is what the keys do.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use crate::config::KeyList;

/// The bindings a console starts with, in the order the help overlay lists them.
pub const DEFAULT_KEYS: &[(&str, Action)] = &[
    ("j", Action::Down),
    ("down", Action::Down),
    ("k", Action::Up),
    ("up", Action::Up),
    ("g", Action::Top),
    ("home", Action::Top),
    ("G", Action::Bottom),
    ("end", Action::Bottom),
    ("ctrl-d", Action::PageDown),
    ("pagedown", Action::PageDown),
    ("ctrl-u", Action::PageUp),
    ("pageup", Action::PageUp),
    ("h", Action::ScrollLeft),
    ("left", Action::ScrollLeft),
    ("l", Action::ScrollRight),
    ("right", Action::ScrollRight),
    ("n", Action::NextHunk),
    ("N", Action::PrevHunk),
    ("tab", Action::NextPane),
    ("backtab", Action::PrevPane),
    ("1", Action::GoQueue),
    ("2", Action::GoSkills),
    ("3", Action::GoTimeline),
    ("4", Action::GoDiff),
    ("5", Action::GoLessons),
    ("6", Action::GoTeam),
    ("7", Action::GoProcedures),
    ("/", Action::StartFilter),
    ("f", Action::CycleStateFilter),
    ("o", Action::CycleSort),
    ("enter", Action::Enter),
    ("esc", Action::Back),
    ("space", Action::MarkBase),
    ("p", Action::Promote),
    ("d", Action::Dismiss),
    ("a", Action::Approve),
    ("r", Action::Reject),
    ("P", Action::ToggleProtected),
    ("x", Action::Archive),
    ("R", Action::Restore),
    ("u", Action::Undo),
    ("s", Action::Sweep),
    ("i", Action::Ingest),
    ("y", Action::CopyPath),
    ("e", Action::Edit),
    ("b", Action::Rollback),
    ("H", Action::History),
    ("O", Action::Reopen),
    ("?", Action::Help),
    ("q", Action::Quit),
];

/// Help rows: actions shown together on one line (with the words for the line, or `""` for the
/// action's own [`Action::describe`]), in this order. The keys come from the key map.
pub const HELP_GROUPS: &[(&[Action], &str)] = &[
    (&[Action::Down, Action::Up], "move"),
    (&[Action::Top, Action::Bottom], "first / last row"),
    (&[Action::PageDown, Action::PageUp], "page or scroll down / up"),
    (&[Action::ScrollLeft, Action::ScrollRight], "diff: scroll sideways"),
    (&[Action::NextHunk, Action::PrevHunk], "diff: next / previous change"),
    (
        &[
            Action::NextPane,
            Action::PrevPane,
            Action::GoQueue,
            Action::GoSkills,
            Action::GoTimeline,
            Action::GoDiff,
            Action::GoLessons,
            Action::GoTeam,
            Action::GoProcedures,
        ],
        "switch pane",
    ),
    (&[Action::StartFilter, Action::CycleStateFilter], "filter by name / by state"),
    (&[Action::CycleSort], ""),
    (&[Action::Enter, Action::Back], "open / back, clear filter"),
    (&[Action::MarkBase, Action::Rollback], "diff: set base / roll back"),
    (&[Action::Promote], ""),
    (&[Action::Dismiss], ""),
    (&[Action::Approve], ""),
    (&[Action::Reject], ""),
    (&[Action::ToggleProtected], ""),
    (&[Action::Archive], ""),
    (&[Action::Restore], ""),
    (&[Action::Undo], ""),
    (&[Action::Sweep, Action::Ingest], "sweep / ingest + detect now"),
    (&[Action::CopyPath, Action::Edit], "copy path / edit in $EDITOR"),
    (&[Action::History, Action::Reopen], "history / reopen from it"),
    (&[Action::Help, Action::Quit], "this help / quit"),
];

/// A key with or without Ctrl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chord {
    pub code: KeyCode,
    pub ctrl: bool,
}

impl Chord {
    /// `"p"`, `"P"`, `"ctrl-d"`, `"enter"`, `"esc"`, `"tab"`, `"backtab"`, `"space"`, `"up"`,
    /// `"down"`, `"left"`, `"right"`, `"home"`, `"end"`, `"pageup"`, `"pagedown"`, `"f1"`…`"f12"`.
    pub fn parse(text: &str) -> Option<Chord> {
        let (ctrl, rest) = match text.strip_prefix("ctrl-") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" => KeyCode::Enter,
                "esc" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                f => {
                    KeyCode::F(f.strip_prefix('f')?.parse().ok().filter(|n| (1..=12).contains(n))?)
                }
            },
        };
        Some(Chord { code, ctrl })
    }

    /// How the help overlay writes the key.
    pub fn label(self) -> String {
        let key = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        if self.ctrl { format!("^{key}") } else { key }
    }

    fn matches(self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Shifted letters arrive as the capital; S-Tab as BackTab.
        self.code == key.code && self.ctrl == ctrl
    }
}

/// Which key does what.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    bindings: Vec<(Chord, Action)>,
}

impl Default for KeyMap {
    fn default() -> Self {
        let bindings = DEFAULT_KEYS
            .iter()
            .map(|&(key, action)| (Chord::parse(key).expect("default keys parse"), action))
            .collect();
        KeyMap { bindings }
    }
}

impl KeyMap {
    /// The default map with the config's `[keys]` table applied: each named action gets exactly
    /// the keys listed (its default keys are dropped), and a key taken by another action moves.
    /// Errors name the offending key of the table.
    pub fn from_config(table: &BTreeMap<String, KeyList>) -> Result<KeyMap> {
        let mut map = KeyMap::default();
        for (name, keys) in table {
            let action: Action =
                match serde_json::from_value(serde_json::Value::String(name.clone())) {
                    Ok(a) if bindable(a) => a,
                    _ => bail!(
                        "[keys] {name}: no such action (one of: {})",
                        DEFAULT_KEYS
                            .iter()
                            .map(|(_, a)| action_name(*a))
                            .collect::<std::collections::BTreeSet<_>>()
                            .into_iter()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
            let mut chords = Vec::new();
            for key in keys.keys() {
                match Chord::parse(key) {
                    Some(c) => chords.push(c),
                    None => bail!("[keys] {name}: cannot read the key {key:?}"),
                }
            }
            map.bindings.retain(|(c, a)| *a != action && !chords.contains(c));
            map.bindings.extend(chords.into_iter().map(|c| (c, action)));
        }
        Ok(map)
    }

    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        self.bindings.iter().find(|(c, _)| c.matches(key)).map(|(_, a)| *a)
    }

    /// The keys bound to `action`, as the help overlay writes them.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        self.bindings.iter().filter(|(_, a)| *a == action).map(|(c, _)| c.label()).collect()
    }

    /// Every action some key triggers.
    pub fn actions(&self) -> Vec<Action> {
        let mut out: Vec<Action> = Vec::new();
        for (_, a) in &self.bindings {
            if !out.contains(a) {
                out.push(*a);
            }
        }
        out
    }

    /// The help overlay's rows: (keys, what they do, command-line twins), from this map.
    pub fn help_rows(&self) -> Vec<(String, String, String)> {
        HELP_GROUPS
            .iter()
            .filter_map(|(group, words)| {
                let keys: Vec<String> = group
                    .iter()
                    .map(|a| self.keys_for(*a).join(" "))
                    .filter(|k| !k.is_empty())
                    .collect();
                if keys.is_empty() {
                    return None;
                }
                let what = if words.is_empty() { group[0].describe() } else { words };
                let twins: Vec<&str> = group.iter().filter_map(|a| a.cli_twin()).collect();
                let sep = if keys.len() > 2 { " " } else { " / " };
                Some((keys.join(sep), what.to_string(), twins.join(" / ")))
            })
            .collect()
    }
}

/// Actions a key can be bound to (typing into the filter and answering y/n are modes).
fn bindable(action: Action) -> bool {
    !matches!(action, Action::FilterChar(_) | Action::Confirm | Action::Cancel)
}

fn action_name(action: Action) -> String {
    serde_json::to_value(action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::from(KeyCode::Char(c))
    }

    #[test]
    fn every_bound_action_is_in_the_help_and_every_help_action_is_bound() {
        let map = KeyMap::default();
        let in_help: Vec<Action> =
            HELP_GROUPS.iter().flat_map(|(g, _)| g.iter().copied()).collect();
        for action in map.actions() {
            assert!(in_help.contains(&action), "{action:?} has a key but no help row");
        }
        for action in in_help {
            assert!(!map.keys_for(action).is_empty(), "{action:?} is in the help but has no key");
        }
    }

    #[test]
    fn a_config_table_rebinds_and_bad_entries_name_themselves() {
        let table: BTreeMap<String, KeyList> =
            toml::from_str("promote = \"+\"\ndown = [\"j\", \"ctrl-n\"]\n").unwrap();
        let map = KeyMap::from_config(&table).unwrap();
        assert_eq!(map.action(&key('+')), Some(Action::Promote));
        assert_eq!(map.action(&key('p')), None);
        let ctrl_n = KeyEvent::new(KeyCode::Char('n'), KeyModifiers::CONTROL);
        assert_eq!(map.action(&ctrl_n), Some(Action::Down));
        assert_eq!(map.keys_for(Action::Down), vec!["j", "^n"]);
        let bad: BTreeMap<String, KeyList> = toml::from_str("promot = \"+\"").unwrap();
        let err = KeyMap::from_config(&bad).unwrap_err().to_string();
        assert!(err.contains("[keys] promot: no such action"), "{err}");
        let bad: BTreeMap<String, KeyList> = toml::from_str("promote = \"ctrl-\"").unwrap();
        let err = KeyMap::from_config(&bad).unwrap_err().to_string();
        assert!(err.contains("cannot read the key"), "{err}");
    }
}
