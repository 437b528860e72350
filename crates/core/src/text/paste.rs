//! Text a person pasted from a tool: a check's failing output (test, lint, build or compiler
//! output) rather than words of their own.

/// Lines read to tell pasted output.
const PASTE_LINES: usize = 200;

/// Whether a request is mostly a check's failing output pasted in (test, lint, build or
/// compiler output): three lines or more, half of them shaped like tool output (a `file:line`,
/// an indented or quoted line, a line naming an error, a failure or a warning), and a failure
/// said somewhere. Told by its shape, in any language the person writes around it.
pub fn is_failing_output(request: &str) -> bool {
    let lines: Vec<&str> =
        request.lines().filter(|l| !l.trim().is_empty()).take(PASTE_LINES).collect();
    if lines.len() < 3 {
        return false;
    }
    let shaped: Vec<&&str> = lines.iter().filter(|l| output_line(l)).collect();
    if 5 * shaped.len() < 3 * lines.len() {
        return false;
    }
    shaped.iter().any(|l| {
        let lower = l.to_lowercase();
        ["fail", "error", "exception", "traceback", "assert", "panicked", "✗", "×"]
            .iter()
            .any(|w| lower.contains(w))
    })
}

/// A line shaped like a tool's output rather than a sentence or a markdown list.
fn output_line(line: &str) -> bool {
    let located = line.split([' ', '(', ')', '\'', '"']).any(|w| {
        // `src/a.ts:41:12`, `a.rs:3`
        w.split_once(':').is_some_and(|(f, rest)| {
            f.contains(['.', '/']) && rest.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
    });
    let trimmed = line.trim_start();
    let list = trimmed.starts_with(['-', '*', '+'])
        || trimmed.split_once(". ").is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()));
    let indented = line.starts_with("  ") || line.starts_with('\t');
    // A file's path alone on its line (a linter's heading).
    let path = !trimmed.contains(' ') && trimmed.contains('/') && trimmed.contains('.');
    located
        || path
        || (indented && !list)
        || line.starts_with(['>', '|', '⎯', '─', '━', '✓', '✗', '×', '❯', '→'])
        || [
            "Error",
            "error:",
            "FAIL",
            "failed",
            "Warning",
            "warning:",
            "Expected",
            "Received",
            "exit code",
            "Traceback",
            "stderr",
            "stdout",
            "npm ERR",
        ]
        .iter()
        .any(|w| line.contains(w))
}
