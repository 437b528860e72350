//! Health timeline of the selected skill: outcomes per day, the rolling success rate against the
//! warning and deprecation thresholds, and the state-change events.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{
    Axis, Block, Chart, Dataset, GraphType, List, ListItem, Paragraph, Sparkline, SparklineBar,
};

use super::queue::short_date;
use super::skills::rate_text;
use crate::engine::snapshot::{DayOutcomes, Snapshot};
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let Some(skill) = ui.skill(snap) else {
        let text = "No skill selected: pick one in Skills (2).";
        f.render_widget(Paragraph::new(text).block(Block::bordered().title(" Timeline ")), area);
        return;
    };
    let detail = snap.detail.as_ref().filter(|d| d.skill_id == skill.id);
    let pinned = if skill.protected { " · protected" } else { "" };
    let header = Line::from(vec![
        ratatui::text::Span::styled(format!("{} ", skill.label()), theme.title()),
        ratatui::text::Span::styled(skill.status.clone(), theme.state(&skill.status)),
        ratatui::text::Span::raw(format!(
            "{pinned} · v{} · rate {} over last {} · uses {}",
            skill.version,
            rate_text(snap.health.get(&skill.id)),
            snap.rules.window,
            snap.health.get(&skill.id).map_or("…".into(), |h| h.uses.to_string()),
        )),
    ]);
    let [head, days_area, chart_area, events_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(6),
        Constraint::Min(5),
        Constraint::Length(area.height.saturating_sub(16).clamp(3, 10)),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(header), head);
    let Some(detail) = detail else {
        f.render_widget(Paragraph::new("loading…"), days_area);
        return;
    };
    draw_days(f, days_area, &detail.days, theme);
    draw_chart(f, chart_area, &detail.rolling, snap, theme);
    let items: Vec<ListItem> = if detail.events.is_empty() {
        vec![ListItem::new("no state changes recorded")]
    } else {
        detail
            .events
            .iter()
            .map(|e| {
                let change = match (&e.from, &e.to) {
                    (Some(a), Some(b)) => format!(" {a}→{b}"),
                    _ => String::new(),
                };
                ListItem::new(format!("{} {}{change}: {}", short_date(&e.at), e.kind, e.reason))
            })
            .collect()
    };
    f.render_widget(List::new(items).block(Block::bordered().title(" events ")), events_area);
}

fn draw_days(f: &mut Frame, area: Rect, days: &[DayOutcomes], theme: Theme) {
    let range = match (days.first(), days.last()) {
        (Some(a), Some(b)) => format!(" {} … {} ", a.day, b.day),
        _ => " no invocations yet ".into(),
    };
    let block = Block::bordered().title(" outcomes per day ").title_bottom(range);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [labels, bars_area] =
        Layout::horizontal([Constraint::Length(5), Constraint::Min(0)]).areas(inner);
    let [ok_area, fail_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Length(2)]).areas(bars_area);
    let [ok_label, fail_label] =
        Layout::vertical([Constraint::Length(2), Constraint::Length(2)]).areas(labels);
    f.render_widget(Paragraph::new(Line::styled("ok", theme.success())), ok_label);
    f.render_widget(Paragraph::new(Line::styled("fail", theme.failure())), fail_label);
    let bars = |pick: fn(&DayOutcomes) -> Option<u64>, style| -> Vec<SparklineBar> {
        days.iter().map(|d| SparklineBar::from(pick(d)).style(Some(style))).collect()
    };
    let max = days.iter().map(|d| d.success.unwrap_or(0).max(d.failure.unwrap_or(0))).max();
    let max = max.unwrap_or(1).max(1);
    let ok = Sparkline::default().data(bars(|d| d.success, theme.success())).max(max);
    let fail = Sparkline::default().data(bars(|d| d.failure, theme.failure())).max(max);
    f.render_widget(ok, ok_area);
    f.render_widget(fail, fail_area);
}

fn draw_chart(f: &mut Frame, area: Rect, rolling: &[(f64, f64)], snap: &Snapshot, theme: Theme) {
    let n = rolling.last().map_or(1.0, |p| p.0).max(2.0);
    let x0 = rolling.first().map_or(0.0, |p| p.0);
    let warn = [(x0, snap.rules.warning_rate), (n, snap.rules.warning_rate)];
    let depr = [(x0, snap.rules.deprecated_rate), (n, snap.rules.deprecated_rate)];
    let datasets = vec![
        Dataset::default()
            .name(format!("warning {:.0}%", snap.rules.warning_rate * 100.0))
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(theme.threshold(false))
            .data(&warn),
        Dataset::default()
            .name(format!("deprecated {:.0}%", snap.rules.deprecated_rate * 100.0))
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(theme.threshold(true))
            .data(&depr),
        Dataset::default()
            .name("rate")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.success())
            .data(rolling),
    ];
    let title = format!(" rolling success rate (last {}) ", snap.rules.window);
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .x_axis(Axis::default().bounds([x0, n]).labels([format!("#{x0:.0}"), format!("#{n:.0}")]))
        .y_axis(Axis::default().bounds([0.0, 1.0]).labels(["0%", "50%", "100%"]))
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)));
    f.render_widget(chart, area);
}
