//! The header's tab bar, fitted to the terminal's width: every tab and `? help` stay on screen,
//! the words giving way first (the brand, then the counts of the other tabs, then their titles
//! down to an initial). Drawing and mouse clicks read the same layout.

use super::state::Pane;
use crate::engine::snapshot::Snapshot;

/// The tab bar as drawn: the brand (if it fits), each tab's text, then the help hint.
#[derive(Debug, Clone, PartialEq)]
pub struct TabBar {
    pub brand: &'static str,
    pub tabs: Vec<(Pane, String)>,
    pub help: &'static str,
}

impl TabBar {
    fn width(&self) -> usize {
        let tabs: usize = self.tabs.iter().map(|(_, t)| t.chars().count()).sum();
        self.brand.chars().count() + tabs + self.help.chars().count()
    }

    /// The pane whose tab is at column `x` (from the bar's left edge).
    pub fn pane_at(&self, x: usize) -> Option<Pane> {
        let mut left = self.brand.chars().count();
        for (pane, text) in &self.tabs {
            let width = text.chars().count();
            if (left..left + width).contains(&x) {
                return Some(*pane);
            }
            left += width;
        }
        None
    }
}

/// How much of a tab that is not the current one is said.
#[derive(Clone, Copy)]
enum Words {
    Full,
    Title,
    Short,
    Initial,
}

/// The widest tab bar that fits `width` columns.
pub fn fit(snap: &Snapshot, current: Pane, width: usize) -> TabBar {
    let tabs = Pane::tabs(snap, current);
    let bar = |brand, words, pad: bool, help| TabBar {
        brand,
        tabs: tabs.iter().map(|p| (*p, tab_text(snap, *p, *p == current, words, pad))).collect(),
        help,
    };
    let tries = [
        bar(" skilldeck ", Words::Full, true, "  ? help"),
        bar("", Words::Full, true, " ? help"),
        bar("", Words::Full, false, " ? help"),
        bar("", Words::Title, false, " ? help"),
        bar("", Words::Short, false, " ? help"),
        bar("", Words::Initial, false, " ? help"),
    ];
    let last = bar("", Words::Initial, false, " ?");
    tries.into_iter().find(|b| b.width() <= width).unwrap_or(last)
}

fn tab_text(snap: &Snapshot, pane: Pane, current: bool, words: Words, pad: bool) -> String {
    let n = pane.number();
    let title = pane.title();
    let said = match (current, words) {
        (true, _) | (false, Words::Full) => format!("{n} {title}{}", pane.count(snap)),
        (false, Words::Title) => format!("{n} {title}"),
        (false, Words::Short) => format!("{n} {}", title.chars().take(3).collect::<String>()),
        (false, Words::Initial) => format!("{n}{}", title.chars().next().unwrap_or(' ')),
    };
    if pad { format!(" {said} ") } else { format!(" {said}") }
}
