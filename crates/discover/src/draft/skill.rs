//! The SKILL.md of a repeated workflow: instructions a person would promote, made from a
//! `WorkflowEvidence` — the steps in order with their commands, the checks, what failed and how
//! it was fixed, quoted example requests, and the evidence.
//!
//! Transcript text only appears quoted (code spans, block quotes), revealed (`draft::quote`), and
//! the finished text goes through `text::redact::secrets` once more, so no secret reaches a draft
//! even if discovery missed one.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use crate::step::is_definition_file;
use crate::text::{danger, injection, injection::Flag, redact, safe};
use crate::usage::overlap::jaccard;
use crate::workflow::{CheckKind, WorkflowEvidence};

use super::outline::Item;
use super::quote::{block_quote, code, one_line, phrase};
use super::steps::{Body, share, shares};

const MAX_DESCRIPTION: usize = 1024;
/// Longest request quoted in a description: only whole ones are.
const MAX_DESCRIBED_REQUEST: usize = 200;
const MAX_COMMAND: usize = 120;
const MAX_EXAMPLES: usize = 3;
const MAX_EXAMPLE_CHARS: usize = 300;

/// Every reason the evidence looks aimed at the agent (requests, step commands, fixes), and
/// every dangerous command in its steps (`text::danger`).
pub fn evidence_flags(ev: &WorkflowEvidence) -> Vec<Flag> {
    let steps = ev.steps.iter().flat_map(|s| std::iter::once(&s.template).chain(&s.observed));
    let failures = ev.failures.iter().flat_map(|f| std::iter::once(&f.step).chain(&f.fixed_by));
    let texts: Vec<&str> =
        ev.requests.iter().chain(steps).chain(failures).map(String::as_str).collect();
    let mut flags = injection::flags_all(texts.iter().copied());
    flags.extend(danger::flags_all(texts));
    flags
}

/// The requests fit to quote: no secret taken out of them, not flagged; first ones first,
/// without repeats.
pub fn example_requests(ev: &WorkflowEvidence) -> Vec<String> {
    clean_requests(&ev.requests)
}

/// `requests` fit to quote (see `example_requests`), the most varied first: a request that
/// differs from an earlier one only in its values ("publish the crate as 1.2.0" / "as 1.3.0")
/// comes after those that say something new.
pub fn clean_requests(requests: &[String]) -> Vec<String> {
    let mut fresh: Vec<String> = Vec::new();
    let mut repeats: Vec<String> = Vec::new();
    let mut shapes: Vec<HashSet<String>> = Vec::new();
    // Only the words that asked for the work: a template's input, never a paste or a correction.
    for request in requests.iter().filter_map(|r| super::asks::quotable(r)) {
        let request = redact::secrets(request.trim()).into_owned();
        // A request a secret was taken from is not quoted at all: what is left around the
        // marker may still say too much ("the API token is ...").
        if redact::is_opaque(&request)
            || redact::has_markers(&request)
            || !injection::flags(&request).is_empty()
            || fresh.contains(&request)
            || repeats.contains(&request)
        {
            continue;
        }
        let shape = word_shape(&request);
        if shapes.iter().any(|s| jaccard(s, &shape) >= 0.6) {
            repeats.push(request);
        } else {
            shapes.push(shape);
            fresh.push(request);
        }
    }
    fresh.extend(repeats);
    fresh
}

/// A request's words without its values (ids, versions, paths), lowercased.
fn word_shape(request: &str) -> HashSet<String> {
    request
        .split(|c: char| !c.is_alphanumeric() && c != '.' && c != '-' && c != '_')
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect()
}

/// The workflow as a draft says it: a skill's use is not a step (the agent picks skills by their
/// descriptions; a draft naming one would call itself or another skill), its commands are.
fn drafted(ev: &WorkflowEvidence) -> Cow<'_, WorkflowEvidence> {
    let is_use = |key: &str| key.starts_with("skill:");
    if !ev.steps.iter().any(|s| is_use(&s.key)) {
        return Cow::Borrowed(ev);
    }
    let mut out = ev.clone();
    out.steps.retain(|s| !is_use(&s.key));
    out.reason.specific_steps.retain(|k| !is_use(k));
    Cow::Owned(out)
}

