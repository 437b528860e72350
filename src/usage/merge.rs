//! The mechanical merge of two overlapping skills into one SKILL.md: the surviving skill's front
//! matter and body, its description extended with the absorbed one's, and the absorbed body's
//! lines that the survivor lacks under a heading naming where they came from. No model is needed;
//! where `draft.command` is configured, its output replaces this text.

/// Longest description the Agent Skills spec allows.
const MAX_DESCRIPTION: usize = 1024;

/// Splits a SKILL.md into (front matter lines without the fences, body).
fn split(content: &str) -> (Vec<&str>, &str) {
    let Some(rest) = content.strip_prefix("---\n").or_else(|| content.strip_prefix("---\r\n"))
    else {
        return (Vec::new(), content);
    };
    match rest.find("\n---") {
        Some(end) => {
            let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
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

/// The merged SKILL.md of `survivor` absorbing `absorbed` (each: name, description, content).
pub fn merged(survivor: (&str, &str, &str), absorbed: (&str, &str, &str)) -> String {
    let (name, description, content) = survivor;
    let (other, other_description, other_content) = absorbed;
    let (front, body) = split(content);
    let (_, other_body) = split(other_content);
    let mut desc = description.trim().to_string();
    let extra = other_description.trim();
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
    out.push_str("---\n\n");
    out.push_str(body.trim_end());
    out.push('\n');
    let have: std::collections::HashSet<&str> =
        body.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let missing: Vec<&str> = other_body
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !have.contains(t)
        })
        .collect();
    if !missing.is_empty() {
        out.push_str(&format!("\n## Also (from {other})\n\n"));
        for line in missing {
            // The absorbed skill's headings sit under the new one.
            if line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
            out.push('\n');
        }
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
            "---\nname: release\ndescription: \"Release the crate. Also: Publish to crates.io.\"\nlicense: MIT\n---\n\n# Release\n"
        ), "{m}");
        assert!(
            m.contains("## Also (from publish)\n\n## Publish\n2. Run `cargo publish`.\n"),
            "{m}"
        );
        assert_eq!(m.matches("cargo test").count(), 1, "shared lines once: {m}");
        let fm = crate::lifecycle::files::front_matter(&m);
        assert_eq!(fm.name.as_deref(), Some("release"));
    }
}
