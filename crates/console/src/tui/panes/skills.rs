//! Skills table: state (colour and word), success rate over the window, uses and a small trend.
//! Only the rows on screen are built, so 100,000 skills draw as fast as 10.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState};

use super::queue::watching_lines;
use crate::engine::snapshot::{Health, SkillLine, Snapshot};
use crate::text;
use crate::tui::layout;
use crate::tui::state;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

/// The word shown for a skill's health: its real status, pinned or not (the pin is a flag
/// beside it, so a pinned skill that is failing still reads `warning`).
pub fn state_word(s: &SkillLine) -> &'static str {
    s.status.as_str()
}

/// Marks beside the state: `pinned` for a protected skill, `review` for one edited by hand since
/// its approval (it waits in the queue), `stale` for one unused for `lifecycle.stale_days`,
/// `spec` for one `skilldeck validate` reports errors for.
pub fn flags(s: &SkillLine, health: Option<&Health>) -> String {
    let spec = health.is_some_and(|h| !h.spec_errors.is_empty());
    let marks =
        [(s.protected, "pinned"), (s.needs_review, "review"), (s.stale, "stale"), (spec, "spec")];
    marks.iter().filter(|(on, _)| *on).map(|(_, w)| *w).collect::<Vec<_>>().join(" ")
}

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let mut title =
        super::queue::list_title("Skills", ui.skill_rows.len(), snap.skills.len(), ui, true);
    if ui.sort != state::Sort::Name {
        title = format!("{}· by {} ", title, ui.sort.label());
    }
    if ui.skill_rows.is_empty() {
        if !snap.loaded() {
            f.render_widget(
                Paragraph::new(super::queue::loading_text(ui))
                    .wrap(ratatui::widgets::Wrap { trim: false })
                    .block(Block::bordered().title(title)),
                area,
            );
            return;
        }
        let filter = ui.filter_label(true).unwrap_or_default();
        let mut lines = vec![if snap.skills.is_empty() {
            Line::from("No skills yet: promote a candidate from the review queue (1).")
        } else {
            Line::from(format!("No skill matches {filter} (Esc clears)."))
        }];
        lines.push(Line::from(""));
        lines.extend(watching_lines(&snap.watching));
        f.render_widget(Paragraph::new(lines).block(Block::bordered().title(title)), area);
        return;
    }
    let page = usize::from(area.height.saturating_sub(3));
    let end = (ui.skills_top + page).min(ui.skill_rows.len());
    // Only the rows on screen are looked at, so 100,000 skills cost no more than a page.
    let flags_width = ui.skill_rows[ui.skills_top..end]
        .iter()
        .map(|&i| flags(&snap.skills[i], snap.health.get(&snap.skills[i].id)).len() as u16)
        .max()
        .unwrap_or(0)
        .max(6);
    // Narrow terminals drop columns from the right (trend, then version and uses) before the
    // state word or the name is cut: those two always show whole.
    let keep = match area.width {
        0..56 => 4,
        56..72 => 6,
        _ => 7,
    };
    let fixed: [u16; 7] = [10, flags_width, 0, 4, 5, 6, 10];
    let order = [0, 1, 2, 4, 3, 5, 6];
    let mut shown: Vec<usize> = order.iter().copied().take(keep).collect();
    shown.sort_unstable();
    let used: u16 = shown.iter().map(|&c| fixed[c]).sum::<u16>() + shown.len() as u16 - 1;
    let name_width = usize::from(area.width.saturating_sub(2 + used)).max(1);
    let rows: Vec<Row> = ui.skill_rows[ui.skills_top..end]
        .iter()
        .map(|&i| {
            let s = &snap.skills[i];
            let word = state_word(s);
            let health = snap.health.get(&s.id);
            let cells = [
                Line::styled(word.to_string(), theme.state(s.status)),
                Line::styled(flags(s, health), theme.flag()),
                Line::from(layout::ellipsize(&s.label(), name_width)),
                Line::from(format!("v{}", s.version)),
                Line::from(rate_text(health)),
                Line::from(health.map_or("…".to_string(), |h| h.uses.to_string())),
                trend_line(health, theme),
            ];
            Row::new(
                cells.into_iter().enumerate().filter(|(c, _)| shown.contains(c)).map(|(_, l)| l),
            )
        })
        .collect();
    let widths: Vec<Constraint> =
        shown
            .iter()
            .map(|&c| {
                if c == 2 {
                    Constraint::Min(name_width as u16)
                } else {
                    Constraint::Length(fixed[c])
                }
            })
            .collect();
    let names = ["state", "flags", "skill", "ver", "rate", "uses", "trend"];
    let header = Row::new(shown.iter().map(|&c| names[c])).style(theme.title());
    let mut state = TableState::default().with_selected(Some(ui.skills_sel - ui.skills_top));
    let table = Table::new(rows, widths)
        .header(header)
        .block(Block::bordered().title(title).title_bottom(
            " Enter open · / f filter · o sort · P pin · x archive · R restore · y copy ",
        ))
        .row_highlight_style(theme.selected());
    f.render_stateful_widget(table, area, &mut state);
}

/// The rate with what it is over: `rate 27% over the last 11 uses` (the window, or fewer when
/// the skill has been used less).
pub fn rate_over(health: Option<&Health>, window: usize) -> String {
    match health {
        Some(h) if h.uses > 0 => {
            let n = (h.uses as usize).min(window);
            format!("rate {} over the last {}", rate_text(health), text::count(n as u64, "use"))
        }
        Some(_) => "rate - (no outcomes yet)".to_string(),
        None => "rate …".to_string(),
    }
}

pub fn rate_text(health: Option<&Health>) -> String {
    match health {
        None => "…".into(),
        Some(Health { rate: None, .. }) => "-".into(),
        Some(Health { rate: Some(r), .. }) => format!("{:.0}%", r * 100.0),
    }
}

/// Last outcomes, oldest first: a tall bar for a success, a low one for a failure.
fn trend_line(health: Option<&Health>, theme: Theme) -> Line<'static> {
    let Some(h) = health else { return Line::from("") };
    Line::from(
        h.trend
            .iter()
            .map(|&ok| {
                if ok {
                    Span::styled("▇", theme.success())
                } else {
                    Span::styled("▁", theme.failure())
                }
            })
            .collect::<Vec<_>>(),
    )
}
