//! Keys to actions: a pure function of the UI mode and the key (lazygit / gitui / k9s habits).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::state::UiState;

/// Every binding, for the help overlay: (keys, what it does, action).
pub const BINDINGS: &[(&str, &str, Action)] = &[
    ("j/k ↑/↓", "move", Action::Down),
    ("g/G", "top / bottom", Action::Top),
    ("^d/^u PgDn/PgUp", "scroll detail", Action::PageDown),
    ("Tab/S-Tab 1-4", "switch pane", Action::NextPane),
    ("/", "filter (fuzzy)", Action::StartFilter),
    ("Enter", "open detail / skill", Action::Enter),
    ("Esc", "back / close", Action::Back),
    ("Space", "diff: set base version", Action::MarkBase),
    ("p", "promote candidate", Action::Promote),
    ("d", "dismiss candidate", Action::Dismiss),
    ("a", "approve proposed version", Action::Approve),
    ("r", "reject it (asks y/n)", Action::Reject),
    ("P", "toggle protected (pin)", Action::ToggleProtected),
    ("x", "archive skill", Action::Archive),
    ("R", "restore skill", Action::Restore),
    ("u", "undo promote/dismiss/archive", Action::Undo),
    ("s", "sweep now", Action::Sweep),
    ("i", "ingest + detect now", Action::Ingest),
    ("? / q", "this help / quit", Action::Help),
];

pub fn handle_key(ui: &UiState, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if ui.confirm.is_some() {
        return match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm),
            _ => Some(Action::Cancel),
        };
    }
    if ui.filtering {
        return match key.code {
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Enter => Some(Action::Enter),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Up => Some(Action::Up),
            KeyCode::Down => Some(Action::Down),
            KeyCode::Char(c) if !ctrl => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    if ui.help {
        return match key.code {
            KeyCode::Char('q') => Some(Action::Quit),
            _ => Some(Action::Back),
        };
    }
    Some(match key.code {
        KeyCode::Char('d') if ctrl => Action::PageDown,
        KeyCode::Char('u') if ctrl => Action::PageUp,
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::Char('g') | KeyCode::Home => Action::Top,
        KeyCode::Char('G') | KeyCode::End => Action::Bottom,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Char('1') => Action::GoQueue,
        KeyCode::Char('2') => Action::GoSkills,
        KeyCode::Char('3') => Action::GoTimeline,
        KeyCode::Char('4') => Action::GoDiff,
        KeyCode::Char('/') => Action::StartFilter,
        KeyCode::Enter => Action::Enter,
        KeyCode::Esc => Action::Back,
        KeyCode::Char(' ') => Action::MarkBase,
        KeyCode::Char('p') => Action::Promote,
        KeyCode::Char('d') => Action::Dismiss,
        KeyCode::Char('a') => Action::Approve,
        KeyCode::Char('r') => Action::Reject,
        KeyCode::Char('P') => Action::ToggleProtected,
        KeyCode::Char('x') => Action::Archive,
        KeyCode::Char('R') => Action::Restore,
        KeyCode::Char('u') => Action::Undo,
        KeyCode::Char('s') => Action::Sweep,
        KeyCode::Char('i') => Action::Ingest,
        KeyCode::Char('?') => Action::Help,
        KeyCode::Char('q') => Action::Quit,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::from(KeyCode::Char(c))
    }

    #[test]
    fn letters_map_to_actions_and_filter_mode_captures_them() {
        let mut ui = UiState::default();
        assert_eq!(handle_key(&ui, key('p')), Some(Action::Promote));
        assert_eq!(handle_key(&ui, key('P')), Some(Action::ToggleProtected));
        ui.filtering = true;
        assert_eq!(handle_key(&ui, key('p')), Some(Action::FilterChar('p')));
        ui.filtering = false;
        ui.confirm = Some(super::super::state::Confirm::Reject { id: 1, name: "x".into() });
        assert_eq!(handle_key(&ui, key('y')), Some(Action::Confirm));
        assert_eq!(handle_key(&ui, key('q')), Some(Action::Cancel));
    }

    #[test]
    fn actions_read_from_a_keymap_file() {
        let a: Action = serde_json::from_str("\"toggle_protected\"").unwrap();
        assert_eq!(a, Action::ToggleProtected);
    }
}
