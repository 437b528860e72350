//! Header (pane tabs) and status line (what the engine is doing, prompts, the filter).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::state::{Confirm, Pane, UiState};
use super::theme::Theme;
use crate::engine::Progress;
use crate::engine::snapshot::Snapshot;

pub fn draw_header(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let mut spans = vec![Span::styled(" skilldeck ", theme.title())];
    for (i, pane) in Pane::ALL.iter().enumerate() {
        let count = match pane {
            Pane::Queue => format!(" ({})", snap.candidates.len()),
            Pane::Skills => format!(" ({})", snap.skills.len()),
            _ => String::new(),
        };
        let text = format!(" {} {}{count} ", i + 1, pane.title());
        let style = if *pane == ui.pane { theme.selected() } else { theme.dim() };
        spans.push(Span::styled(text, style));
    }
    spans.push(Span::styled("  ? help", theme.dim()));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

pub fn draw_status(f: &mut Frame, area: Rect, ui: &UiState, theme: Theme) {
    let line = if let Some(Confirm::Reject { id, name }) = &ui.confirm {
        Line::styled(format!("Reject the proposed version #{id} of {name}? y/n"), theme.error())
    } else if ui.filtering || !ui.filter.is_empty() {
        let cursor = if ui.filtering { "▏" } else { "" };
        Line::from(format!("/{}{cursor}   (Enter keeps, Esc clears)", ui.filter))
    } else if let Some(text) = &ui.engine.message {
        let style = if ui.engine.error { theme.error() } else { ratatui::style::Style::new() };
        Line::styled(text.clone(), style)
    } else if let Some(busy) = &ui.engine.busy {
        let spin = SPINNER[(ui.tick % 4) as usize];
        let progress = ui.engine.progress.map(progress_text).unwrap_or_default();
        Line::from(format!("{spin} {busy}{progress}"))
    } else {
        Line::styled("idle · watching for changes · ? for keys", theme.dim())
    };
    f.render_widget(Paragraph::new(line), area);
}

fn progress_text(p: Progress) -> String {
    format!(
        " {}/{} files, {}/{}",
        p.files_done,
        p.files_total,
        human_bytes(p.bytes_done),
        human_bytes(p.bytes_total)
    )
}

pub fn human_bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}
