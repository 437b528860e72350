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

/// Fence languages whose every line is a command.
const SHELL: [&str; 6] = ["bash", "sh", "shell", "zsh", "fish", "powershell"];

/// Code that reads as a shell command: the lines of a shell block (`bash`, `sh`, …), the
/// `$ `-prefixed lines of any other block (a `console` session, an unlabelled block; a
/// JavaScript or Python example yields none), comments left out, and inline spans whose first
/// word looks like a program.
pub fn code_commands(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Inside a block: whether each line is a command (shell) or only `$ ` lines are.
    let mut fence: Option<bool> = None;
    for line in body.lines() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```").or_else(|| t.strip_prefix("~~~")) {
            fence = match fence {
                Some(_) => None,
                None => {
                    let lang = info.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
                    Some(SHELL.contains(&lang.as_str()))
                }
            };
            continue;
        }
        if let Some(shell) = fence {
            let cmd = match (t.strip_prefix("$ "), shell) {
                (Some(cmd), _) => cmd,
                (None, true) => t,
                (None, false) => continue,
            };
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

    #[test]
    fn only_shell_blocks_and_prompted_lines_are_commands() {
        let body = "```javascript
let seed = 42
let params = f(seed)
function go() {}
```
                    ```
npm run build
$ npm test
```
                    ```console
$ cargo publish --dry-run
   Packaging crate v1
```
                    ```bash
make release
```
";
        assert_eq!(of_body(body), ["sh:npm test", "sh:cargo publish", "sh:make release"]);
    }
}
