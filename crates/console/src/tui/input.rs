//! A key read in the console's current mode: a confirmation takes y or anything else, the
//! filter takes letters, the history and help overlays take their few keys, else the keymap.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::state::UiState;

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
    if ui.history && !ui.help {
        return match ui.keymap.action(&key) {
            Some(
                a @ (Action::Down
                | Action::Up
                | Action::Top
                | Action::Bottom
                | Action::Reopen
                | Action::Help),
            ) => Some(a),
            Some(Action::Restore | Action::Enter) => Some(Action::Reopen),
            _ => Some(Action::Back),
        };
    }
    if ui.help {
        return match ui.keymap.action(&key) {
            // q (and any other key) closes the overlay, as in lazygit and k9s; Ctrl-C quits.
            Some(a @ (Action::Down | Action::Up | Action::Top | Action::Bottom)) => Some(a),
            _ => Some(Action::Back),
        };
    }
    ui.keymap.action(&key)
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
}