/// A name as words: `release-crate-25f5e151` → `release crate` (a disambiguating hash suffix
/// is for the folder, not for a sentence).
fn spoken(name: &str) -> String {
    let base = match name.rsplit_once('-') {
        Some((head, tag))
            if !head.is_empty()
                && tag.len() == 8
                && tag.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
                && tag.chars().any(|c| c.is_ascii_digit()) =>
        {
            head
        }
        _ => name,
    };
    base.replace('-', " ")
}

/// The name as a title: `release-crate` → `Release crate`.
fn title(name: &str) -> String {
    let words = spoken(name);
    let mut chars = words.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => words,
    }
}

/// What the skill does (its spine, in words and commands) and when to use it: the requests that
/// asked for it, else its trigger, in words; never a pasted template or a cut quote.
pub fn description(ev: &WorkflowEvidence, name: &str) -> String {
    let ev = &*drafted(ev);
    let what = spoken(name);
    let body = Body::new(ev);
    let outline = body.outline();
    let mut heads: Vec<String> = Vec::new();
    for phase in &outline.phases {
        for item in &phase.items {
            let units = match item {
                Item::Step(u) => vec![u],
                Item::Loop { steps, .. } => steps.iter().collect(),
            };
            for u in units.into_iter().filter(|u| !u.optional && !u.head.is_empty()) {
                if !heads.contains(&u.head) {
                    heads.push(u.head.clone());
                }
            }
        }
    }
    let mut text = title(name);
    if !heads.is_empty() {
        let shown: Vec<&str> = heads.iter().take(6).map(String::as_str).collect();
        text.push_str(&format!(": {}", shown.join(", then ")));
    }
    text.push('.');
    let checks = body.checks();
    if !checks.is_empty() {
        let shown: Vec<String> = checks.iter().take(3).map(|c| code(&c.command, 60)).collect();
        text.push_str(&format!(" Checks the result with {}.", shown.join(", ")));
    }
    let examples: Vec<String> = example_requests(ev)
        .into_iter()
        .filter(|r| r.chars().count() <= MAX_DESCRIBED_REQUEST && !r.contains('\n'))
        .take(2)
        .map(|r| format!("\"{}\"", phrase(&r, MAX_DESCRIBED_REQUEST)))
        .collect();
    let when = if ev.chore {
        format!(" Use when checks fail and their output is pasted, to {what} until they pass")
    } else {
        match &ev.trigger {
            // A workflow or prompt definition is a procedure; any other file is what the work is on.
            Some(t) if t.contains('/') && is_definition_file(t) => {
                format!(" Use when asked for {what}, the procedure in {}", code(t, 100))
            }
            Some(t) if t.contains('/') => {
                format!(" Use when asked for {what}, the work on {}", code(t, 100))
            }
            Some(t) => format!(" Use when asked to {what} ({})", code(&format!("/{t}"), 60)),
            None if super::naming::starts_with_verb(name) => format!(" Use when asked to {what}"),
            None => format!(" Use when asked for {what}"),
        }
    };
    text.push_str(&when);
    if examples.is_empty() {
        text.push('.');
    } else {
        text.push_str(&format!(", for example {}.", examples.join(" or ")));
    }
    // Never let free text split the frontmatter on `---` (the reference parser splits on it).
    let text = text.replace("---", "- - -");
    let text = redact::secrets(&text).into_owned();
    fit_sentences(&text, MAX_DESCRIPTION)
}

/// `text` cut at its last whole sentence that fits in `max` characters: never mid-word.
fn fit_sentences(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    match head.rfind(". ") {
        Some(at) => head[..at + 1].to_string(),
        None => super::quote::clip(text, max),
    }
}

