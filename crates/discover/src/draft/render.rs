//! The text of a staged draft: SKILL.md (valid under the Agent Skills spec) and the streak
//! manifest.json.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::CandidateSource;
use crate::model::ToolStep;
use crate::text::{hex::hex, redact, safe, slug};
use crate::workflow::WorkflowEvidence;

/// Everything a draft's text is made from.
pub struct DraftDoc<'a> {
    pub name: &'a str,
    /// `signature` (a success streak) or `sequence` (a recurring tool sequence).
    pub source: CandidateSource,
    pub signature: Option<&'a str>,
    /// Successful turns (streak) or distinct sessions (sequence).
    pub evidence_count: i64,
    pub examples: &'a [String],
    pub steps: &'a [ToolStep],
    /// The mined workflow, when the candidate is one: its steps are listed with their commands.
    pub workflow: Option<&'a WorkflowEvidence>,
}

const MAX_DESCRIPTION: usize = 1024;
const MAX_EXAMPLE_CHARS: usize = 400;

/// `auto-<signature>` for streak drafts, `seq-<tool>-<tool>-...` for sequences; always spec-valid.
pub fn base_name(
    source: CandidateSource,
    signature: Option<&str>,
    steps: &[ToolStep],
    hash: &str,
) -> String {
    let (prefix, text) = match (source, signature) {
        (CandidateSource::Signature, Some(sig)) => ("auto", sig.to_string()),
        _ => {
            let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
            ("seq", names.join(" "))
        }
    };
    let room = 64 - prefix.len() - 1;
    match slug::slug_within(&text, room) {
        Some(s) => format!("{prefix}-{s}"),
        None => format!("{prefix}-{}", &hash_tag(hash)),
    }
}

/// A mined workflow's name: verb + object of its requests, else its most specific step
/// (`draft::naming`).
pub fn workflow_name(w: &WorkflowEvidence) -> String {
    super::naming::base_name(w)
}

/// The same base with a short hash suffix, for when another candidate holds the base name.
pub fn disambiguated(base: &str, hash: &str) -> String {
    let tag = hash_tag(hash);
    let mut head: String = base.chars().take(64 - tag.len() - 1).collect();
    while head.ends_with('-') {
        head.pop();
    }
    format!("{head}-{tag}")
}

fn hash_tag(hash: &str) -> String {
    hex(&Sha256::digest(hash.as_bytes()))[..8].to_string()
}

fn tool_list(steps: &[ToolStep]) -> String {
    let mut names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).take(8).collect();
    if steps.len() > 8 {
        names.push("...");
    }
    names.join(", ")
}

pub fn description(doc: &DraftDoc) -> String {
    if let Some(w) = doc.workflow {
        return super::skill::description(w, doc.name);
    }
    let text = match (doc.source, doc.signature, doc.workflow) {
        (_, _, Some(w)) => {
            let steps: Vec<&str> = w
                .steps
                .iter()
                .filter(|s| !s.optional)
                .map(|s| s.template.as_str())
                .take(5)
                .collect();
            format!(
                "Repeats a workflow seen in {} sessions: {}. Use when a request asks for this same \
                 work again.",
                w.reason.support,
                safe::inline(&steps.join(", then "))
            )
        }
        (CandidateSource::Signature, Some(sig), None) => format!(
            "Repeats the task \"{}\" the way it succeeded {} times in a row. Use when a request \
             is about {} and it should be done the same way again.",
            sig.replace('-', " "),
            doc.evidence_count,
            sig.replace('-', " ")
        ),
        _ => format!(
            "Runs the tool sequence {} that recurred in {} sessions. Use when a task needs these \
             same steps in this order.",
            tool_list(doc.steps),
            doc.evidence_count
        ),
    };
    // Never let free text split the frontmatter on `---` (the reference parser splits on it).
    let text = text.replace("---", "- - -");
    text.chars().take(MAX_DESCRIPTION).collect()
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'"))
}

