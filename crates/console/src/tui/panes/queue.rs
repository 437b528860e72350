//! Review queue: new-skill candidates and proposed versions, with their evidence and the staged
//! SKILL.md (or, for a proposed version, its diff against the live version).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

use super::diff::diff_lines;
use crate::engine::snapshot::{CandidateView, QueueItem, Snapshot, Watching};
use crate::text;
use crate::text::safe;
use crate::tui::layout;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    if ui.queue_rows.is_empty() {
        let lines = empty_lines(snap, ui);
        let title = list_title("Review queue", 0, snap.candidates.len(), ui, false);
        let block = Block::bordered().title(title);
        f.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), area);
        return;
    }
    let selected = ui.candidate(snap);
    if ui.zoom {
        if let Some(c) = selected {
            draw_detail(f, area, c, ui, theme);
        }
        return;
    }
    let width = layout::queue_width(area);
    let [list_area, detail_area] =
        Layout::horizontal([Constraint::Length(width), Constraint::Min(0)]).areas(area);
    let inner = usize::from(width.saturating_sub(2));
    // Every agent's candidates are listed; with more than one agent, each row names its own.
    let agents =
        snap.candidates.iter().map(|c| c.agent.as_str()).collect::<std::collections::HashSet<_>>();
    let several = agents.len() > 1;
    let items: Vec<ListItem> = ui
        .queue_rows
        .iter()
        .map(|&i| {
            let c = &snap.candidates[i];
            let kind = match c.item {
                QueueItem::HandEdit { ref approved }
                    if approved.live == c.skill_md && c.trial.is_some() =>
                {
                    "trial"
                }
                QueueItem::HandEdit { .. } => "edited",
                QueueItem::Merge { .. } => "merge",
                QueueItem::Version { .. } => "version",
                QueueItem::NewSkill => "new",
            };
            let mut count = match c.item {
                QueueItem::HandEdit { .. } | QueueItem::Merge { .. } => String::new(),
                QueueItem::NewSkill | QueueItem::Version { .. } => format!(" ×{}", c.occurrences),
            };
            // A proposed version is named by the skill it changes, not its draft's folder.
            let name = match &c.item {
                QueueItem::Version { target } => target.name.as_str(),
                _ => c.name.as_str(),
            };
            let room = |count: &str| inner.saturating_sub(8 + count.chars().count());
            // The agent tag gives way to the name, and the name to the count: it ends with `…`
            // rather than hiding `×N`.
            let tag = format!(" · {}", safe::inline(&snap.watching.agents.label(&c.agent)));
            if several && layout::ellipsize(name, room(&format!("{count}{tag}"))) == name {
                count.push_str(&tag);
            }
            ListItem::new(Line::from(vec![
                Span::styled(format!("{kind:<8}"), theme.dim()),
                Span::raw(layout::ellipsize(name, room(&count))),
                Span::styled(count, theme.dim()),
            ]))
        })
        .collect();
    let title = list_title("Review queue", ui.queue_rows.len(), snap.candidates.len(), ui, false);
    let mut state = ListState::default().with_selected(Some(ui.queue_sel));
    let list =
        List::new(items).block(Block::bordered().title(title)).highlight_style(theme.selected());
    f.render_stateful_widget(list, list_area, &mut state);
    if let Some(c) = selected {
        draw_detail(f, detail_area, c, ui, theme);
    }
}