/// The `## Steps` list (see `draft::steps`) of a streak's turns: one task done again, not a
/// loop within one piece of work.
pub fn steps_markdown(ev: &WorkflowEvidence) -> String {
    let mut ev = drafted(ev).into_owned();
    ev.reason.iterations = 0;
    Body::new(&ev).steps_markdown()
}

/// One line per step for a reviewer (console): the template, then whether it is a check or
/// optional (in SKILL.md's words): `cargo test [test]`,
/// `Edit CHANGELOG.md (optional: seen in 2 of 4 sessions)`.
pub fn step_summaries(ev: &WorkflowEvidence) -> Vec<String> {
    let ev = &*drafted(ev);
    let body = Body::new(ev);
    let (sessions, times) = shares(ev);
    ev.steps
        .iter()
        .map(|st| {
            let mut line = one_line(&safe::inline(&st.template), MAX_COMMAND);
            if let Some(kind) = st.check {
                line.push_str(&format!(" [{}]", check_name(kind).to_lowercase()));
            }
            if body.is_optional(st) {
                line.push_str(&format!(
                    " (optional: {})",
                    share(st.sessions, st.times, sessions, times)
                ));
            }
            line
        })
        .collect()
}

/// Why it is proposed, for a reviewer: the summary with its numbers.
pub fn reason_line(ev: &WorkflowEvidence) -> String {
    let r = &ev.reason;
    format!(
        "{} (support {} of at least {}, specificity {:.2})",
        one_line(&safe::inline(&r.summary), 200).trim_end_matches('.'),
        r.support,
        r.min_support,
        r.specificity
    )
}

fn check_name(kind: CheckKind) -> &'static str {
    match kind {
        CheckKind::Build => "Build",
        CheckKind::Test => "Test",
        CheckKind::Lint => "Lint",
        CheckKind::Format => "Format",
    }
}

fn date(at: &Option<String>) -> Option<&str> {
    at.as_deref().map(|a| a.get(..10).unwrap_or(a))
}

/// A project as a short label: its last path component.
fn project_label(project: &str) -> &str {
    project.trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or(project)
}

