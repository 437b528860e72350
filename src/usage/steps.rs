//! The steps a skill stands for.

use crate::step;

/// Longest code text read as a command.
const MAX_COMMAND: usize = 300;

/// Step keys a SKILL.md body names: each command in an inline code span or a fenced block line
/// (`cargo test`, `git tag v1`) becomes its shell step keys; steps every agent does anyway
/// (`sh:ls`, `sh:git status`, reads) are left out, as discovery leaves them out. In order, each
/// once.
pub fn of_body(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for command in code_commands(body) {
        for key in step::shell(&command).step.lines() {
            if key != "sh:" && !step::is_generic(key) && !out.iter().any(|k| k == key) {
                out.push(key.to_string());
            }
        }
    }
    out
}

/// The specific steps of a workflow's step keys, in order (generic and waiting steps dropped).
pub fn specific(keys: &[String]) -> Vec<String> {
    keys.iter()
        .filter(|k| !k.is_empty() && !step::is_generic(k) && !step::is_transparent(k))
        .cloned()
        .collect()
}

/// Code that reads as a shell command: fenced block lines (without `$ ` prompts and comments)
/// and inline spans whose first word looks like a program.
pub fn code_commands(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let cmd = t.strip_prefix("$ ").unwrap_or(t);
            if looks_like_command(cmd) {
                out.push(cmd.to_string());
            }
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            let span = after[..end].trim();
            if looks_like_command(span) {
                out.push(span.to_string());
            }
            rest = &after[end + 1..];
        }
    }
    out
}

fn looks_like_command(text: &str) -> bool {
    if text.is_empty() || text.len() > MAX_COMMAND || text.starts_with('#') {
        return false;
    }
    let first = text.split_whitespace().next().unwrap_or("");
    // A program name, and a subcommand or argument after it: `cargo test`, `make release`.
    text.contains(' ')
        && first.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && first.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_./".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_code_spans_and_blocks_become_specific_steps() {
        let body = "# Release\n\nRun `cargo test` first, then bump `Cargo.toml`.\n\n```sh\n$ git tag v1.2.0\ngit push --tags\nls -la\n# a comment\n```\nSee `SKILL.md` and `--force`.\n";
        assert_eq!(of_body(body), ["sh:cargo test", "sh:git tag", "sh:git push"]);
    }
}