pub fn skill_md(doc: &DraftDoc) -> String {
    if let Some(w) = doc.workflow.filter(|_| doc.source != CandidateSource::Signature) {
        return super::skill::skill_md(w, doc.name);
    }
    let mut s = String::new();
    s.push_str("---\n");
    s.push_str(&format!("name: {}\n", doc.name));
    s.push_str(&format!("description: {}\n", quoted(&description(doc))));
    s.push_str("metadata:\n");
    s.push_str("  skilldeck-auto-drafted: \"true\"\n");
    s.push_str("  skilldeck-needs-review: \"true\"\n");
    s.push_str(&format!("  skilldeck-source: {}\n", quoted(doc.source.as_str())));
    if let Some(sig) = doc.signature {
        s.push_str(&format!("  skilldeck-signature: {}\n", quoted(sig)));
    }
    s.push_str(&format!("  skilldeck-evidence-count: \"{}\"\n", doc.evidence_count));
    s.push_str("---\n\n");
    s.push_str(&format!("# {}\n\n", doc.name));
    s.push_str(
        "> **Draft awaiting review.** skilldeck drafted this skill automatically from repeated \
         work. Check the steps below, edit them, and remove this notice when satisfied; \
         `skilldeck candidates` lists it and `skilldeck promote ID` makes it live.\n\n",
    );
    s.push_str("## Evidence\n\n");
    if let Some(sig) = doc.signature {
        s.push_str(&format!("- Task signature: {}\n", code(sig)));
    }
    let unit = if doc.source == CandidateSource::Signature {
        "successful turns in a row"
    } else {
        "distinct sessions"
    };
    s.push_str(&format!("- Evidence: {} {unit}\n\n", doc.evidence_count));
    if !doc.examples.is_empty() {
        s.push_str("## Example requests\n\n");
        for example in doc.examples.iter().take(3) {
            let trimmed = example.trim();
            let mut text: String = trimmed.chars().take(MAX_EXAMPLE_CHARS).collect();
            if trimmed.chars().count() > MAX_EXAMPLE_CHARS {
                text.push_str(" ...");
            }
            for line in text.lines() {
                s.push_str(&format!("> {}\n", safe::inline(line)));
            }
            s.push('\n');
        }
    }
    if let Some(w) = doc.workflow {
        // A streak's draft: the steps its turns shared, with their commands and files.
        s.push_str("## Steps\n\n");
        s.push_str(&super::skill::steps_markdown(w));
        return redact::secrets(&s).into_owned();
    }
    s.push_str("## How to use\n\n");
    s.push_str(
        "Follow the observed tool sequence, adapting each call's inputs to the request at hand.\n\n",
    );
    s.push_str("## Observed tool sequence\n\n");
    if doc.steps.is_empty() {
        s.push_str("No tool calls were observed: the work was done in conversation.\n");
    }
    for (i, step) in doc.steps.iter().enumerate() {
        s.push_str(&format!("{}. {}\n", i + 1, code(&step.name)));
    }
    s
}

/// The streak manifest's fields, verbatim.
#[derive(Serialize)]
pub struct Manifest<'a> {
    pub name: &'a str,
    pub auto_drafted: bool,
    pub drafted_at: &'a str,
    pub signature: &'a str,
    pub evidence_count: i64,
    pub needs_review: bool,
    pub score: f64,
    pub scorer: &'a str,
}

pub const DRAFT_SCORE: f64 = 0.7;
pub const DRAFT_SCORER: &str = "auto_drafter";

pub fn manifest_json(name: &str, signature: &str, evidence_count: i64, drafted_at: &str) -> String {
    let m = Manifest {
        name,
        auto_drafted: true,
        drafted_at,
        signature,
        evidence_count,
        needs_review: true,
        score: DRAFT_SCORE,
        scorer: DRAFT_SCORER,
    };
    let mut text = serde_json::to_string_pretty(&m).expect("manifest serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_spec_valid() {
        let steps = vec![
            ToolStep { name: "Read".into(), input_shape: "{}".into() },
            ToolStep { name: "mcp__notion__search".into(), input_shape: "{}".into() },
        ];
        assert_eq!(
            base_name(CandidateSource::Sequence, None, &steps, "h"),
            "seq-read-mcp-notion-search"
        );
        assert_eq!(
            base_name(CandidateSource::Signature, Some("code-refactor"), &[], "h"),
            "auto-code-refactor"
        );
        let cjk = base_name(CandidateSource::Signature, Some("重构代码"), &[], "sig:重构代码");
        assert!(cjk.starts_with("auto-") && cjk.len() == 13, "{cjk}");
        let steps: Vec<ToolStep> =
            ["Read", "Grep", "Edit", "Bash", "WebFetch", "MultiEdit", "Write", "Glob"]
                .iter()
                .map(|n| ToolStep { name: n.to_string(), input_shape: "{}".into() })
                .collect();
        let name = base_name(CandidateSource::Sequence, None, &steps, "h");
        assert_eq!(name, "seq-read-grep-edit-bash-webfetch-multiedit-write-glob");
        let twice: Vec<ToolStep> = steps.iter().chain(&steps).cloned().collect();
        let name = base_name(CandidateSource::Sequence, None, &twice, "h");
        assert_eq!(name, "seq-read-grep-edit-bash-webfetch-multiedit-write-glob-read-grep");
        let long = "x".repeat(100);
        assert_eq!(base_name(CandidateSource::Signature, Some(&long), &[], "h").len(), 64);
        let d =
            disambiguated(&base_name(CandidateSource::Signature, Some(&long), &[], "h"), "other");
        assert_eq!(d.chars().count(), 64);
        assert!(!d.contains("--"));
    }
}