/// The SKILL.md for `ev` under `name` (already spec-valid and unique).
pub fn skill_md(ev: &WorkflowEvidence, name: &str) -> String {
    let ev = &*drafted(ev);
    let body = Body::new(ev);
    let sessions = ev.reason.support.max(ev.sightings.len());
    let mut s = String::new();
    s.push_str("---\n");
    s.push_str(&format!("name: {name}\n"));
    s.push_str(&format!("description: {}\n", json(&description(ev, name))));
    s.push_str("metadata:\n");
    s.push_str("  skilldeck-auto-drafted: \"true\"\n");
    s.push_str("  skilldeck-needs-review: \"true\"\n");
    s.push_str("  skilldeck-source: \"workflow\"\n");
    s.push_str(&format!("  skilldeck-evidence-count: \"{sessions}\"\n"));
    s.push_str("---\n\n");
    s.push_str(&format!("# {}\n\n", title(name)));
    s.push_str(
        "> **Draft awaiting review.** skilldeck drafted this skill from repeated work. Check the \
         steps, edit them, and remove this notice when satisfied; `skilldeck candidates` lists \
         it and `skilldeck promote ID` makes it live.\n\n",
    );
    let inputs = body.inputs();
    if inputs.is_empty() {
        s.push_str("Follow the steps in order.\n\n");
    } else {
        s.push_str(
            "Follow the steps in order; replace each `<placeholder>` with the value for the \
             request at hand.\n\n",
        );
        s.push_str("## Inputs\n\nTake these from the request (or ask for them):\n\n");
        for (placeholder, seen) in &inputs {
            let seen: Vec<String> = seen.iter().map(|v| code(v, 60)).collect();
            if seen.is_empty() {
                s.push_str(&format!("- {}\n", code(placeholder, 40)));
            } else {
                s.push_str(&format!("- {} (seen: {})\n", code(placeholder, 40), seen.join(", ")));
            }
        }
        s.push('\n');
    }

    s.push_str("## Steps\n\n");
    s.push_str(&body.steps_markdown());
    s.push('\n');

    let checks = body.checks();
    if !checks.is_empty() {
        s.push_str(
            "## Checks\n\nRun these before calling the work done; fix what they report.\n\n",
        );
        // A page checked in the browser is one check of several calls, in order.
        let mut lines: Vec<(&str, Vec<String>)> = Vec::new();
        for c in &checks {
            match lines.last_mut() {
                Some((label, commands)) if *label == "Page" && c.label == "Page" => {
                    commands.push(code(&c.command, MAX_COMMAND));
                }
                _ => lines.push((c.label, vec![code(&c.command, MAX_COMMAND)])),
            }
        }
        for (label, commands) in lines {
            s.push_str(&format!("- {label}: {}\n", commands.join(", then ")));
        }
        s.push('\n');
    }

    let failures = body.failures_markdown();
    if !failures.is_empty() {
        s.push_str("## When it fails\n\n");
        s.push_str(&failures);
        s.push('\n');
    }

    let examples = example_requests(ev);
    if !examples.is_empty() {
        s.push_str("## Example requests\n\nQuoted from the sessions, as they were asked:\n\n");
        for example in examples.iter().take(MAX_EXAMPLES) {
            s.push_str(&block_quote(example, MAX_EXAMPLE_CHARS));
            s.push('\n');
        }
    }

    s.push_str("## Evidence\n\n");
    let projects: BTreeSet<&str> =
        ev.sightings.iter().filter_map(|x| x.project.as_deref()).map(project_label).collect();
    let mut line = format!("- Seen in {sessions} sessions");
    if !projects.is_empty() {
        let names: Vec<String> = projects.iter().take(3).map(|p| code(p, 40)).collect();
        let more = if projects.len() > 3 {
            format!(" and {} more", projects.len() - 3)
        } else {
            String::new()
        };
        line.push_str(&format!(
            " of {} project{} ({}{more})",
            projects.len(),
            if projects.len() == 1 { "" } else { "s" },
            names.join(", ")
        ));
    }
    if !ev.sightings.is_empty() {
        let ok = ev.sightings.iter().filter(|x| x.success).count();
        line.push_str(&format!(
            "; {ok} of {} succeeded ({:.0}%)",
            ev.sightings.len(),
            ev.success_rate() * 100.0
        ));
    }
    s.push_str(&line);
    s.push_str(".\n");
    match (date(&ev.first_seen), date(&ev.last_seen)) {
        (Some(a), Some(b)) if a != b => s.push_str(&format!("- First seen {a}, last seen {b}.\n")),
        (Some(a), _) | (None, Some(a)) => s.push_str(&format!("- Seen on {a}.\n")),
        _ => {}
    }
    // The agent's own titles of the sessions say what was asked, in words; one aimed at the
    // agent is left out like a request.
    let titles: Vec<String> = ev
        .titles
        .iter()
        .filter(|t| injection::flags(t).is_empty())
        .take(3)
        .map(|t| format!("\u{201c}{}\u{201d}", one_line(&safe::inline(t), 120)))
        .collect();
    if !titles.is_empty() {
        s.push_str(&format!("- Titled by the agent: {}.\n", titles.join(", ")));
    }
    if !ev.reason.summary.trim().is_empty() {
        s.push_str(&format!(
            "- Proposed because: {}.\n",
            one_line(&safe::inline(&ev.reason.summary), 300).trim_end_matches('.')
        ));
    }
    let left_out = ev.requests.len().saturating_sub(examples.len());
    let flagged = ev.requests.iter().filter(|r| !injection::flags(r).is_empty()).count();
    if flagged > 0 {
        s.push_str(&format!(
            "- {flagged} request(s) left out of the examples: flagged as aimed at the agent.\n"
        ));
    } else if left_out > 0 && examples.len() < MAX_EXAMPLES {
        s.push_str(&format!(
            "- {left_out} request(s) left out: redacted, repeated, pasted or steering.\n"
        ));
    }
    redact::secrets(&s).into_owned()
}

fn json(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}
