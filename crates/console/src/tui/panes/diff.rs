//! Diff pane: the selected skill's versions (and pending proposals) on the left, the live one
//! marked; the diff between the base and the cursor on the right, with changed words highlighted
//! inside lines. Long lines scroll sideways (h/l), n/N jump between blocks of changes.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph};
use similar::{ChangeTag, TextDiff};

use crate::engine::snapshot::{Snapshot, VersionRow};
use crate::tui::layout;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let Some(skill) = ui.skill(snap) else {
        let text = "No skill selected: pick one in Skills (2).";
        f.render_widget(Paragraph::new(text).block(Block::bordered().title(" Diff ")), area);
        return;
    };
    let versions = snap.detail.as_ref().filter(|d| d.skill_id == skill.id).map(|d| &d.versions[..]);
    let versions = versions.unwrap_or(&[]);
    let list_width = (layout::list_width(area) * 3 / 4).max(24.min(area.width));
    let [list_area, diff_area] =
        Layout::horizontal([Constraint::Length(list_width), Constraint::Min(0)]).areas(area);
    let pair = ui.diff_pair(versions.len());
    let inner = usize::from(list_width.saturating_sub(2));
    let items: Vec<ListItem> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mark = match pair {
                Some((Some(b), _)) if b == i => "base ",
                _ => "     ",
            };
            let live =
                if v.proposal.is_none() && v.version == skill.version { " (live)" } else { "" };
            let label = format!("{}{live}", version_label(v));
            ListItem::new(layout::ellipsize(&format!("{mark}{label}"), inner))
        })
        .collect();
    let mut state = ListState::default().with_selected(pair.map(|(_, h)| h));
    let title = layout::ellipsize(&format!(" {} versions ", skill.name), inner);
    let list =
        List::new(items).block(Block::bordered().title(title)).highlight_style(theme.selected());
    f.render_stateful_widget(list, list_area, &mut state);

    let (title, lines) = match pair {
        None => (" diff ".to_string(), vec![Line::from("No versions recorded for this skill.")]),
        Some((base, head)) => {
            let old = base.map_or("", |b| versions[b].content.as_str());
            let new = &versions[head].content;
            let from = base.map_or("empty".to_string(), |b| version_label(&versions[b]));
            let title = format!(" {from} → {} ", version_label(&versions[head]));
            let mut lines = diff_lines(old, new, theme);
            if lines.is_empty() {
                lines.push(Line::from("The two versions are identical."));
            }
            (title, lines)
        }
    };
    let hint = " Space base · n/N next/prev change · h/l sideways · a/r approve/reject a proposal ";
    let block = Block::new().borders(Borders::ALL).title(title).title_bottom(hint);
    // Sideways scrolling moves the text, never the `+`/`-` column before it.
    let lines: Vec<Line> = lines.into_iter().map(|l| sideways(l, ui.hscroll)).collect();
    f.render_widget(Paragraph::new(lines).block(block).scroll((ui.scroll, 0)), diff_area);
}

/// `line` with its text after the first span (the `+`/`-`/` ` mark) moved `cols` characters left.
fn sideways(line: Line<'static>, cols: u16) -> Line<'static> {
    if cols == 0 || line.spans.len() < 2 {
        return line;
    }
    let mut spans = line.spans.into_iter();
    let mut out = vec![spans.next().expect("two spans")];
    let mut skip = usize::from(cols);
    for span in spans {
        let n = span.content.chars().count();
        if skip >= n {
            skip -= n;
            continue;
        }
        let rest: String = span.content.chars().skip(skip).collect();
        skip = 0;
        out.push(Span::styled(rest, span.style));
    }
    Line::from(out)
}

pub fn version_label(v: &VersionRow) -> String {
    match v.proposal {
        Some(id) => format!("proposed #{id}"),
        None => format!("v{} {}", v.version, v.source_word()),
    }
}

/// Line numbers (in [`diff_lines`]'s output) where a block of changed lines starts.
pub fn hunk_starts(old: &str, new: &str) -> Vec<usize> {
    if old == new {
        return Vec::new();
    }
    let diff = TextDiff::from_lines(old, new);
    let mut starts = Vec::new();
    let mut previous_equal = true;
    for (line, change) in diff.ops().iter().flat_map(|op| diff.iter_changes(op)).enumerate() {
        let equal = change.tag() == ChangeTag::Equal;
        if !equal && previous_equal {
            starts.push(line);
        }
        previous_equal = equal;
    }
    starts
}

/// Line diff of `old` → `new`: `-`/`+` lines, unchanged lines with two spaces, and the changed
/// words inside a changed line emphasised.
pub fn diff_lines(old: &str, new: &str, theme: Theme) -> Vec<Line<'static>> {
    if old == new {
        return Vec::new();
    }
    let diff = TextDiff::from_lines(old, new);
    let mut lines = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let (sign, style, added) = match change.tag() {
                ChangeTag::Delete => ("- ", theme.removed(), false),
                ChangeTag::Insert => ("+ ", theme.added(), true),
                ChangeTag::Equal => ("  ", theme.dim(), false),
            };
            let mut spans = vec![Span::styled(sign, style)];
            for (emphasized, text) in change.iter_strings_lossy() {
                let text = text.trim_end_matches('\n').to_string();
                let s = if emphasized && change.tag() != ChangeTag::Equal {
                    theme.changed_word(added)
                } else {
                    style
                };
                spans.push(Span::styled(text, s));
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_are_emphasised_inside_lines() {
        let theme = Theme { color: false };
        let lines = diff_lines("run the tests\nkeep\n", "run all the tests\nkeep\n", theme);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text, vec!["- run the tests", "+ run all the tests", "  keep"]);
        let emphasised: Vec<&str> = lines[1]
            .spans
            .iter()
            .filter(|s| s.style.add_modifier.contains(ratatui::style::Modifier::UNDERLINED))
            .map(|s| s.content.as_ref())
            .collect();
        assert!(emphasised.iter().any(|w| w.contains("all")), "{emphasised:?}");
    }

    #[test]
    fn hunks_start_where_changes_follow_unchanged_lines() {
        let old = "a\nb\nc\nd\ne\n";
        let new = "a\nB\nc\nd\nE\n";
        // a, -b, +B, c, d, -e, +E
        assert_eq!(hunk_starts(old, new), vec![1, 5]);
        assert!(hunk_starts(old, old).is_empty());
    }
}
