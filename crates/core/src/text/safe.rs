//! The one place that turns untrusted text into text safe for a terminal or a draft.
//!
//! Control characters (C0, DEL, C1) are what terminals act on: `ESC ] 2 ; … BEL` retitles the
//! window, `ESC [ 2 J` clears the screen. They are shown escaped (`\x1b`, `\u{9b}`) instead.
//! So are the bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C):
//! a right-to-left override makes `evil.sh` read as `hs.live` and reorders what follows it.

use std::borrow::Cow;
use std::fmt::Write;

/// For one-line fields (names, paths, statuses): every control character escaped, newlines too.
pub fn inline(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// For multi-line text (prompts, SKILL.md bodies, diffs): newlines and tabs kept, every other
/// control character escaped.
pub fn block(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// Whether `text` holds a character `inline` would escape.
pub fn has_controls(text: &str) -> bool {
    text.chars().any(is_unsafe)
}

/// A bidirectional formatting control: an embedding, override or isolate, or a direction mark.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A character a terminal acts on rather than shows: a control character or a bidi control.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi(c)
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let kept = |c: char| keep_lines && (c == '\n' || c == '\t');
    if !text.chars().any(|c| is_unsafe(c) && !kept(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) && !kept(c) {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if (c as u32) < 0x80 => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_sequences_are_shown_escaped() {
        let hostile = "title\x1b]2;owned\x07 \x1b[2J\u{9b}31m";
        assert_eq!(inline(hostile), "title\\x1b]2;owned\\x07 \\x1b[2J\\u{9b}31m");
        assert!(!inline(hostile).chars().any(char::is_control));
    }

    #[test]
    fn bidi_controls_are_shown_escaped() {
        let hostile = "invoice\u{202E}fdp.exe \u{2066}x\u{2069} \u{200F}";
        assert_eq!(block(hostile), "invoice\\u{202e}fdp.exe \\u{2066}x\\u{2069} \\u{200f}");
        assert!(!inline(hostile).chars().any(is_unsafe));
        assert!(has_controls("a\u{202A}b"));
    }

    #[test]
    fn block_keeps_lines_inline_does_not() {
        assert_eq!(block("a\n\tb\r\n"), "a\n\tb\\r\n");
        assert_eq!(inline("a\nb"), "a\\nb");
        assert!(matches!(inline("plain é"), Cow::Borrowed(_)));
    }
}
