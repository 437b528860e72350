//! Lessons: proposed ones to review, live ones with how much they helped, and the ones the
//! generalization guard refused with its reason; the selected lesson's evidence in context.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

use crate::engine::snapshot::Snapshot;
use crate::lessons::{Lesson, LessonStatus};
use crate::text;
use crate::text::safe;
use crate::tui::layout;
use crate::tui::lessons;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let title = format!(" Lessons ({} to review) ", lessons::to_review(snap));
    if snap.lessons.is_empty() {
        let text = "No lessons yet. A lesson is proposed when the user corrects what the agent \
                    just did, or when a failing command is fixed the same way in two sessions.";
        let block = Block::bordered().title(title);
        f.render_widget(Paragraph::new(text).block(block).wrap(Wrap { trim: false }), area);
        return;
    }
    let width = layout::list_width(area);
    let [list_area, detail_area] =
        Layout::horizontal([Constraint::Length(width), Constraint::Min(0)]).areas(area);
    let room = usize::from(width.saturating_sub(2)).saturating_sub(10);
    let items: Vec<ListItem> = snap
        .lessons
        .iter()
        .map(|l| {
            ListItem::new(Line::from(vec![
                Span::styled(format!("{:<10}", l.status.as_str()), theme.dim()),
                Span::raw(layout::ellipsize(&safe::inline(&l.trigger), room)),
            ]))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(ui.lessons_sel));
    let list =
        List::new(items).block(Block::bordered().title(title)).highlight_style(theme.selected());
    f.render_stateful_widget(list, list_area, &mut state);
    if let Some(l) = ui.lesson(snap) {
        let block = Block::bordered()
            .title(format!(" lesson #{} ", l.id))
            .title_bottom(" a approve · P pin · d dismiss · O reopen · ^d/^u scroll ");
        let para = Paragraph::new(detail_lines(l, snap.lesson_flags.get(&l.id), theme))
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((ui.scroll, 0));
        f.render_widget(para, detail_area);
    }
}

fn field(name: &str, text: &str, theme: Theme) -> Line<'static> {
    Line::from(vec![
        // Six columns and a space: a seven-letter name ("Refused") still gets its space.
        Span::styled(format!("{name:<6} "), theme.dim()),
        Span::raw(safe::inline(text).into_owned()),
    ])
}

/// What review needs: the lesson, its figures, why the guard refused it, and each sighting.
pub fn detail_lines(l: &Lesson, flags: Option<&Vec<String>>, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!(
            "{} · {} · {} · confidence {:.2} · utility {:.2}{}",
            l.status,
            l.kind,
            text::count(l.sessions.len() as u64, "session"),
            l.confidence,
            l.utility,
            if l.verified { " · verified" } else { "" }
        ),
        theme.title(),
    )];
    lines.push(field("When", &l.trigger, theme));
    lines.push(field("Avoid", &l.anti_pattern, theme));
    lines.push(field("Do", &l.correct_pattern, theme));
    if !l.domains.is_empty() {
        lines.push(field("Domain", &l.domains.join(", "), theme));
    }
    if let Some(r) = &l.reject_reason {
        lines.push(field("Refused", r, theme));
    }
    for flag in flags.into_iter().flatten() {
        lines.push(Line::styled(format!("Flagged {}", safe::inline(flag)), theme.error()));
    }
    if l.status.is_live() {
        lines.push(Line::from(lessons::measured(l)));
    } else if l.status == LessonStatus::Proposed {
        lines.push(Line::styled(
            "Not in the playbook until approved (a) or pinned (P).",
            theme.dim(),
        ));
    }
    for e in &l.evidence {
        lines.push(Line::from(""));
        let short: String = e.session_key.chars().take(8).collect();
        let project = e.project.as_deref().unwrap_or("");
        lines.push(Line::styled(format!("Session {short} {}", safe::inline(project)), theme.dim()));
        lines.push(field("Asked", &e.request, theme));
        lines.push(field("Agent", &e.action, theme));
        if let Some(c) = &e.correction {
            lines.push(field("User", c, theme));
        }
        if !e.fix.is_empty() {
            lines.push(field("Fix", &lessons::fix_steps(e), theme));
        }
        if let Some(next) = lessons::then_text(e) {
            lines.push(field("Then", &next, theme));
        }
    }
    lines
}
