//! The SKILL.md of a repeated workflow: instructions a person would promote, made from a
//! `WorkflowEvidence` — the steps in order with their commands, the checks, what failed and how
//! it was fixed, quoted example requests, and the evidence.
//!
//! Transcript text only appears quoted (code spans, block quotes), revealed (`draft::quote`), and
//! the finished text goes through `text::redact::secrets` once more, so no secret reaches a draft
//! even if discovery missed one.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use crate::text::{danger, injection, injection::Flag, redact, safe};
use crate::usage::overlap::jaccard;
use crate::workflow::{CheckKind, RERUN_AS, StepKind, WorkflowEvidence, WorkflowStep};

use super::quote::{block_quote, code, one_line, phrase};

const MAX_DESCRIPTION: usize = 1024;
const MAX_STEPS: usize = 16;
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
    for request in requests {
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

/// The steps that make the workflow what it is: specific ones when discovery named them.
fn key_steps(ev: &WorkflowEvidence) -> Vec<&WorkflowStep> {
    let specific: Vec<&WorkflowStep> =
        ev.steps.iter().filter(|s| ev.reason.specific_steps.contains(&s.key)).collect();
    if specific.is_empty() { ev.steps.iter().filter(|s| !s.optional).collect() } else { specific }
}

/// What the skill does (its key commands) and when to use it (in the words of the requests).
pub fn description(ev: &WorkflowEvidence, name: &str) -> String {
    let ev = &*drafted(ev);
    let what = spoken(name);
    let sessions = ev.reason.support.max(ev.sightings.len());
    // Commands and edits say more than the files read on the way.
    let mut keys = key_steps(ev);
    keys.sort_by_key(|s| is_read(s));
    let commands: Vec<String> = keys.iter().take(5).map(|s| code(&s.template, 40)).collect();
    let mut text = if commands.is_empty() {
        format!("{} the way it was done in {sessions} sessions.", title(name))
    } else {
        format!(
            "{} the way it was done in {sessions} sessions: {}.",
            title(name),
            commands.join(", ")
        )
    };
    let examples = example_requests(ev);
    let quoted: Vec<String> =
        examples.iter().take(2).map(|r| format!("\"{}\"", phrase(r, 80))).collect();
    if quoted.is_empty() {
        match &ev.trigger {
            Some(t) if t.contains('/') => text.push_str(&format!(
                " Use it when asked for {what} (the procedure in {}).",
                code(t, 100)
            )),
            Some(t) => text
                .push_str(&format!(" Use when asked to {what} ({}).", code(&format!("/{t}"), 60))),
            None => text.push_str(&format!(" Use when asked to {what}.")),
        }
    } else {
        text.push_str(&format!(" Use it for requests like {}.", quoted.join(" or ")));
    }
    // Never let free text split the frontmatter on `---` (the reference parser splits on it).
    let text = text.replace("---", "- - -");
    let text = redact::secrets(&text).into_owned();
    super::quote::clip(&text, MAX_DESCRIPTION)
}

/// The steps as numbered lines would say them (reads grouped, optional ones marked).
pub fn step_lines(ev: &WorkflowEvidence) -> Vec<String> {
    let ev = &*drafted(ev);
    let (sessions, times) = shares_of(ev);
    grouped(&ev.steps)
        .iter()
        .take(MAX_STEPS)
        .map(|group| {
            let step = group[0];
            let optional = if step.optional {
                format!("Optional ({}): ", seen_share(step, sessions, times))
            } else {
                String::new()
            };
            let line = if group.len() > 1 { reads_line(group) } else { step_line(step) };
            format!("{optional}{line}")
        })
        .collect()
}

fn is_read(step: &WorkflowStep) -> bool {
    step.kind == StepKind::File && step.tool == "Read"
}

/// The steps as a reader follows them: consecutive files read (all required, or all optional)
/// are one step.
fn grouped(steps: &[WorkflowStep]) -> Vec<Vec<&WorkflowStep>> {
    let mut out: Vec<Vec<&WorkflowStep>> = Vec::new();
    for step in steps {
        if let Some(last) = out.last_mut()
            && is_read(step)
            && last.iter().all(|s| is_read(s) && s.optional == step.optional)
        {
            last.push(step);
            continue;
        }
        out.push(vec![step]);
    }
    out
}

fn reads_line(reads: &[&WorkflowStep]) -> String {
    let files: Vec<String> = reads
        .iter()
        .map(|s| code(s.template.strip_prefix("Read ").unwrap_or(&s.template), MAX_COMMAND))
        .collect();
    format!("Read {}.", files.join(", "))
}

/// How often an optional step was seen, the same words in SKILL.md and in the console: by
/// sessions, or by the times done when it was seen in every session (a loop that skips it on
/// some passes), so the share never reads as "all of them".
pub fn seen_share(step: &WorkflowStep, sessions: usize, times: usize) -> String {
    if step.sessions >= sessions && times > step.times {
        format!("done in {} of {times} times", step.times)
    } else {
        format!("seen in {} of {sessions} sessions", step.sessions)
    }
}

/// The workflow's sessions and times, the denominators of [`seen_share`].
fn shares_of(ev: &WorkflowEvidence) -> (usize, usize) {
    (ev.reason.support.max(ev.sightings.len()), ev.reason.iterations)
}

fn step_line(step: &WorkflowStep) -> String {
    let template = step.template.trim();
    let what = match step.kind {
        StepKind::Shell => format!("Run {}", code(template, MAX_COMMAND)),
        StepKind::File => match template.split_once(' ') {
            Some((tool, target)) if tool == step.tool => {
                format!("{} {}", tool, code(target, MAX_COMMAND))
            }
            _ => format!("{} {}", one_line(&step.tool, 40), code(template, MAX_COMMAND)),
        },
        StepKind::Mcp => format!("Call the MCP tool {}", code(template, MAX_COMMAND)),
        StepKind::Subagent => format!("Hand the work to the {} subagent", code(template, 60)),
        StepKind::Other => format!("Use {}", code(template, MAX_COMMAND)),
        StepKind::Change => {
            let files: Vec<String> = step.observed.iter().take(3).map(|f| code(f, 60)).collect();
            if files.is_empty() {
                "Make the change the request asks for".to_string()
            } else {
                format!(
                    "Make the change the request asks for (edited before: {})",
                    files.join(", ")
                )
            }
        }
    };
    let mut line = what;
    if step.kind != StepKind::Change
        && template.contains('<')
        && let Some(seen) = step.observed.iter().find(|o| o.trim() != template)
    {
        line.push_str(&format!(" (seen: {})", code(seen, 80)));
    }
    line.push('.');
    line
}

/// One line per step for a reviewer (console): the template, then whether it is a check or
/// optional (in SKILL.md's words): `cargo test [test]`,
/// `Edit CHANGELOG.md (optional: seen in 2 of 4 sessions)`.
pub fn step_summaries(ev: &WorkflowEvidence) -> Vec<String> {
    let ev = &*drafted(ev);
    let (sessions, times) = shares_of(ev);
    ev.steps
        .iter()
        .map(|st| {
            let mut line = one_line(&safe::inline(&st.template), MAX_COMMAND);
            if let Some(kind) = st.check {
                line.push_str(&format!(" [{}]", check_name(kind).to_lowercase()));
            }
            if st.optional {
                line.push_str(&format!(" (optional: {})", seen_share(st, sessions, times)));
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
    let inputs = inputs(ev);
    if inputs.is_empty() {
        s.push_str(&format!(
            "{} the way it was done in {sessions} sessions. Follow the steps in order.\n\n",
            title(name)
        ));
    } else {
        s.push_str(&format!(
            "{} the way it was done in {sessions} sessions. Follow the steps in order; replace \
             each `<placeholder>` with the value for the request at hand.\n\n",
            title(name)
        ));
        s.push_str("## Inputs\n\nTake these from the request (or ask for them):\n\n");
        for (placeholder, seen) in &inputs {
            let seen: Vec<String> = seen.iter().map(|v| code(v, 40)).collect();
            if seen.is_empty() {
                s.push_str(&format!("- {}\n", code(placeholder, 20)));
            } else {
                s.push_str(&format!("- {} (seen: {})\n", code(placeholder, 20), seen.join(", ")));
            }
        }
        s.push('\n');
    }

    s.push_str("## Steps\n\n");
    let groups = grouped(&ev.steps).len();
    for (i, line) in step_lines(ev).iter().enumerate() {
        s.push_str(&format!("{}. {line}\n", i + 1));
    }
    if groups > MAX_STEPS {
        s.push_str(&format!(
            "\n{} more steps were seen; `skilldeck candidates --json` lists them all.\n",
            groups - MAX_STEPS
        ));
    }
    s.push('\n');

    let mut seen = BTreeSet::new();
    let checks: Vec<(CheckKind, &WorkflowStep)> = ev
        .steps
        .iter()
        .filter_map(|st| st.check.map(|k| (k, st)))
        .filter(|(_, st)| seen.insert(st.template.clone()))
        .collect();
    if !checks.is_empty() {
        s.push_str(
            "## Checks\n\nRun these before calling the work done; fix what they report.\n\n",
        );
        for (kind, step) in checks {
            s.push_str(&format!("- {}: {}\n", check_name(kind), code(&step.template, MAX_COMMAND)));
        }
        s.push('\n');
    }

    if !ev.failures.is_empty() {
        s.push_str("## When it fails\n\n");
        for f in &ev.failures {
            let runs =
                if f.sessions == 1 { "1 session" } else { &format!("{} sessions", f.sessions) };
            // A re-run whose template reads as the failing step's says nothing new.
            let rerun = f
                .fixed_by
                .iter()
                .find_map(|x| x.strip_prefix(RERUN_AS))
                .filter(|again| again.trim() != f.step.trim());
            let fixes: Vec<String> = f
                .fixed_by
                .iter()
                .filter(|x| !x.starts_with(RERUN_AS))
                .take(4)
                .map(|x| code(x, 60))
                .collect();
            let step = code(&f.step, MAX_COMMAND);
            let line = match (rerun, fixes.is_empty()) {
                (Some(again), true) => {
                    format!(
                        "- {step} failed in {runs}; it passed run as {}.\n",
                        code(again, MAX_COMMAND)
                    )
                }
                (Some(again), false) => format!(
                    "- {step} failed in {runs}; it was fixed with {}, then run as {}.\n",
                    fixes.join(", "),
                    code(again, MAX_COMMAND)
                ),
                (None, true) => format!("- {step} failed in {runs}; it passed when run again.\n"),
                (None, false) => format!(
                    "- {step} failed in {runs}; it was fixed with {}, then run again.\n",
                    fixes.join(", ")
                ),
            };
            s.push_str(&line);
        }
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
        let more = if projects.len() > 3 { ", ..." } else { "" };
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
        .map(|t| format!("\u{201c}{}\u{201d}", one_line(&safe::inline(t), 80)))
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
            "- {flagged} request(s) left out of the examples: flagged as aimed at the agent \
             (`skilldeck candidates` shows why).\n"
        ));
    } else if left_out > 0 && examples.len() < MAX_EXAMPLES {
        s.push_str(&format!("- {left_out} request(s) left out: redacted or repeated.\n"));
    }
    redact::secrets(&s).into_owned()
}

/// Each placeholder of the steps' templates with up to three values the sessions gave it, read
/// by aligning a template's words with an observed command of the same length.
fn inputs(ev: &WorkflowEvidence) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for step in ev.steps.iter().filter(|s| s.kind != StepKind::Change) {
        let template: Vec<&str> = step.template.split_whitespace().collect();
        for (i, token) in template.iter().enumerate() {
            let Some(start) = token.find('<') else { continue };
            let Some(len) = token[start..].find('>') else { continue };
            let placeholder = &token[start..start + len + 1];
            let (head, tail) = (&token[..start], &token[start + len + 1..]);
            let at = match out.iter().position(|(p, _)| p == placeholder) {
                Some(at) => at,
                None => {
                    out.push((placeholder.to_string(), Vec::new()));
                    out.len() - 1
                }
            };
            for observed in &step.observed {
                let words = shlex::split(observed)
                    .unwrap_or_else(|| observed.split_whitespace().map(str::to_string).collect());
                if words.len() != template.len() {
                    continue;
                }
                let value = words[i].strip_prefix(head).and_then(|v| v.strip_suffix(tail));
                // Redirections and pipes are how it ran, not a value of the request.
                if let Some(value) = value.filter(|v| !v.is_empty() && !v.contains(['>', '|']))
                    && out[at].1.len() < 3
                    && !out[at].1.iter().any(|x| x == value)
                {
                    out[at].1.push(value.to_string());
                }
            }
        }
    }
    out
}

fn json(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}
