//! The mechanical merge of two overlapping skills into one SKILL.md: the surviving skill's front
//! matter and body, its description extended with the absorbed one's, and the absorbed body's
//! lines that the survivor lacks under a heading naming where they came from. No model is needed;
//! where `draft.command` is configured, its output replaces this text.

/// Longest description the Agent Skills spec allows.
const MAX_DESCRIPTION: usize = 1024;

/// A piece of a body compared whole: a heading, a line, or a fenced code block (fence lines
/// and all, so code never leaves its fence and a quoted line never loses its `>`).
struct Unit {
    heading: bool,
    text: String,
}

fn units(body: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut fence: Option<(String, String)> = None;
    for line in body.lines() {
        let t = line.trim_end();
        if let Some((marker, text)) = &mut fence {
            text.push('\n');
            text.push_str(t);
            if t.trim_start().starts_with(marker.as_str()) && t.trim() == marker.as_str() {
                out.push(Unit { heading: false, text: std::mem::take(text) });
                fence = None;
            }
            continue;
        }
        let trimmed = t.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let ch = trimmed.chars().next().unwrap_or('`');
            let marker: String = trimmed.chars().take_while(|&c| c == ch).collect();
            fence = Some((marker, t.to_string()));
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        out.push(Unit { heading: trimmed.starts_with('#'), text: t.to_string() });
    }
    if let Some((marker, mut text)) = fence {
        // An unclosed fence is closed, so what follows the merge is not code.
        text.push('\n');
        text.push_str(&marker);
        out.push(Unit { heading: false, text });
    }
    out
}

/// Splits a SKILL.md into (front matter lines without the fences, body).
fn split(content: &str) -> (Vec<&str>, &str) {
    let Some(rest) = content.strip_prefix("---\n").or_else(|| content.strip_prefix("---\r\n"))
    else {
        return (Vec::new(), content);
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            let body =
                after.strip_prefix("\r\n").or_else(|| after.strip_prefix('\n')).unwrap_or(after);
            (rest[..end].lines().collect(), body)
        }
        None => (Vec::new(), content),
    }
}

/// The front matter without `name` and `description` (and their continuation lines).
fn other_keys<'a>(front: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in front {
        let top = !line.starts_with([' ', '\t']);
        if top {
            skipping = line.starts_with("name:") || line.starts_with("description:");
        }
        if !skipping {
            out.push(*line);
        }
    }
    out
}

fn yaml_quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One step, command or check of a skill a merge must keep.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Item {
    /// `step` (a list item), `command` (code that reads as a shell command) or `check` (a line
    /// that says to check, verify, ensure, confirm or test something).
    pub kind: &'static str,
    /// The skill it comes from.
    pub from: String,
    pub text: String,
    /// Whether the merged text still holds it (whitespace aside).
    pub kept: bool,
}

/// Words that make a line a check.
const CHECK_WORDS: &[&str] =
    &["check", "verify", "ensure", "confirm", "make sure", "assert", "must", "test"];

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every step, command and check of each skill in `sides` (name, SKILL.md), and whether
/// `merged` keeps it: what a merge proposal lists so a reviewer sees anything it drops.
pub fn coverage(sides: &[(&str, &str)], merged: &str) -> Vec<Item> {
    let (_, merged_body) = split(merged);
    let have = squeeze(merged_body);
    let mut out: Vec<Item> = Vec::new();
    for (name, content) in sides {
        let (_, body) = split(content);
        let mut push = |kind: &'static str, text: String| {
            let text = squeeze(&text);
            if !text.is_empty() && !out.iter().any(|i| i.from == *name && i.text == text) {
                let kept = have.contains(&text);
                out.push(Item { kind, from: name.to_string(), text, kept });
            }
        };
        let mut fenced = false;
        for line in body.lines() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if fenced || t.is_empty() || t.starts_with('#') || t.starts_with('>') {
                continue;
            }
            let item = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).or_else(|| {
                t.split_once(". ").filter(|(n, _)| n.parse::<u32>().is_ok()).map(|(_, r)| r)
            });
            // Words in prose, not in code (`cargo test` is a command, not a check).
            let prose: String = t.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            let lower = prose.to_lowercase();
            if CHECK_WORDS.iter().any(|w| lower.contains(w)) {
                push("check", item.unwrap_or(t).to_string());
            } else if let Some(step) = item {
                push("step", step.to_string());
            }
        }
        for command in super::steps::code_commands(body) {
            push("command", command);
        }
    }
    out
}

