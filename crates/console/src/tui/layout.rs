//! Screen geometry shared by drawing and by the state (which needs the page size to scroll).

use ratatui::layout::{Constraint, Layout, Rect};

/// Header (pane tabs, then the workspace), body, status line.
pub fn frame(area: Rect) -> [Rect; 3] {
    Layout::vertical([Constraint::Length(2), Constraint::Min(0), Constraint::Length(1)]).areas(area)
}

/// Rows of the skills table that fit on screen (body minus borders and the header row).
pub fn skills_page(area: Rect) -> usize {
    usize::from(frame(area)[1].height.saturating_sub(3))
}

/// Width of the list beside a detail view: two fifths of the screen, so it widens with the
/// terminal (never under 24 columns).
pub fn list_width(area: Rect) -> u16 {
    (area.width * 2 / 5).max(24.min(area.width))
}

/// Width of the review queue's list: as `list_width`, but under 80 columns 36 of them, so a
/// row keeps its name on a narrow terminal (the detail narrows first).
pub fn queue_width(area: Rect) -> u16 {
    match area.width {
        0..80 => 36.min(area.width),
        _ => list_width(area),
    }
}

/// Width from which the Skills pane shows the timeline beside the table.
pub const SIDE_BY_SIDE: u16 = 150;

/// `text` cut in the middle to `width` columns, `…` where cut: the end of an error is its fix,
/// which must stay on screen.
pub fn ellipsize_middle(text: &str, width: usize) -> String {
    let w = |s: &str| ratatui::text::Span::raw(s).width();
    if w(text) <= width {
        return text.to_owned();
    }
    let tail_room = width.saturating_sub(1) * 3 / 5;
    let mut tail: Vec<char> = Vec::new();
    for c in text.chars().rev() {
        tail.insert(0, c);
        if w(&tail.iter().collect::<String>()) > tail_room {
            tail.remove(0);
            break;
        }
    }
    let tail: String = tail.into_iter().collect();
    format!("{}{tail}", ellipsize(text, width - w(&tail)))
}

/// `text` cut to `width` columns, ending with `…` when it was cut.
pub fn ellipsize(text: &str, width: usize) -> String {
    let w = |s: &str| ratatui::text::Span::raw(s).width();
    if w(text) <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    for c in text.chars() {
        let mut next = out.clone();
        next.push(c);
        if w(&next) + 1 > width {
            break;
        }
        out = next;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_cut_in_the_middle_and_keeps_its_end() {
        let text = "database /a/long/path/skilldeck.db is locked; close it and run again";
        let cut = ellipsize_middle(text, 40);
        assert_eq!(cut.chars().count(), 40, "{cut}");
        assert!(cut.starts_with("database /a/long") && cut.ends_with("close it and run again"));
        assert_eq!(ellipsize_middle("short", 40), "short");
    }

    #[test]
    fn long_text_ends_with_an_ellipsis_within_the_width() {
        assert_eq!(ellipsize("deploy-docs", 20), "deploy-docs");
        assert_eq!(ellipsize("deploy-docs", 7), "deploy…");
        assert_eq!(ellipsize("deploy-docs", 1), "…");
    }
}
