//! Screen geometry shared by drawing and by the state (which needs the page size to scroll).

use ratatui::layout::{Constraint, Layout, Rect};

/// Header line, body, status line.
pub fn frame(area: Rect) -> [Rect; 3] {
    Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(1)]).areas(area)
}

/// Rows of the skills table that fit on screen (body minus borders and the header row).
pub fn skills_page(area: Rect) -> usize {
    usize::from(frame(area)[1].height.saturating_sub(3))
}

/// Width of the list beside a detail view.
pub fn list_width(area: Rect) -> u16 {
    (area.width * 2 / 5).clamp(24, 48)
}

/// Width from which the Skills pane shows the timeline beside the table.
pub const SIDE_BY_SIDE: u16 = 150;
