//! A block of text a tool manages inside a file a person owns (the lessons block in CLAUDE.md):
//! found between a begin and an end marker line, each carrying the owner's id so two owners never
//! take each other's block. Marker lines inside fenced code (``` or ~~~) are examples, not
//! markers. A begin without its end (or the reverse) is refused rather than guessed at, since
//! guessing deletes the person's text. Line endings follow the file's (CRLF stays CRLF).

/// The begin and end marker lines of one owner's block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    /// `<!-- PREFIX:begin`, what every begin line starts with.
    begin_prefix: String,
    /// `<!-- PREFIX:end`.
    end_prefix: String,
    id: String,
    note: String,
}

impl Markers {
    /// Markers `<!-- PREFIX:begin ws=ID (NOTE) -->` and `<!-- PREFIX:end ws=ID -->`.
    pub fn new(prefix: &str, id: &str, note: &str) -> Markers {
        Markers {
            begin_prefix: format!("<!-- {prefix}:begin"),
            end_prefix: format!("<!-- {prefix}:end"),
            id: id.to_string(),
            note: note.to_string(),
        }
    }

    pub fn begin(&self) -> String {
        format!("{} ws={} ({}) -->", self.begin_prefix, self.id, self.note)
    }

    pub fn end(&self) -> String {
        format!("{} ws={} -->", self.end_prefix, self.id)
    }

    /// Whether marker line `rest` (after the prefix) is this owner's: its id, or no id at all
    /// (the markers before ids were added, taken over by whoever rewrites them first).
    fn owns(&self, rest: &str) -> bool {
        match rest.trim_start().strip_prefix("ws=") {
            Some(tail) => tail.split([' ', '-']).next() == Some(self.id.as_str()),
            None => true,
        }
    }
}

