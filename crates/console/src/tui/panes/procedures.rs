//! Procedures: the slash commands, prompt templates, fixed prompts, skills, menu workflows and
//! loops the history shows driving runs, each with its health like a skill's; the selected
//! one's detail below (where it is defined, what it runs and says, what is asked after it).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};

use crate::engine::snapshot::{Rules, Snapshot};
use crate::procedures::Procedure;
use crate::text;
use crate::text::safe;
use crate::tui::layout;
use crate::tui::procedures;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let title = format!(" Procedures ({}) ", snap.procedures.len());
    if snap.procedures.is_empty() {
        let text = "No procedures seen yet. A slash command, prompt template, fixed prompt, skill, \
                    menu workflow or loop shows here once the history shows it driving runs.";
        let block = Block::bordered().title(title);
        f.render_widget(Paragraph::new(text).block(block).wrap(Wrap { trim: false }), area);
        return;
    }
    let rows = u16::try_from(snap.procedures.len()).unwrap_or(u16::MAX).saturating_add(3);
    let [list_area, detail_area] =
        Layout::vertical([Constraint::Length(rows.min(area.height / 2)), Constraint::Min(0)])
            .areas(area);
    draw_table(f, list_area, snap, ui, theme, title);
    if let Some(p) = ui.procedure(snap) {
        let block = Block::bordered()
            .title(format!(" {} ", safe::inline(&p.name)))
            .title_bottom(" y copy where it is defined · ^d/^u scroll ");
        let para = Paragraph::new(detail_lines(p, &snap.rules, theme))
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((ui.scroll, 0));
        f.render_widget(para, detail_area);
    }
}

/// One row per procedure: state, name, kind, runs, runs that ended well, last run. Under 70
/// columns the kind and the last run give way to the name.
fn draw_table(
    f: &mut Frame,
    area: Rect,
    snap: &Snapshot,
    ui: &UiState,
    theme: Theme,
    title: String,
) {
    let wide = area.width >= 70;
    let fixed: u16 = if wide { 10 + 15 + 4 + 10 + 10 + 5 } else { 10 + 4 + 10 + 3 };
    let name_width = usize::from(area.width.saturating_sub(2 + fixed)).max(1);
    let rows: Vec<Row> = snap
        .procedures
        .iter()
        .map(|p| {
            let state = procedures::health(p, &snap.rules);
            let ok_style = state.map_or(theme.dim(), |s| theme.state(s));
            let mut cells = vec![
                Line::styled(procedures::state_word(p, &snap.rules), ok_style),
                Line::from(layout::ellipsize(&safe::inline(&p.name), name_width)),
            ];
            if wide {
                cells.push(Line::styled(p.kind.as_str(), theme.dim()));
            }
            cells.push(Line::from(format!("{:>4}", p.runs)));
            cells.push(Line::styled(procedures::ok_text(p), ok_style));
            if wide {
                cells.push(Line::from(procedures::last_day(p)));
            }
            Row::new(cells)
        })
        .collect();
    let (names, widths): (Vec<&str>, Vec<Constraint>) = [
        ("state", Constraint::Length(10), true),
        ("procedure", Constraint::Min(name_width as u16), true),
        ("kind", Constraint::Length(15), wide),
        ("runs", Constraint::Length(4), true),
        ("health", Constraint::Length(10), true),
        ("last run", Constraint::Length(10), wide),
    ]
    .into_iter()
    .filter(|(_, _, shown)| *shown)
    .map(|(n, w, _)| (n, w))
    .unzip();
    let mut state = TableState::default().with_selected(Some(ui.procedures_sel));
    let table = Table::new(rows, widths)
        .header(Row::new(names).style(theme.title()))
        .block(Block::bordered().title(title))
        .row_highlight_style(theme.selected());
    f.render_stateful_widget(table, area, &mut state);
}

fn field(name: &str, text: &str, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<8}"), theme.dim()),
        Span::raw(safe::inline(text).into_owned()),
    ])
}

/// What the selected procedure is and what its runs show; every text from the history made
/// safe for the terminal.
pub fn detail_lines(p: &Procedure, rules: &Rules, theme: Theme) -> Vec<Line<'static>> {
    let last = procedures::last_run(p);
    let mut lines = vec![Line::styled(
        format!(
            "{} · agent {} · {} · last run {last}",
            p.kind.as_str(),
            safe::inline(&p.agent),
            text::count(p.runs as u64, "run"),
        ),
        theme.title(),
    )];
    let state = procedures::health(p, rules);
    lines.push(Line::from(vec![
        Span::styled(format!("{:<8}", "Health"), theme.dim()),
        Span::styled(
            procedures::state_word(p, rules),
            state.map_or(theme.dim(), |s| theme.state(s)),
        ),
        Span::raw(format!(": {}", procedures::health_reason(p, rules))),
    ]));
    if let Some(at) = &p.defined_at {
        lines.push(field("Defined", at, theme));
    }
    if let Some(command) = &p.command {
        lines.push(field("Runs", command, theme));
    }
    if let Some(prompt) = &p.prompt {
        for (i, said) in prompt.lines().enumerate() {
            lines.push(field(if i == 0 { "Says" } else { "" }, said, theme));
        }
    }
    lines.push(Line::from(""));
    if p.follow_ups.is_empty() {
        lines.push(Line::styled(
            "Nothing is asked right after its runs in two sessions or more.",
            theme.dim(),
        ));
    }
    for f in &p.follow_ups {
        lines.push(Line::from(format!(
            "Asked after it in {}: {}",
            text::count(f.sessions as u64, "session"),
            safe::inline(&f.request)
        )));
    }
    lines.push(Line::styled(
        "Its work is not drafted again as a new skill (skilldeck procedures lists it too).",
        theme.dim(),
    ));
    lines
}
