//! History overlay (`H`): dismissed new-skill candidates and rejected proposed versions, newest
//! first; `O` (or `R`, Enter) reopens the selected one into the queue (`skilldeck undo-dismiss`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Block, Clear, Row, Table, TableState};

use crate::engine::snapshot::Snapshot;
use crate::text::safe;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let rows = snap.history.as_deref().map_or(&[][..], |h| &h[..]);
    let width = area.width.min(100);
    let height = (rows.len().max(1) as u16 + 3).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let title = format!(" history: {} dismissed or rejected (O reopens · Esc closes) ", rows.len());
    let block = Block::bordered().title(title);
    f.render_widget(Clear, popup);
    if rows.is_empty() {
        let text =
            if snap.history.is_none() { "reading…" } else { "Nothing dismissed or rejected." };
        f.render_widget(ratatui::widgets::Paragraph::new(text).block(block), popup);
        return;
    }
    let table_rows: Vec<Row> = rows
        .iter()
        .map(|h| {
            let what = match &h.target {
                Some(skill) => format!("version of {}", safe::inline(skill)),
                None => "new skill".to_string(),
            };
            let word = if h.target.is_some() { "rejected" } else { "dismissed" };
            let day = h.at.as_deref().map_or("", |at| at.get(..10).unwrap_or(at));
            Row::new([
                word.to_string(),
                format!("#{} {}", h.id, safe::inline(&h.name)),
                what,
                day.to_string(),
            ])
        })
        .collect();
    let table = Table::new(
        table_rows,
        [
            Constraint::Length(10),
            Constraint::Percentage(40),
            Constraint::Percentage(40),
            Constraint::Length(10),
        ],
    )
    .header(Row::new(["", "candidate", "what", "when"]).style(theme.title()))
    .row_highlight_style(theme.selected())
    .block(block);
    let mut state = TableState::default().with_selected(Some(ui.history_sel.min(rows.len() - 1)));
    f.render_stateful_widget(table, popup, &mut state);
}
