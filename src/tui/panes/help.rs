//! Help overlay: every key, what it does, and its command-line twin.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Block, Clear, Row, Table};

use crate::tui::keys::BINDINGS;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, theme: Theme) {
    let width = area.width.min(96);
    let height = (BINDINGS.len() as u16 + 3).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let rows: Vec<Row> = BINDINGS
        .iter()
        .map(|(keys, what, action)| {
            Row::new(vec![
                keys.to_string(),
                what.to_string(),
                action.cli_twin().unwrap_or("").to_string(),
            ])
        })
        .collect();
    let table =
        Table::new(rows, [Constraint::Length(16), Constraint::Length(29), Constraint::Min(0)])
            .header(Row::new(["key", "action", "skilldeck …"]).style(theme.title()))
            .block(Block::bordered().title(" keys (Esc closes) "));
    f.render_widget(Clear, popup);
    f.render_widget(table, popup);
}