/// Where the block is: from the start of its begin line to the end of its end line (without
/// that line's newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// The block of `m` in `text`, if any; an error naming the line when its markers do not pair.
pub fn find(text: &str, m: &Markers) -> Result<Option<Span>, String> {
    let mut fence: Option<(char, usize)> = None;
    let mut begin: Option<(usize, usize)> = None;
    let mut found: Option<Span> = None;
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        let lead = bare.trim_start_matches(' ');
        if let Some(open) = fence_of(lead).filter(|_| bare.len() - lead.len() <= 3) {
            match fence {
                None => fence = Some(open),
                Some((c, len))
                    if open.0 == c && open.1 >= len && lead.trim_end().len() == open.1 =>
                {
                    fence = None
                }
                Some(_) => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let trimmed = bare.trim();
        if let Some(rest) = trimmed.strip_prefix(m.begin_prefix.as_str()) {
            if !m.owns(rest) {
                continue;
            }
            let first = begin.map(|(line, _)| line).or(found.map(|s| line_of(text, s.start)));
            if let Some(first) = first {
                return Err(format!(
                    "line {}: a second lessons block begins (the first at line {first}); \
                     remove one by hand",
                    n + 1
                ));
            }
            begin = Some((n + 1, at));
        } else if let Some(rest) = trimmed.strip_prefix(m.end_prefix.as_str()) {
            if !m.owns(rest) {
                continue;
            }
            let Some((_, start)) = begin.take() else {
                return Err(format!(
                    "line {}: the lessons block's end marker has no begin marker above it; \
                     remove it or restore the begin line by hand",
                    n + 1
                ));
            };
            found = Some(Span { start, end: at + bare.len() });
        }
    }
    if let Some((line, _)) = begin {
        return Err(format!(
            "line {line}: the lessons block's begin marker has no end marker after it; \
             restore the end line (or remove the begin line) by hand"
        ));
    }
    Ok(found)
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// A fence opening or closing line: three or more backticks or tildes.
fn fence_of(lead: &str) -> Option<(char, usize)> {
    let c = lead.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = lead.chars().take_while(|x| *x == c).count();
    (len >= 3).then_some((c, len))
}

/// The newline `text` uses: CRLF when its first line ends so.
pub fn newline_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// `body` (lines joined with `\n`) between `m`'s markers, in `nl` line endings.
pub fn render(m: &Markers, body: &str, nl: &str) -> String {
    let text = format!("{}\n{}{}", m.begin(), body, m.end());
    if nl == "\n" { text } else { text.replace('\n', nl) }
}

/// `text` with its block replaced by `body`, or the block appended after one newline.
pub fn with_block(text: &str, m: &Markers, body: &str) -> Result<String, String> {
    if let Some(s) = find(text, m)? {
        // The block keeps its own newline (a bare-CR file's block has LF).
        let block = render(m, body, newline_of(&text[s.start..]));
        return Ok(format!("{}{block}{}", &text[..s.start], &text[s.end..]));
    }
    let nl = newline_of(text);
    let block = render(m, body, nl);
    if text.is_empty() {
        return Ok(format!("{block}{nl}"));
    }
    Ok(format!("{text}{nl}{block}{nl}"))
}

/// `text` without its block and the two newlines appending it added; `None` when it has none.
pub fn without_block(text: &str, m: &Markers) -> Result<Option<String>, String> {
    let Some(Span { mut start, mut end }) = find(text, m)? else { return Ok(None) };
    // The newline appending used is the block's own (the file's, when it was written): a file
    // whose lines end in a bare CR got LF, and its last CR is its own.
    let nl = newline_of(&text[start..]);
    if text[end..].starts_with(nl) {
        end += nl.len();
    }
    if text[..start].ends_with(nl) {
        start -= nl.len();
    }
    Ok(Some(format!("{}{}", &text[..start], &text[end..])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: &str) -> Markers {
        Markers::new("tool:block", id, "written by tool")
    }

    #[test]
    fn install_then_uninstall_gives_the_same_bytes() {
        for original in
            ["", "# P\n", "# P\nno newline", "a\n\n\n", "a\r\nb\r\n", "a\r\nb", "a\rb\r", "a\rb"]
        {
            let with = with_block(original, &m("x"), "body\n").unwrap();
            assert_eq!(with_block(&with, &m("x"), "body\n").unwrap(), with, "idempotent");
            assert_eq!(without_block(&with, &m("x")).unwrap().as_deref(), Some(original));
            if original.contains("\r\n") {
                assert!(!with.replace("\r\n", "").contains('\n'), "{with:?}");
            }
        }
    }

    #[test]
    fn unmatched_markers_are_refused_with_their_line() {
        let with = with_block("# P\n", &m("x"), "b\n").unwrap();
        let no_end = format!("{}\nmine\n", with.replace(&m("x").end(), ""));
        let e = find(&no_end, &m("x")).unwrap_err();
        assert!(e.starts_with("line 3:") && e.contains("no end marker"), "{e}");
        let no_begin = with.replace(&m("x").begin(), "");
        assert!(find(&no_begin, &m("x")).unwrap_err().contains("no begin marker"));
        let two = format!("{with}{with}");
        assert!(find(&two, &m("x")).unwrap_err().contains("second"));
    }

    #[test]
    fn fenced_examples_and_other_owners_are_not_markers() {
        let example = format!("```md\n{}\n{}\n```\n", m("x").begin(), m("x").end());
        let other = with_block("", &m("y"), "theirs\n").unwrap();
        let text = format!("# P\n{example}{other}");
        assert_eq!(find(&text, &m("x")).unwrap(), None);
        let with = with_block(&text, &m("x"), "mine\n").unwrap();
        assert!(with.starts_with(&text), "{with}");
        assert_eq!(without_block(&with, &m("x")).unwrap().as_deref(), Some(text.as_str()));
        // A fence quoting a lone begin marker does not make the real block unmatched.
        let lone = format!("~~~\n{}\n~~~\n{with}", m("x").begin());
        assert!(find(&lone, &m("x")).unwrap().is_some());
    }
}
