//! What a draft becomes when it goes live (promote, approve): its staging-only parts stripped.
//! The agent reads a live SKILL.md, so it carries no review notice, no `skilldeck-*` draft
//! metadata (`skilldeck-needs-review`, `-auto-drafted`, `-source`, `-evidence-count`, …) and not
//! the name it was drafted under (a proposed version drafted as `release-crate-25f5e151` speaks
//! of the skill by its own name in its title and description too). Provenance stays in the
//! database and the package manifest.

use crate::lifecycle::files::{front_matter, with_name};

/// Metadata that belongs to a live skill rather than to its draft: a package's identity and an
/// acquired code skill's kind and hash.
const KEPT: [&str; 3] = ["skilldeck-package-", "skilldeck-kind", "skilldeck-sha256"];

/// The first line of the notice a draft opens with.
const NOTICE: &str = "> **Draft awaiting review.**";

/// `draft` as the live SKILL.md of the skill `name`. Idempotent: live text comes back as it is.
pub fn live_text(draft: &str, name: &str) -> String {
    let drafted = front_matter(draft).name.unwrap_or_default();
    let text = with_name(&strip(draft), name);
    if drafted.is_empty() || drafted == name {
        return text;
    }
    // Every form the drafting wrote the name in: as is, in words, and capitalised as a title.
    let forms = [
        (titled(&drafted), titled(name)),
        (drafted.replace('-', " "), name.replace('-', " ")),
        (drafted.clone(), name.to_string()),
    ];
    forms.iter().fold(text, |text, (from, to)| text.replace(from.as_str(), to))
}

fn titled(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => words,
    }
}

/// Drops the draft's metadata keys (and a `metadata:` left empty) and the review notice.
fn strip(draft: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let lines: Vec<&str> = draft.split_inclusive('\n').collect();
    let bare = |l: &str| l.trim_end_matches(['\n', '\r']).to_string();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut front = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let text = bare(line);
        if i == 0 && text.trim() == "---" {
            front = true;
        } else if front && text.trim() == "---" {
            front = false;
        } else if front && text.trim_end() == "metadata:" {
            // The block: the lines below indented deeper than `metadata:`.
            let mut end = i + 1;
            while end < lines.len() && !bare(lines[end]).trim().is_empty() {
                if indent(lines[end]) <= indent(line) {
                    break;
                }
                end += 1;
            }
            let kept = kept_entries(&lines[i + 1..end]);
            if !kept.is_empty() {
                out.push(line);
                out.extend(kept);
            }
            i = end;
            continue;
        } else if !front && text.starts_with(NOTICE) {
            // The notice's paragraph and the blank line after it.
            while i < lines.len() && bare(lines[i]).starts_with('>') {
                i += 1;
            }
            if i < lines.len() && bare(lines[i]).trim().is_empty() {
                i += 1;
            }
            continue;
        }
        out.push(line);
        i += 1;
    }
    out.concat()
}

/// The lines of a metadata block without its draft-only keys (each key with the lines nested
/// under it).
fn kept_entries<'a>(block: &[&'a str]) -> Vec<&'a str> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let Some(key_indent) = block.first().map(|l| indent(l)) else { return Vec::new() };
    let mut kept = Vec::new();
    let mut dropping = false;
    for line in block {
        if indent(line) <= key_indent {
            let key = line.trim_start();
            dropping = key.starts_with("skilldeck-") && !KEPT.iter().any(|k| key.starts_with(k));
        }
        if !dropping {
            kept.push(*line);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAFT: &str = "---\nname: release-crate-25f5e151\ndescription: \"Release crate 25f5e151 \
        the way it was done in 3 sessions. Use when asked to release crate 25f5e151.\"\nmetadata:\n  \
        skilldeck-auto-drafted: \"true\"\n  skilldeck-needs-review: \"true\"\n  triggers:\n    - \
        cut a release\n  skilldeck-evidence-count: \"3\"\n---\n\n# Release crate 25f5e151\n\n> \
        **Draft awaiting review.** skilldeck drafted this skill.\n> Check it.\n\nRun the steps.\n";

    #[test]
    fn a_live_skill_has_no_notice_no_draft_metadata_and_its_own_name() {
        let live = live_text(DRAFT, "release-crate");
        assert_eq!(
            live,
            "---\nname: release-crate\ndescription: \"Release crate the way it was done in 3 \
             sessions. Use when asked to release crate.\"\nmetadata:\n  triggers:\n    - cut a \
             release\n---\n\n# Release crate\n\nRun the steps.\n"
        );
        assert_eq!(live_text(&live, "release-crate"), live);
    }

    #[test]
    fn an_empty_metadata_block_goes_and_package_metadata_stays() {
        let text =
            "---\nname: a\ndescription: d\nmetadata:\n  skilldeck-source: \"x\"\n---\nbody\n";
        assert_eq!(live_text(text, "a"), "---\nname: a\ndescription: d\n---\nbody\n");
        let pkg = "---\nname: a\nmetadata:\n  skilldeck-package-id: \"p\"\n---\n";
        assert_eq!(live_text(pkg, "a"), pkg);
    }
}
