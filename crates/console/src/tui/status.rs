//! Header (pane tabs, then the workspace: database and skills folder, like k9s's context line)
//! and status line (what the engine is doing or found, prompts, the filter being typed).

use std::path::Path;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::layout::ellipsize;
use super::state::{Confirm, Pane, UiState};
use super::theme::Theme;
use crate::engine::Progress;
use crate::engine::snapshot::Snapshot;
use crate::text;
use crate::text::safe;

pub fn draw_header(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let bar = Pane::tab_bar(snap, ui.pane, usize::from(area.width));
    let mut spans = vec![Span::styled(bar.brand, theme.title())];
    for (pane, text) in bar.tabs {
        let style = if pane == ui.pane { theme.selected() } else { theme.dim() };
        spans.push(Span::styled(text, style));
    }
    spans.push(Span::styled(bar.help, theme.dim()));
    let [tabs, context] = ratatui::layout::Layout::vertical([
        ratatui::layout::Constraint::Length(1),
        ratatui::layout::Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(Line::from(spans)), tabs);
    f.render_widget(Paragraph::new(context_line(snap, area.width, theme)), context);
}

/// ` db <path> · skills <folder>`, each path shortened from the left to fit.
fn context_line(snap: &Snapshot, width: u16, theme: Theme) -> Line<'static> {
    let w = &snap.watching;
    let db = shown_path(&w.db);
    let skills = shown_path(&w.skills_dir);
    let room = usize::from(width).saturating_sub(" db  · skills ".chars().count()) / 2;
    Line::from(vec![
        Span::styled(" db ", theme.dim()),
        Span::raw(shorten_left(&db, room.max(8))),
        Span::styled(" · skills ", theme.dim()),
        Span::raw(shorten_left(&skills, room.max(8))),
    ])
}

/// A path with the home folder written `~`, as text safe for the terminal.
fn shown_path(path: &Path) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let text = match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    };
    safe::inline(&text).into_owned()
}

/// `…` then the end of `text` (the informative part of a path) when it is too long.
fn shorten_left(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(count + 1 - width).collect();
    format!("…{tail}")
}

const SPINNER: [&str; 4] = ["|", "/", "-", "\\"];

pub fn draw_status(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let width = usize::from(area.width);
    let fit = |text: String| ellipsize(&text, width);
    let line = if let Some(confirm) = &ui.confirm {
        let question = match confirm {
            Confirm::Approve { id, name, .. } => {
                format!("Approve the proposed version #{id} of {name} (writes the diff shown)? y/n")
            }
            Confirm::Reject { id, name } => {
                format!("Reject the proposed version #{id} of {name}? y/n")
            }
            Confirm::PromoteFlagged(t, n) => format!(
                "{} is flagged ({}, shown in the detail): promote it anyway? y/n",
                t.name,
                text::count(*n as u64, "flag")
            ),
            Confirm::LessonFlagged(t, status, flags) => format!(
                "Make {} {status} anyway? y/n · flagged: {}{}",
                t.name,
                safe::inline(flags.first().map_or("", String::as_str)),
                match flags.len() {
                    1 => String::new(),
                    n => format!(" (+{} more in the detail)", n - 1),
                }
            ),
            Confirm::ApproveEdit(t) => {
                format!("Approve {} as it is on disk now (the edit shown)? y/n", t.name)
            }
            Confirm::Rollback(t, v) => {
                format!("Roll {} back to v{v}, dropping the edit shown? y/n", t.name)
            }
            Confirm::RollbackTo(t, v) => {
                format!("Roll {} back to v{v} (its text as a new version)? y/n", t.name)
            }
            Confirm::Undo { what, ago, .. } => {
                format!("Undo your last change, {what} ({ago})? y/n")
            }
        };
        Line::styled(fit(question), theme.error())
    } else if ui.filtering {
        Line::from(fit(format!("/{}▏   (Enter keeps, Esc clears)", ui.filter)))
    } else if let Some(text) = ui.engine.message.as_ref().filter(|_| !working(ui)) {
        match ui.engine.error {
            true => Line::styled(error_line(text, snap, width), theme.error()),
            false => Line::from(fit(text.clone())),
        }
    } else if let Some(busy) = &ui.engine.busy {
        let spin = SPINNER[(ui.tick % 4) as usize];
        let progress = ui.engine.progress.map(progress_text).unwrap_or_default();
        Line::from(fit(format!("{spin} {busy}{progress}")))
    } else {
        Line::styled(fit("idle · watching for changes · ? for keys".into()), theme.dim())
    };
    f.render_widget(Paragraph::new(line), area);
}

/// An error fitted to `width`: too long, the database's folder goes first (the header names
/// it), then the end of what went wrong, never the fix after the last `; `.
fn error_line(text: &str, snap: &Snapshot, width: usize) -> String {
    let mut text = text.to_owned();
    let db = &snap.watching.db;
    if text.chars().count() > width
        && let Some(name) = db.file_name()
    {
        text = text.replace(&db.display().to_string(), &name.to_string_lossy());
    }
    let w = |s: &str| Span::raw(s).width();
    // The fix is the last clause: the cut goes in what comes before it.
    match text.rsplit_once("; ") {
        Some((what, fix)) if w(&text) > width && w(fix) + 8 < width => {
            format!("{}; {fix}", ellipsize(what, width - w(fix) - 2))
        }
        _ => super::layout::ellipsize_middle(&text, width),
    }
}

/// Work under way shows over a message that has been read (or was only a note): a decision
/// waiting on a locked database says so at once, never a stale line for seconds.
fn working(ui: &UiState) -> bool {
    ui.engine.busy.is_some() && (ui.engine.seen || !ui.engine.sticky)
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
