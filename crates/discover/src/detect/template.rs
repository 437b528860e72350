//! Prompt templates: a long request whose frame (its headings, instructions and steps) is said
//! again in other sessions with other details filled in. A custom prompt or command file expanded
//! as the request looks like this; a request typed by hand never repeats a dozen lines.

/// Lines a template's frame needs before two requests can be one template.
pub const MIN_LINES: usize = 6;

/// The lines of a request that can belong to a frame: trimmed, three characters or more.
pub fn frame_lines(request: &str) -> Vec<&str> {
    request.lines().map(str::trim).filter(|l| l.chars().count() >= 3).collect()
}

/// The request's title: its first line when that is a top-level markdown heading (`# Title`).
pub fn title(request: &str) -> Option<&str> {
    let first = request.lines().map(str::trim).find(|l| !l.is_empty())?;
    let text = first.strip_prefix("# ")?.trim();
    (!text.is_empty()).then_some(text)
}

/// Whether two requests are the same template with other details: each has at least
/// `MIN_LINES` frame lines, at least half of each one's lines are the other's too, and their
/// titles, when both have one, are the same (the title says which template it is).
pub fn share_frame(a: &str, b: &str) -> bool {
    if let (Some(x), Some(y)) = (title(a), title(b))
        && x != y
    {
        return false;
    }
    let (la, lb) = (frame_lines(a), frame_lines(b));
    if la.len() < MIN_LINES || lb.len() < MIN_LINES {
        return false;
    }
    let sa: std::collections::HashSet<&str> = la.iter().copied().collect();
    let sb: std::collections::HashSet<&str> = lb.iter().copied().collect();
    let shared: Vec<&str> = sa.intersection(&sb).copied().collect();
    // A prompt says what to do in sentences; a command pasted twice (its option lines) does not.
    let prose = shared.iter().filter(|l| is_prose(l)).count();
    shared.len() >= MIN_LINES
        && prose >= MIN_PROSE
        && shared.len() * 2 >= sa.len()
        && shared.len() * 2 >= sb.len()
}

/// Sentences a frame needs: lines of three words or more.
const MIN_PROSE: usize = 3;

/// Whether a line is a sentence: three words or more made of letters.
fn is_prose(line: &str) -> bool {
    line.split_whitespace()
        .filter(|w| {
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            letters >= 2 && letters * 2 > w.chars().count()
        })
        .count()
        >= 3
}

/// The first command a frame tells the agent to run: a backquoted text whose head is a command
/// with a path or options (`.specify/scripts/bash/check-prerequisites.sh --json`).
pub fn first_command<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().find_map(|line| {
        line.split('`').skip(1).step_by(2).find(|inner| {
            let inner = inner.trim();
            let head = inner.split_whitespace().next().unwrap_or("");
            inner.contains(' ')
                && (head.contains('/') || inner.split_whitespace().any(|w| w.starts_with("--")))
                && !inner.contains('\n')
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: &str, title: &str) -> String {
        format!(
            "{title}\n\n## User Input\n\n```text\n{input}\n```\n\nYou MUST consider the user input.\n\n## Outline\n\n1. Run `.specify/scripts/bash/check.sh --json --require-tasks` from repo root.\n2. Load the tasks file.\n3. Implement the named tasks.\n4. Mark them done.\n5. Report."
        )
    }

    #[test]
    fn the_same_frame_with_other_input_is_one_template() {
        assert!(share_frame(&expanded("phase 1", ""), &expanded("T006~T011", "")));
        assert!(!share_frame(&expanded("x", "# Run the check"), &expanded("x", "# Change it")));
        assert!(!share_frame("fix the login bug", "fix the login bug"));
        let pasted = |url: &str| {
            format!(
                "curl '{url}' \\\n  -H 'Accept: */*' \\\n  -H 'Accept-Language: ru-RU,ru;q=0.9' \\\n  -H 'Connection: keep-alive' \\\n  -H 'Origin: https://kinescope.io' \\\n  -H 'Range: bytes=0-' \\\n  -H 'Sec-Fetch-Mode: cors'"
            )
        };
        assert!(!share_frame(&pasted("https://cdn/a.mp4"), &pasted("https://cdn/b.mp4")));
    }

    #[test]
    fn a_frame_names_the_command_it_runs_first() {
        let text = expanded("phase 1", "");
        assert_eq!(
            first_command(&frame_lines(&text)),
            Some(".specify/scripts/bash/check.sh --json --require-tasks")
        );
        assert_eq!(
            title("\n# Run the requirements check\n## Purpose"),
            Some("Run the requirements check")
        );
    }
}
