//! Help overlay: every key of the live key map, what it does, and its command-line twin. Rows
//! come from `KeyMap::help_rows`, so a key rebound in the config shows here as it is.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Block, Clear, Row, Table, TableState};

use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, ui: &UiState, theme: Theme) {
    let rows = ui.keymap.help_rows();
    let width = area.width.min(96);
    let height = (rows.len() as u16 + 3).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let visible = usize::from(height.saturating_sub(3)).max(1);
    let offset = usize::from(ui.help_scroll).min(rows.len().saturating_sub(visible));
    let more = rows.len() > visible;
    let key_width = rows.iter().map(|(k, _, _)| k.chars().count()).max().unwrap_or(8).min(28);
    let rows: Vec<Row> =
        rows.into_iter().map(|(keys, what, twin)| Row::new([keys, what, twin])).collect();
    let title = if more { " keys (j/k scroll · Esc closes) " } else { " keys (Esc closes) " };
    let table = Table::new(
        rows,
        [Constraint::Length(key_width as u16), Constraint::Length(28), Constraint::Min(0)],
    )
    .header(ratatui::widgets::Row::new(["key", "action", "skilldeck …"]).style(theme.title()))
    .block(Block::bordered().title(title));
    f.render_widget(Clear, popup);
    let mut state = TableState::default().with_offset(offset);
    f.render_stateful_widget(table, popup, &mut state);
}
