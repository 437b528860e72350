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
    }
}
