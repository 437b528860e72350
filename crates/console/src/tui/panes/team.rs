//! The team scope: the team's open candidates (each with its draft and what flags it), then the
//! team's skills (status, pin), and the decisions with who made them. Read by the engine's team
//! tasks, beside its jobs; the keys' decisions (`p`, `d`, `P`) run there too.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

use crate::catalog::SkillStatus;
use crate::engine::snapshot::Snapshot;
use crate::team::TeamView;
use crate::text::{redact, safe};
use crate::tui::layout;
use crate::tui::state::UiState;
use crate::tui::team::{Row, rows};
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let Some(view) = snap.team.as_deref() else {
        let text = "No team state yet: it is read after the first team sync (with [team] in the \
                    config, see docs/team.md).";
        let block = Block::bordered().title(" Team ");
        f.render_widget(Paragraph::new(text).block(block).wrap(Wrap { trim: false }), area);
        return;
    };
    let title = format!(
        " Team {} ({} candidates, {} skills, {} proposals here) ",
        safe::inline(&view.team),
        view.candidates.len(),
        view.skills.len(),
        view.proposals
    );
    let width = layout::list_width(area);
    let [list_area, detail_area] =
        Layout::horizontal([Constraint::Length(width), Constraint::Min(0)]).areas(area);
    let room = usize::from(width.saturating_sub(2)).saturating_sub(12);
    let items: Vec<ListItem> = rows(view)
        .iter()
        .map(|r| {
            let (tag, name) = match r {
                Row::Candidate(c) => {
                    let flagged = c.problem.is_some() || !c.flags.is_empty();
                    let tag = if flagged { "flagged" } else { "candidate" };
                    (tag.to_string(), c.name.as_str())
                }
                Row::Skill(s) => {
                    let pin = if s.decided_pin.unwrap_or(false) { "*" } else { "" };
                    (format!("{}{pin}", s.decided_status.unwrap_or(SkillStatus::Healthy)), &*s.name)
                }
            };
            ListItem::new(Line::from(vec![
                Span::styled(format!("{tag:<11}"), theme.dim()),
                Span::raw(layout::ellipsize(&safe::inline(name), room)),
            ]))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(ui.team_sel));
    let list =
        List::new(items).block(Block::bordered().title(title)).highlight_style(theme.selected());
    f.render_stateful_widget(list, list_area, &mut state);
    let block = Block::bordered()
        .title(" detail ")
        .title_bottom(" p promote · d dismiss · P pin/unpin · ^d/^u scroll ");
    let para = Paragraph::new(detail_lines(view, ui.team_sel, theme))
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((ui.scroll, 0));
    f.render_widget(para, detail_area);
}

/// The selected row's detail, then the decisions with who made them.
pub fn detail_lines(view: &TeamView, sel: usize, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match rows(view).get(sel) {
        Some(Row::Candidate(c)) => {
            lines.push(Line::styled(
                format!(
                    "#{} {} · {} sessions · {} members · score {:.2}",
                    c.id,
                    safe::inline(&c.name),
                    c.support,
                    c.members,
                    c.score
                ),
                theme.title(),
            ));
            match &c.problem {
                Some(why) => lines.push(Line::styled(
                    format!("Flagged: {} (cannot be promoted)", safe::inline(why)),
                    theme.error(),
                )),
                None if c.flags.is_empty() => {
                    lines.push(Line::styled("Passes the gates; p promotes it.", theme.dim()))
                }
                None => lines.extend(c.flags.iter().map(|why| {
                    Line::styled(
                        format!(
                            "Flagged: {} (read it, then `skilldeck team promote {} --yes`)",
                            safe::inline(why),
                            c.id
                        ),
                        theme.error(),
                    )
                })),
            }
            lines.push(Line::from(""));
            lines.extend(
                safe::block(&redact::secrets(&c.skill_md))
                    .lines()
                    .map(|l| Line::from(l.to_string()))
                    .take(200),
            );
        }
        Some(Row::Skill(s)) => lines.push(Line::styled(
            format!(
                "{} v{} · {}{} · promoted by {}",
                safe::inline(&s.name),
                s.version,
                s.decided_status.unwrap_or(SkillStatus::Healthy),
                if s.decided_pin.unwrap_or(false) { " · pinned" } else { "" },
                safe::inline(s.decided_by.as_deref().unwrap_or("no recorded decision"))
            ),
            theme.title(),
        )),
        None => lines.push(Line::from("No open team candidates and no team skills.")),
    }
    lines.push(Line::from(""));
    lines.push(Line::styled("Decisions (newest first)", theme.title()));
    for d in &view.decisions {
        lines.push(Line::from(format!(
            "{} {} {} by {}",
            safe::inline(d.at.get(..16).unwrap_or(&d.at)),
            safe::inline(&d.action),
            safe::inline(&d.subject),
            safe::inline(&d.member)
        )));
    }
    lines
}
