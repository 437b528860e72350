//! The checks a draft lists: the tests, lint, typecheck, build and format commands the sessions
//! ran, and the ways they looked at the result (a restart and its log, a page opened or read in
//! the browser), each with its real command. A test command pinned to the one file a session
//! tested takes a `<test-file>` placeholder instead.

use crate::step;
use crate::workflow::{CheckKind, StepKind, WorkflowStep};

/// One check: what it verifies (`Test`, `Lint`, `Page`, ...) and its command.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub label: &'static str,
    pub command: String,
}

fn kind_label(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Build => "Build",
        CheckKind::Test => "Test",
        CheckKind::Lint => "Lint",
        CheckKind::Format => "Format",
    }
}

/// The check `step` is, written as `template` (the draft's form of its command).
pub fn of_step(step: &WorkflowStep, template: &str) -> Option<Check> {
    let label = match step.kind {
        StepKind::Shell => step.check.map(kind_label).or_else(|| label_of(template))?,
        StepKind::Mcp if is_browser(&step.template) => "Page",
        _ => return None,
    };
    Some(Check { label, command: general(template) })
}

/// The check a fix command is (`mix format`, `npm run typecheck`), if it is one.
pub fn of_command(command: &str) -> Option<Check> {
    let first = command.split_whitespace().next()?;
    if matches!(first, "Read" | "Edit" | "Write" | "MultiEdit" | "apply_patch") {
        return None;
    }
    let label = label_of(command)?;
    Some(Check { label, command: general(command) })
}

/// A check's label from its command words.
fn label_of(command: &str) -> Option<&'static str> {
    let words: Vec<&str> =
        command.split_whitespace().take_while(|w| !matches!(*w, "|" | "&&" | ";")).collect();
    let plain: Vec<&str> = words.iter().copied().filter(|w| !w.starts_with('-')).take(3).collect();
    for n in (1..=plain.len()).rev() {
        if let Some(kind) = step::check_kind(&format!("sh:{}", plain[..n].join(" "))) {
            return Some(kind_label(kind));
        }
    }
    let head: Vec<&str> = plain.iter().copied().take(2).collect();
    let joined = head.join(" ");
    Some(match joined.as_str() {
        "mix test" | "rspec" | "bundle exec" | "phpunit" => "Test",
        "mix compile" | "go build" | "make" | "npm run"
            if words.iter().any(|w| w.contains("build")) =>
        {
            "Build"
        }
        "mix compile" => "Build",
        "mix credo" | "mix dialyzer" => "Lint",
        "mix format" => "Format",
        _ if words.iter().any(|w| w.contains("typecheck") || *w == "tsc") => "Typecheck",
        _ if head.first().is_some_and(|p| matches!(*p, "open" | "xdg-open"))
            && words.iter().any(|w| w.contains(".html") || w.starts_with("http")) =>
        {
            "Page"
        }
        _ if head.first() == Some(&"curl")
            && words.iter().any(|w| w.contains("localhost") || w.contains("127.0.0.1")) =>
        {
            "Request"
        }
        _ if words.iter().any(|w| w.contains("restart")) => "Restart",
        _ if words.iter().any(|w| *w == "logs" || w.ends_with(".log"))
            && !words.iter().any(|w| w.contains("rm")) =>
        {
            "Log"
        }
        _ => return None,
    })
}

fn is_browser(tool: &str) -> bool {
    let t = tool.to_lowercase();
    t.contains("playwright")
        || t.contains("browser_")
        || t.contains("chrome")
        || t.contains("puppeteer")
}

/// A test command pinned to one test file takes `<test-file>` for it: the check is the runner,
/// the file is the one at hand.
pub fn general(command: &str) -> String {
    command
        .split_whitespace()
        .map(|w| {
            let l = w.to_lowercase();
            let is_file = !w.starts_with(['-', '<'])
                && w.contains('/')
                && w.rsplit('/').next().is_some_and(|f| f.contains('.'))
                && (l.contains("test") || l.contains("spec"));
            if is_file { "<test-file>".to_string() } else { w.to_string() }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_are_named_and_a_pinned_test_file_is_a_placeholder() {
        let c = of_command("npx vitest apps/api/tests/integration/moderation.test.ts").unwrap();
        assert_eq!((c.label, c.command.as_str()), ("Test", "npx vitest <test-file>"));
        assert_eq!(of_command("mix format").unwrap().label, "Format");
        assert_eq!(of_command("mix credo --strict").unwrap().label, "Lint");
        assert_eq!(of_command("npm run typecheck").unwrap().label, "Build");
        assert_eq!(of_command("pnpm typecheck").unwrap().label, "Typecheck");
        assert_eq!(of_command("open /Users/x/Downloads/audit.html").unwrap().label, "Page");
        assert_eq!(of_command("docker compose restart api").unwrap().label, "Restart");
        assert_eq!(of_command("Edit *.ex"), None);
        assert_eq!(of_command("bd close x"), None);
    }
}
