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