/// `content` with its front matter's description replaced by `description` (the other keys and
/// the body as they were).
pub fn with_description(content: &str, name: &str, description: &str) -> String {
    let (front, body) = split(content);
    let mut out = format!("---\nname: {name}\ndescription: {}\n", yaml_quote(description));
    for line in other_keys(&front) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

/// The merged SKILL.md of `survivor` absorbing `absorbed` (each: name, description, content).
pub fn merged(survivor: (&str, &str, &str), absorbed: (&str, &str, &str)) -> String {
    let (name, description, content) = survivor;
    let (other, other_description, other_content) = absorbed;
    let (front, body) = split(content);
    let (_, other_body) = split(other_content);
    let mut desc = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let extra = other_description.split_whitespace().collect::<Vec<_>>().join(" ");
    let extra = extra.as_str();
    if !extra.is_empty() && !desc.contains(extra) {
        desc = format!("{desc} Also: {extra}");
    }
    if desc.len() > MAX_DESCRIPTION {
        let mut end = MAX_DESCRIPTION;
        while !desc.is_char_boundary(end) {
            end -= 1;
        }
        desc.truncate(end);
    }
    let mut out = format!("---\nname: {name}\ndescription: {}\n", yaml_quote(&desc));
    for line in other_keys(&front) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("---\n");
    // The survivor's body as it was, blank line after the front matter or not.
    out.push_str(body.trim_end());
    out.push('\n');
    let have: std::collections::HashSet<String> =
        units(body).into_iter().filter(|u| !u.heading).map(|u| u.text).collect();
    let mut added = String::new();
    let mut heading: Option<String> = None;
    for unit in units(other_body) {
        if unit.heading {
            heading = Some(unit.text);
            continue;
        }
        if have.contains(&unit.text) {
            continue;
        }
        // A heading of the absorbed skill comes along only with something under it, one level
        // down so it sits under the new section.
        if let Some(h) = heading.take() {
            added.push_str(&format!("\n#{h}\n\n"));
        }
        added.push_str(&unit.text);
        added.push('\n');
    }
    if !added.is_empty() {
        out.push_str(&format!("\n## Also (from {other})\n"));
        if !added.starts_with('\n') {
            out.push('\n');
        }
        out.push_str(&added);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survivor_keeps_its_text_and_gains_what_the_absorbed_skill_adds() {
        let a = "---\nname: release\ndescription: Release the crate.\nlicense: MIT\n---\n# Release\n\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n";
        let b = "---\nname: publish\ndescription: >\n  Publish to crates.io.\n---\n# Publish\n\n1. Run `cargo test`.\n2. Run `cargo publish`.\n";
        let m =
            merged(("release", "Release the crate.", a), ("publish", "Publish to crates.io.", b));
        assert!(m.starts_with(
            "---\nname: release\ndescription: \"Release the crate. Also: Publish to crates.io.\"\nlicense: MIT\n---\n# Release\n"
        ), "{m}");
        assert!(
            m.contains("## Also (from publish)\n\n## Publish\n\n2. Run `cargo publish`.\n"),
            "{m}"
        );
        assert_eq!(m.matches("cargo test").count(), 1, "shared lines once: {m}");
        assert!(!m.contains("\n# Publish"), "headings move one level down: {m}");
        let fm = crate::lifecycle::files::front_matter(&m);
        assert_eq!(fm.name.as_deref(), Some("release"));
    }

    #[test]
    fn coverage_lists_every_step_command_and_check_and_flags_what_a_merge_drops() {
        let a =
            "---\nname: a\ndescription: A.\n---\n1. Run `cargo test`.\n2. Check the changelog.\n";
        let b = "---\nname: b\ndescription: B.\n---\n- Tag it.\n\n```sh\ngit push --tags\n```\n";
        let good = merged(("a", "A.", a), ("b", "B.", b));
        let items = coverage(&[("a", a), ("b", b)], &good);
        let listed: Vec<(&str, &str, &str)> =
            items.iter().map(|i| (i.kind, i.from.as_str(), i.text.as_str())).collect();
        assert_eq!(
            listed,
            [
                ("step", "a", "Run `cargo test`."),
                ("check", "a", "Check the changelog."),
                ("command", "a", "cargo test"),
                ("step", "b", "Tag it."),
                ("command", "b", "git push --tags"),
            ]
        );
        assert!(items.iter().all(|i| i.kept), "{items:?}");
        let lossy = good.replace("git push --tags", "git push");
        let dropped: Vec<String> = coverage(&[("a", a), ("b", b)], &lossy)
            .into_iter()
            .filter(|i| !i.kept)
            .map(|i| i.text)
            .collect();
        assert_eq!(dropped, ["git push --tags"]);
    }

    #[test]
    fn code_blocks_and_quotes_move_whole() {
        let a = "---\nname: a\ndescription: A.\n---\n## Steps\n\n```sh\ncargo test\n```\n\n## Example requests\n\n> ship it\n";
        let b = "---\nname: b\ndescription: B.\n---\n## Steps\n\n```sh\ncargo test\ncargo publish\n```\n\n## Example requests\n\n> ship it\n> now, please\n";
        let m = merged(("a", "A.", a), ("b", "B.", b));
        let also = &m[m.find("## Also").expect("an Also section")..];
        assert_eq!(
            also,
            "## Also (from b)\n\n### Steps\n\n```sh\ncargo test\ncargo publish\n```\n\n### Example requests\n\n> now, please\n"
        );
    }
}
