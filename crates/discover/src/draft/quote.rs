//! Transcript text inside a draft: only ever quoted (code spans, block quotes), with control and
//! invisible characters shown as escapes (`text::injection::reveal`), never as running prose the
//! agent would take for an instruction.

use crate::text::injection::reveal;

/// `text` on one line (whitespace runs become one space), at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&joined, max)
}

/// At most `max` characters, `…` marking a cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A Markdown code span that holds `text` (revealed, on one line) whatever backticks it holds:
/// the fence is one backtick longer than the longest run inside.
pub fn code(text: &str, max: usize) -> String {
    let body = one_line(&reveal(text), max);
    let run = longest_backtick_run(&body);
    let fence = "`".repeat(run + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// A code span of a command too long to show whole: its first words and its last (what it runs
/// and where its output goes), `…` between them; whole words only.
pub fn command(text: &str, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    if joined.chars().count() <= max {
        return code(&joined, max);
    }
    let width = |ws: &[&str]| ws.iter().map(|w| w.chars().count() + 1).sum::<usize>();
    let mut tail = words.len();
    // The last two words (an option and its value) up to half the line, more up to a third.
    while tail > 1 && {
        let w = width(&words[tail - 1..]);
        w <= max / 3 || (words.len() - tail < 2 && w <= max / 2)
    } {
        tail -= 1;
    }
    // The tail starts outside a quoted value.
    let odd = |ws: &[&str]| {
        let t = ws.join(" ");
        t.matches('\'').count() % 2 == 1 || t.matches('"').count() % 2 == 1
    };
    while tail < words.len() && odd(&words[tail..]) {
        tail += 1;
    }
    let mut head = 0;
    while head < tail && width(&words[..=head]) + width(&words[tail..]) + 2 <= max {
        head += 1;
    }
    // A command already cut (`a … b`) keeps its own cut: the head ends and the tail starts there.
    let head_words = &words[..head.max(1)];
    let head_words =
        &head_words[..head_words.iter().position(|w| *w == "…").unwrap_or(head_words.len())];
    let tail_words = &words[tail..];
    let tail_words = &tail_words[tail_words.iter().rposition(|w| *w == "…").map_or(0, |i| i + 1)..];
    let (first, last) = (head_words.join(" "), tail_words.join(" "));
    if last.is_empty() {
        return code(&joined, max);
    }
    code(&format!("{first} … {last}"), max + 4)
}

fn longest_backtick_run(text: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// A Markdown block quote of `text` (revealed, at most `max` characters, lines kept).
pub fn block_quote(text: &str, max: usize) -> String {
    let body = clip(reveal(text.trim()).as_ref(), max);
    let mut out = String::new();
    for line in body.lines() {
        if line.trim().is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// For a double-quoted phrase inside prose (the description): one line, no double quotes.
pub fn phrase(text: &str, max: usize) -> String {
    one_line(&reveal(text), max).replace(['"', '`'], "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_backticks_and_reveal() {
        assert_eq!(code("git tag v<version>", 80), "`git tag v<version>`");
        assert_eq!(code("echo `date`", 80), "`` echo `date` ``");
        assert_eq!(code("a``b", 80), "```a``b```");
        assert_eq!(code("`x`", 80), "`` `x` ``");
        assert_eq!(code("rm\x1b[2J\u{200B}", 80), "`rm\\x1b[2J\\u{200b}`");
        assert_eq!(code("cargo\n  test", 80), "`cargo test`");
    }

    #[test]
    fn block_quotes_stay_quoted() {
        assert_eq!(block_quote("a\n\n## Steps\nb", 100), "> a\n>\n> ## Steps\n> b\n");
        assert_eq!(block_quote("abcdef", 4), "> abc…\n");
        let long = format!(
            "curl https://cdn.example.net/{} -H 'x: y' -o ~/Desktop/<file>",
            "a".repeat(40)
        );
        assert_eq!(command(&long, 40), "`curl … -o ~/Desktop/<file>`");
        assert_eq!(command("git push", 40), "`git push`");
        assert_eq!(
            command(&format!("curl {} -H … -H 'x: y' -o out.mp4", "a".repeat(30)), 40),
            "`curl … -o out.mp4`"
        );
    }
}
