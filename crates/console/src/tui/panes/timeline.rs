//! Health timeline of the selected skill: outcomes per day, the rolling success rate against the
//! warning and deprecation thresholds, and the state-change events.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Bar, BarChart, BarGroup, Block, Chart, Dataset, GraphType, List, ListItem, Paragraph,
};

use super::queue::short_date;
use super::skills::rate_over;
use crate::engine::snapshot::{DayOutcomes, Snapshot};
use crate::text;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let Some(skill) = ui.skill(snap) else {
        let text = "No skill selected: pick one in Skills (2).";
        f.render_widget(Paragraph::new(text).block(Block::bordered().title(" Timeline ")), area);
        return;
    };
    let detail = snap.detail.as_ref().filter(|d| d.skill_id == skill.id);
    let pinned = if skill.protected { " · pinned (never worse than warning)" } else { "" };
    let header = Line::from(vec![
        ratatui::text::Span::styled(format!("{} ", skill.label()), theme.title()),
        ratatui::text::Span::styled(skill.status.as_str(), theme.state(skill.status)),
        ratatui::text::Span::raw(format!(
            "{pinned} · v{} · {} · uses {}",
            skill.version,
            rate_over(snap.health.get(&skill.id), snap.rules.window),
            snap.health.get(&skill.id).map_or("…".into(), |h| h.uses.to_string()),
        )),
    ]);
    let days_height = if area.height >= 30 { 9 } else { 6 };
    let [head, days_area, chart_area, events_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(days_height),
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

/// Outcomes per day as a bar chart filling the width: one group per day labelled with its date,
/// a success bar and a failure bar each with its count (`3✓`, `1✗`, so the two read apart
/// without colour). When the days do not fit, the latest that fit are shown.
fn draw_days(f: &mut Frame, area: Rect, days: &[DayOutcomes], theme: Theme) {
    let inner_width = usize::from(area.width.saturating_sub(2));
    // A day needs two bars of at least 3 columns and a one-column gap.
    let fit = (inner_width / 7).max(1);
    let shown = &days[days.len().saturating_sub(fit)..];
    let title = match (shown.len(), days.len()) {
        (_, 0) => " outcomes per day: no invocations yet ".to_string(),
        (s, n) if s < n => format!(" outcomes per day (last {s} of {n} days) "),
        (_, n) => format!(" outcomes per day ({}) ", text::count(n as u64, "day")),
    };
    let ok_total: u64 = shown.iter().filter_map(|d| d.success).sum();
    let fail_total: u64 = shown.iter().filter_map(|d| d.failure).sum();
    let legend = Line::from(vec![
        Span::styled(format!(" ✓ {ok_total} succeeded "), theme.success()),
        Span::styled(format!(" ✗ {fail_total} failed "), theme.failure()),
    ]);
    let block = Block::bordered().title(title).title_bottom(legend);
    if shown.is_empty() {
        f.render_widget(block, area);
        return;
    }
    let group = (inner_width / shown.len()).max(7);
    let bar_width = ((group - 1) / 2) as u16;
    let bar = |n: Option<u64>, mark: &str, style| {
        let n = n.unwrap_or(0);
        let text = if n == 0 { String::new() } else { format!("{n}{mark}") };
        Bar::default().value(n).text_value(text).style(style).value_style(theme.bar_value(style))
    };
    let mut chart = BarChart::default()
        .block(block)
        .bar_width(bar_width)
        .bar_gap(0)
        .group_gap(1)
        .label_style(theme.dim());
    for d in shown {
        let label = Line::from(d.day.get(5..).unwrap_or(&d.day).to_string()).centered();
        let bars = [bar(d.success, "✓", theme.success()), bar(d.failure, "✗", theme.failure())];
        chart = chart.data(BarGroup::default().label(label).bars(&bars));
    }
    f.render_widget(chart, area);
}

fn draw_chart(f: &mut Frame, area: Rect, rolling: &[(f64, f64)], snap: &Snapshot, theme: Theme) {
    let title = format!(" rolling success rate (last {}) ", snap.rules.window);
    let (Some(first), Some(last)) = (rolling.first(), rolling.last()) else {
        // No use numbered yet: no axis of uses that never happened.
        let said =
            Paragraph::new(Line::styled("no uses yet: the rate starts at the first", theme.dim()));
        f.render_widget(said.block(Block::bordered().title(title)), area);
        return;
    };
    let (x0, last) = (first.0, last.0);
    let n = last.max(x0 + 1.0);
    let warn = [(x0, snap.rules.warning_rate), (n, snap.rules.warning_rate)];
    let depr = [(x0, snap.rules.deprecated_rate), (n, snap.rules.deprecated_rate)];
    // The two thresholds differ in mark as well as colour (NO_COLOR), and the legend sits in the
    // border so it is there at every size.
    let datasets = vec![
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Line)
            .style(theme.threshold(false))
            .data(&warn),
        Dataset::default()
            .marker(Marker::Bar)
            .graph_type(GraphType::Line)
            .style(theme.threshold(true))
            .data(&depr),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.success())
            .data(rolling),
    ];
    let legend = Line::from(vec![
        Span::styled(" ⣀ rate ", theme.success()),
        Span::styled(
            format!(" •• warning ≤{:.0}% ", snap.rules.warning_rate * 100.0),
            theme.threshold(false),
        ),
        Span::styled(
            format!(" ▄▄ deprecated ≤{:.0}% ", snap.rules.deprecated_rate * 100.0),
            theme.threshold(true),
        ),
    ]);
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title).title_bottom(legend))
        .x_axis(
            Axis::default().bounds([x0, n]).labels([format!("#{x0:.0}"), format!("#{last:.0}")]),
        )
        // Only the ends are labelled: a middle label lands on whatever row is nearest, which on
        // a short chart is a threshold's (the legend names those).
        .y_axis(Axis::default().bounds([0.0, 1.0]).labels(["0%", "100%"]))
        .legend_position(None);
    f.render_widget(chart, area);
}
