//! The header's tab bar, fitted to the terminal's width: every tab and `? help` stay on screen,
//! the words giving way first (the brand, then the counts of the other tabs, then their titles
//! down to an initial). Drawing and mouse clicks read the same layout.

/// One tab as the header may say it: the key that opens it, its title and its count (` (3)`).
#[derive(Debug, Clone, PartialEq)]
pub struct Tab<T> {
    pub pane: T,
    pub number: usize,
    pub title: &'static str,
    pub count: String,
}

/// The tab bar as drawn: the brand (if it fits), each tab's text, then the help hint.
#[derive(Debug, Clone, PartialEq)]
pub struct TabBar<T> {
    pub brand: &'static str,
    pub tabs: Vec<(T, String)>,
    pub help: &'static str,
}

impl<T: Copy> TabBar<T> {
    fn width(&self) -> usize {
        let tabs: usize = self.tabs.iter().map(|(_, t)| t.chars().count()).sum();
        self.brand.chars().count() + tabs + self.help.chars().count()
    }

    /// The pane whose tab is at column `x` (from the bar's left edge).
    pub fn pane_at(&self, x: usize) -> Option<T> {
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

/// The widest tab bar of `tabs` that fits `width` columns; `current` is always said in full.
pub fn fit<T: Copy + PartialEq>(tabs: &[Tab<T>], current: T, width: usize) -> TabBar<T> {
    let bar = |brand, words, pad: bool, help| TabBar {
        brand,
        tabs: tabs.iter().map(|t| (t.pane, tab_text(t, t.pane == current, words, pad))).collect(),
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

fn tab_text<T>(t: &Tab<T>, current: bool, words: Words, pad: bool) -> String {
    let (n, title) = (t.number, t.title);
    let said = match (current, words) {
        (true, _) | (false, Words::Full) => format!("{n} {title}{}", t.count),
        (false, Words::Title) => format!("{n} {title}"),
        (false, Words::Short) => format!("{n} {}", title.chars().take(3).collect::<String>()),
        (false, Words::Initial) => format!("{n}{}", title.chars().next().unwrap_or(' ')),
    };
    if pad { format!(" {said} ") } else { format!(" {said}") }
}
