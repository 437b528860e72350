//! The whole screen as a pure function of the snapshot and the UI state.

use ratatui::Frame;

use super::layout;
use super::panes;
use super::state::{Pane, UiState};
use super::status;
use super::theme::Theme;
use crate::engine::snapshot::Snapshot;

pub fn draw(f: &mut Frame, snap: &Snapshot, ui: &UiState) {
    let theme = Theme { color: ui.color };
    let [header, body, status_line] = layout::frame(f.area());
    status::draw_header(f, header, snap, ui, theme);
    match ui.pane {
        Pane::Queue => panes::queue::draw(f, body, snap, ui, theme),
        Pane::Skills if ui.skill_detail => panes::detail::draw(f, body, snap, ui, theme),
        // Wide terminals show the selected skill's timeline beside the table.
        Pane::Skills if body.width >= layout::SIDE_BY_SIDE => {
            let [table, timeline] = ratatui::layout::Layout::horizontal([
                ratatui::layout::Constraint::Percentage(50),
                ratatui::layout::Constraint::Percentage(50),
            ])
            .areas(body);
            panes::skills::draw(f, table, snap, ui, theme);
            panes::timeline::draw(f, timeline, snap, ui, theme);
        }
        Pane::Skills => panes::skills::draw(f, body, snap, ui, theme),
        Pane::Timeline => panes::timeline::draw(f, body, snap, ui, theme),
        Pane::Diff => panes::diff::draw(f, body, snap, ui, theme),
        Pane::Lessons => panes::lessons::draw(f, body, snap, ui, theme),
        Pane::Team => panes::team::draw(f, body, snap, ui, theme),
        Pane::Procedures => panes::procedures::draw(f, body, snap, ui, theme),
    }
    status::draw_status(f, status_line, snap, ui, theme);
    if ui.history {
        panes::history::draw(f, body, snap, ui, theme);
    }
    if ui.help {
        panes::help::draw(f, body, ui, theme);
    }
}