fn draw_detail(f: &mut Frame, area: Rect, c: &CandidateView, ui: &UiState, theme: Theme) {
    let mut lines = vec![Line::styled(c.name.clone(), theme.title())];
    lines.push(Line::from(match &c.item {
        QueueItem::HandEdit { approved } if approved.live == c.skill_md && c.trial.is_some() => {
            "Live skill a trial says makes things worse · a approve keeps it".to_string()
        }
        QueueItem::HandEdit { approved } => format!(
            "Live skill edited by hand since v{} was approved · a approve · r roll back",
            approved.version
        ),
        QueueItem::Merge { target: t, absorbs: other } => format!(
            "Merge {} into {} ({}); approving archives {} · a approve · r reject",
            other.name,
            t.name,
            t.label(),
            other.name
        ),
        QueueItem::Version { target: t } if !t.status.is_live() => format!(
            "Proposed new version of {} ({}): restore it first (2, R) · r reject",
            t.name,
            t.label()
        ),
        QueueItem::Version { target: t } => {
            format!("Proposed new version of {} ({}) · a approve · r reject", t.name, t.label())
        }
        QueueItem::NewSkill => "New skill · p promote · d dismiss".to_string(),
    }));
    if let Some(d) = c.description.as_deref().filter(|d| !d.is_empty()) {
        lines.push(Line::from(d.to_string()));
    }
    if let Some(trial) = &c.trial {
        lines.push(Line::from(format!("Trial: {trial}")));
    }
    if !matches!(c.item, QueueItem::HandEdit { .. }) {
        evidence_lines(c, theme, &mut lines);
    }
    lines.push(Line::from(""));
    diff_or_draft(c, theme, &mut lines);
    let title = match c.item {
        QueueItem::HandEdit { .. } => format!(" edited skill {} ", c.name),
        _ => format!(" candidate #{} ", c.id),
    };
    let block = Block::bordered()
        .title(title)
        .title_bottom(" y copy path · Enter full width · ^d/^u scroll ");
    let para = Paragraph::new(lines).block(block).wrap(Wrap { trim: false }).scroll((ui.scroll, 0));
    f.render_widget(para, area);
}

fn drafted_by(c: &CandidateView) -> &'static str {
    c.drafted_by.map_or("", |d| d.as_str())
}

/// Where a candidate comes from: occurrences, sessions, examples, tools.
fn evidence_lines(c: &CandidateView, theme: Theme, lines: &mut Vec<Line<'static>>) {
    if matches!(c.item, QueueItem::Merge { .. }) {
        // A merge's evidence is the overlap of two live skills, not sessions.
        if let Some(reason) = &c.reason {
            lines.push(Line::from(format!("Why: {reason}")));
        }
        match &c.draft_note {
            Some(note) => lines.push(Line::from(format!("Drafted by: {} ({note})", drafted_by(c)))),
            None => lines.push(Line::from(format!("Drafted by: {}", drafted_by(c)))),
        }
        return;
    }
    lines.push(Line::from(format!(
        "Evidence: {} in {} (from {}, {})",
        text::count(c.occurrences.max(0) as u64, "occurrence"),
        text::count(c.sessions.len() as u64, "session"),
        c.source.map_or("", |s| s.as_str()),
        short_date(&c.created_at)
    )));
    if let Some(reason) = &c.reason {
        lines.push(Line::from(format!("Why: {reason}")));
    }
    match &c.draft_note {
        Some(note) => lines.push(Line::from(format!("Drafted by: {} ({note})", drafted_by(c)))),
        None => lines.push(Line::from(format!("Drafted by: {}", drafted_by(c)))),
    }
    for flag in &c.flags {
        lines.push(Line::styled(format!("Flagged: {flag}"), theme.error()));
    }
    if let Some(sig) = c.signature.as_deref().filter(|s| !s.is_empty()) {
        lines.push(Line::from(format!("Task signature: {sig}")));
    }
    if !c.sessions.is_empty() {
        lines.push(Line::from(format!("Sessions: {}", shorten_list(&c.sessions, 3))));
    }
    for example in c.examples.iter().take(3) {
        lines.push(Line::from(format!("  e.g. “{}”", one_line(example, 70))));
    }
    if !c.steps.is_empty() {
        lines.push(Line::from("Steps:"));
        for (i, step) in c.steps.iter().enumerate() {
            lines.push(Line::from(format!("  {}. {step}", i + 1)));
        }
    } else if !c.tool_sequence.is_empty() {
        lines.push(Line::from(format!("Tools: {}", c.tool_sequence.join(" → "))));
    }
}

