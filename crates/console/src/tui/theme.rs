//! Styles. Every state is also a word, so the screen reads the same under NO_COLOR, where
//! emphasis falls back to modifiers.

use ratatui::style::{Color, Modifier, Style};

use crate::catalog::SkillStatus;

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color { Style::new().fg(color) } else { Style::new() }
    }

    /// Colour of a skill's status word.
    pub fn state(self, status: SkillStatus) -> Style {
        self.fg(match status {
            SkillStatus::Healthy => Color::Green,
            SkillStatus::Warning => Color::Yellow,
            SkillStatus::Deprecated | SkillStatus::Missing => Color::Red,
            SkillStatus::Degraded => Color::Magenta,
            SkillStatus::Retired | SkillStatus::Archived => Color::DarkGray,
        })
    }

    /// Colour of the flags beside a status (`pinned`, `review`, `stale`).
    pub fn flag(self) -> Style {
        self.fg(Color::Cyan)
    }

    /// A warning line (not triggering, shadowed): the colour of `warning`.
    pub fn warning(self) -> Style {
        self.state(SkillStatus::Warning)
    }

    pub fn success(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn failure(self) -> Style {
        self.fg(Color::Red)
    }

    /// The count written inside a bar: dark on the bar's colour, bold without colour.
    pub fn bar_value(self, bar: Style) -> Style {
        match bar.fg {
            Some(c) if self.color => Style::new().fg(Color::Black).bg(c),
            _ => Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
        }
    }

    pub fn threshold(self, deprecated: bool) -> Style {
        self.fg(if deprecated { Color::Red } else { Color::Yellow })
    }

    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn dim(self) -> Style {
        if self.color { Style::new().fg(Color::DarkGray) } else { Style::new() }
    }

    pub fn added(self) -> Style {
        self.fg(Color::Green)
    }

    pub fn removed(self) -> Style {
        self.fg(Color::Red)
    }

    /// A changed word inside a changed line.
    pub fn changed_word(self, added: bool) -> Style {
        let base = if added { self.added() } else { self.removed() };
        if self.color {
            base.add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        }
    }

    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
}