/// The staged SKILL.md of a new candidate, or the diff of a proposed version or a hand edit.
fn diff_or_draft(c: &CandidateView, theme: Theme, lines: &mut Vec<Line<'static>>) {
    match c.item.target() {
        Some(t) => {
            let heading = match &c.item {
                QueueItem::HandEdit { approved } => {
                    format!("The edit since the approved v{}:", approved.version)
                }
                QueueItem::Merge { .. } => format!("Against {} ({}):", t.name, t.label()),
                _ => format!("Changes to {}:", t.label()),
            };
            lines.push(Line::styled(heading, theme.title()));
            lines.extend(diff_lines(&t.live, &c.skill_md, theme));
            if let QueueItem::Merge { absorbs: other, .. } = &c.item {
                lines.push(Line::from(""));
                lines.push(Line::styled(
                    format!("Against {} ({}):", other.name, other.label()),
                    theme.title(),
                ));
                lines.extend(diff_lines(&other.live, &c.skill_md, theme));
            }
        }
        None => {
            let place = c.staged_path.as_deref().unwrap_or("not staged");
            lines.push(Line::styled(format!("SKILL.md (staged: {place})"), theme.title()));
            lines.extend(c.skill_md.lines().map(|l| Line::from(l.to_string())));
        }
    }
}

/// ` Review queue (3) `, or with a filter ` Review queue (1 of 3 · /zz · Esc clears) `.
pub fn list_title(name: &str, shown: usize, total: usize, ui: &UiState, skills: bool) -> String {
    match ui.filter_label(skills) {
        Some(filter) => format!(" {name} ({shown} of {total} · {filter} · Esc clears) "),
        None => format!(" {name} ({total}) "),
    }
}

/// What a pane says before the database is read: that it is being read, or why it cannot be.
pub fn loading_text(ui: &UiState) -> String {
    match &ui.load_error {
        Some(why) => format!("Cannot read the database: {why}"),
        None => "Reading the database…".to_string(),
    }
}

/// What an empty console says: what it watches and how to point it elsewhere.
pub fn empty_lines(snap: &Snapshot, ui: &UiState) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if !snap.loaded() {
        lines.push(Line::from(loading_text(ui)));
        return lines;
    }
    if !ui.filter.is_empty() && !snap.candidates.is_empty() {
        lines.push(Line::from(format!(
            "No candidate matches the filter “{}” (Esc clears).",
            ui.filter
        )));
        return lines;
    }
    lines.push(Line::from("Nothing awaiting review."));
    lines.push(Line::from(""));
    lines.extend(watching_lines(&snap.watching));
    lines
}

pub fn watching_lines(w: &Watching) -> Vec<Line<'static>> {
    let roots = if w.transcript_roots.is_empty() {
        "none found (~/.claude/projects and ~/.codex/sessions are absent)".to_string()
    } else {
        w.transcript_roots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    };
    let config = if w.config_exists {
        w.config_file.display().to_string()
    } else {
        format!("{} (absent: defaults in use)", w.config_file.display())
    };
    vec![
        Line::from(format!("Watching transcripts: {roots}")),
        Line::from(format!("Live skills folder:   {}", w.skills_dir.display())),
        Line::from(format!("Drafts staged in:     {}", w.staging_dir.display())),
        Line::from(format!("Database:             {}", w.db.display())),
        Line::from(format!("Config:               {config}")),
        Line::from(""),
        Line::from("Candidates appear here when the same work succeeds 3 times or a tool sequence"),
        Line::from(
            "recurs across 3 sessions. To watch elsewhere: skilldeck --db FILE --skills-dir",
        ),
        Line::from("DIR, or [[transcripts]] path = \"...\" in the config. Or try: skilldeck demo"),
    ]
}

fn shorten_list(items: &[String], n: usize) -> String {
    let shown: Vec<&str> = items.iter().take(n).map(String::as_str).collect();
    match items.len().saturating_sub(n) {
        0 => shown.join(", "),
        more => format!("{} (+{more} more)", shown.join(", ")),
    }
}

fn one_line(text: &str, max: usize) -> String {
    layout::ellipsize(&text.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

pub fn short_date(at: &str) -> &str {
    at.get(..10).unwrap_or(at)
}
