//! A draft's body from a workflow's steps, in the repository's own terms: the step list laid out
//! by `outline` (spine in done order, loop, phases), each command in the form that worked, its
//! varying values as named placeholders (`placeholder`), its paths from the repository root
//! (`paths`); the checks the sessions ran, with their real commands; what failed and what fixed it.

use crate::workflow::{RERUN_AS, StepKind, WorkflowEvidence, WorkflowStep};

use super::checks::{self, Check};
use super::outline::{self, Item, Outline, Unit};
use super::paths::Paths;
use super::placeholder;
use super::quote::{self, code};

/// Longest command written in a step, in characters: a longer one is shown by its template.
const MAX_COMMAND: usize = 120;
/// Longest observed command quoted beside a template ("seen: ...").
const MAX_SEEN: usize = 80;
/// Longest rerun quoted as the form that passed.
const MAX_RERUN: usize = 100;

/// Words a request calls one pass of a loop by, most telling first.
const LOOP_NOUNS: &[&str] = &[
    "subtask",
    "task",
    "story",
    "milestone",
    "phase",
    "step",
    "ticket",
    "issue",
    "bead",
    "item",
    "page",
    "test",
];

pub struct Body<'a> {
    ev: &'a WorkflowEvidence,
    paths: Paths,
}

impl<'a> Body<'a> {
    pub fn new(ev: &'a WorkflowEvidence) -> Body<'a> {
        let projects: Vec<String> = ev
            .sightings
            .iter()
            .filter_map(|s| s.project.as_deref())
            .map(|p| p.trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or(p).to_string())
            .collect();
        let texts = ev
            .steps
            .iter()
            .flat_map(|s| {
                std::iter::once(s.template.as_str()).chain(s.observed.iter().map(String::as_str))
            })
            .chain(ev.failures.iter().flat_map(|f| f.fixed_by.iter().map(String::as_str)));
        let mut paths = Paths::new(texts, &projects);
        for _ in 0..2 {
            for s in &ev.steps {
                paths.learn(&s.template);
            }
        }
        Body { ev, paths }
    }

    /// `text` with its paths from the repository root.
    pub fn resolved(&self, text: &str) -> String {
        self.paths.full(text)
    }

    /// The form of `step` that passed after it failed, when the sessions ran it differently.
    fn working_form(&self, step: &WorkflowStep) -> Option<&'a str> {
        self.ev
            .failures
            .iter()
            .filter(|f| f.step.trim() == step.template.trim())
            .flat_map(|f| f.fixed_by.iter().filter_map(|x| x.strip_prefix(RERUN_AS)))
            .find(|again| fit_rerun(again, &step.template))
    }

    /// The step's command as a draft writes it: the form that worked, placeholders named.
    pub fn template(&self, step: &WorkflowStep) -> String {
        if step.kind == StepKind::File
            && let Some(full) = self.full_file(step)
        {
            return full;
        }
        let t = self.working_form(step).unwrap_or(step.template.as_str());
        let named = placeholder::named(&self.resolved(t), &self.observed(step));
        // A check is the runner, not the one file a session ran it on.
        if step.check.is_some() { checks::general(&named) } else { named }
    }

    /// A file step by the fullest path a session named it by (`Read src/auth/meta-auth.ts` for
    /// the key's `auth/meta-auth.ts`), when one holds the template's path.
    fn full_file(&self, step: &WorkflowStep) -> Option<String> {
        let t = self.resolved(&step.template);
        let (verb, path) = t.split_once(' ')?;
        self.observed(step)
            .into_iter()
            .filter(|o| in_repository(o) && !o.contains("...") && o.len() > path.len())
            .filter(|o| o.strip_suffix(path).is_some_and(|head| head.ends_with('/')))
            .max_by_key(|o| o.len())
            .map(|full| format!("{verb} {full}"))
    }

    fn observed(&self, step: &WorkflowStep) -> Vec<String> {
        step.observed.iter().map(|o| self.resolved(o)).collect()
    }

    fn line(&self, step: &WorkflowStep) -> String {
        let template = self.template(step);
        let template = template.trim();
        let what = match step.kind {
            StepKind::Shell => format!("Run {}", quote::command(template, MAX_COMMAND)),
            StepKind::File => match template.split_once(' ') {
                Some((tool, target)) if tool == step.tool => {
                    format!("{} {}", tool, code(target, MAX_COMMAND))
                }
                _ => format!(
                    "{} {}",
                    super::quote::one_line(&step.tool, 40),
                    code(template, MAX_COMMAND)
                ),
            },
            StepKind::Mcp => match template.split_once(' ') {
                Some((tool, command)) if step.key.contains(' ') => format!(
                    "Call the MCP tool {} to run {}",
                    code(tool, 80),
                    code(command, MAX_COMMAND)
                ),
                _ => format!("Call the MCP tool {}", code(template, MAX_COMMAND)),
            },
            StepKind::Subagent => format!("Hand the work to the {} subagent", code(template, 60)),
            StepKind::Other => format!("Use {}", code(template, MAX_COMMAND)),
            StepKind::Change => {
                let files: Vec<String> = self
                    .observed(step)
                    .iter()
                    .filter(|f| in_repository(f))
                    .take(3)
                    .map(|f| code(f, 80))
                    .collect();
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
        let shown = |o: &String| {
            let o = placeholder::as_run(o);
            (o.trim() != template && o.chars().count() <= MAX_SEEN && !o.contains('\n'))
                .then_some(o)
        };
        if matches!(step.kind, StepKind::Shell | StepKind::File)
            && self.working_form(step).is_none()
            && let Some(seen) = self.observed(step).iter().find_map(shown)
        {
            // A template with placeholders shows a value it took; one without, the other form
            // it was run in (`gt doctor`, also run as `gt doctor --fix`).
            if template.contains('<') {
                line.push_str(&format!(" (seen: {})", code(&seen, MAX_SEEN)));
            } else if step.kind == StepKind::Shell && general_words(&seen) {
                line.push_str(&format!(" (also run as {})", code(&seen, MAX_SEEN)));
            }
        }
        line.push('.');
        line
    }

    /// What a phase title calls the step: `bd show`, `Read specs/x/tasks.md`, `the change`.
    fn head(&self, step: &WorkflowStep) -> String {
        match step.kind {
            StepKind::Change => "the change".into(),
            StepKind::Shell => {
                let t = self.template(step);
                let words: Vec<&str> = t
                    .split_whitespace()
                    .take_while(|w| !w.starts_with(['-', '<']) && !w.contains(['/', '=', '.']))
                    .take(3)
                    .collect();
                whole_code(&words.join(" "))
            }
            StepKind::File => {
                // A file by its name: `edit sprint-status.yaml`.
                let t = self.resolved(&step.template);
                let (verb, path) = t.split_once(' ').unwrap_or(("", &t));
                let file = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
                let file = whole_code(file);
                if file.is_empty() { file } else { format!("{} {file}", verb.to_lowercase()) }
            }
            _ => whole_code(&step.template),
        }
    }

    /// Whether a draft marks `step` optional: seen in fewer than half the sessions (a chore of
    /// pasted failures has none). The console says the same.
    pub fn is_optional(&self, step: &WorkflowStep) -> bool {
        let support = self.ev.reason.support.max(self.ev.sightings.len());
        // Pasted failures ask for every check; one seen in half the sessions is the spine.
        !self.ev.chore && step.optional && 2 * step.sessions < support
    }

    /// The steps as a reader follows them: consecutive files read (all required, or all
    /// optional) are one unit.
    fn units(&self) -> Vec<Unit> {
        let mut groups: Vec<Vec<&WorkflowStep>> = Vec::new();
        for step in &self.ev.steps {
            if let Some(last) = groups.last_mut()
                && is_read(step)
                && last.iter().all(|s| is_read(s) && self.is_optional(s) == self.is_optional(step))
            {
                last.push(step);
                continue;
            }
            groups.push(vec![step]);
        }
        groups
            .into_iter()
            .map(|g| {
                let first = g[0];
                let line = if g.len() > 1 {
                    let files: Vec<String> = g
                        .iter()
                        .map(|s| {
                            let t = self.template(s);
                            code(t.strip_prefix("Read ").unwrap_or(&t), MAX_COMMAND)
                        })
                        .collect();
                    format!("Read {}.", files.join(", "))
                } else {
                    self.line(first)
                };
                let head =
                    if g.len() > 1 { "the files read".to_string() } else { self.head(first) };
                Unit {
                    line,
                    head,
                    sessions: g.iter().map(|s| s.sessions).max().unwrap_or(0),
                    times: g.iter().map(|s| s.times).max().unwrap_or(0),
                    optional: self.is_optional(first),
                    looks: g.iter().all(|s| is_read(s)),
                }
            })
            .collect()
    }

    pub fn outline(&self) -> Outline {
        let support = self.ev.reason.support.max(self.ev.sightings.len());
        outline::outline(self.units(), support, self.ev.reason.iterations, &self.loop_noun())
    }

    /// What one pass of the loop is called: the requests' word for it, else the id it works on.
    fn loop_noun(&self) -> String {
        let words: Vec<String> = self
            .ev
            .requests
            .iter()
            .flat_map(|r| {
                r.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect::<Vec<_>>()
            })
            .collect();
        for noun in LOOP_NOUNS {
            if words.iter().any(|w| w.as_str() == *noun || w.strip_suffix('s') == Some(*noun)) {
                return noun.to_string();
            }
        }
        for step in &self.ev.steps {
            let t = self.template(step);
            if let Some(at) = t.find("-id>")
                && let Some(open) = t[..at].rfind('<')
            {
                return t[open + 1..at].to_string();
            }
        }
        "pass".into()
    }

    /// The `## Steps` list: numbered items, a loop's steps and a phase's items as bullets.
    pub fn steps_markdown(&self) -> String {
        let o = self.outline();
        let (sessions, times) = shares(self.ev);
        let mark = |u: &Unit| -> String {
            if u.optional {
                format!("Optional ({}): {}", share(u.sessions, u.times, sessions, times), u.line)
            } else {
                u.line.clone()
            }
        };
        let item_lines = |item: &Item, indent: &str, bullet: &str| -> String {
            match item {
                Item::Step(u) => format!("{indent}{bullet}{}\n", mark(u)),
                Item::Loop { noun, steps } => {
                    let mut s = format!("{indent}{bullet}For each {noun}, in turn:\n");
                    for u in steps {
                        s.push_str(&format!("{indent}   - {}\n", mark(u)));
                    }
                    s
                }
            }
        };
        let mut out = String::new();
        let mut n = 0;
        for phase in &o.phases {
            match &phase.title {
                None => {
                    for item in &phase.items {
                        n += 1;
                        out.push_str(&item_lines(item, "", &format!("{n}. ")));
                    }
                }
                Some(title) => {
                    n += 1;
                    out.push_str(&format!("{n}. {title}:\n"));
                    for item in &phase.items {
                        out.push_str(&item_lines(item, "   ", "- "));
                    }
                }
            }
        }
        if !o.also.is_empty() {
            out.push_str("\nSome sessions also did these, where they fit:\n\n");
            for (u, after) in &o.also {
                let place = after
                    .as_ref()
                    .filter(|h| !h.is_empty())
                    .map(|h| format!(", after {h}"))
                    .unwrap_or_default();
                let share = share(u.sessions, u.times, sessions, times);
                let mut chars = share.chars();
                let share: String = chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default();
                out.push_str(&format!("- {share}{place}: {}\n", u.line));
            }
        }
        out
    }

    /// Each placeholder the steps use, with up to three values the sessions gave it.
    pub fn inputs(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for step in self.ev.steps.iter().filter(|s| s.kind != StepKind::Change) {
            let t = self.working_form(step).unwrap_or(step.template.as_str());
            for (name, values) in placeholder::inputs(&self.resolved(t), &self.observed(step)) {
                placeholder::add_values(&mut out, name, values, 3);
            }
        }
        out
    }

    /// The checks the sessions ran (steps, and checks run while fixing a failure), each once.
    pub fn checks(&self) -> Vec<Check> {
        let mut out: Vec<Check> = Vec::new();
        // One check per command head: `mix test` beside `mix test <test-file>` says nothing new.
        let head = |c: &str| c.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        let mut add = |c: Check| {
            if !out.iter().any(|o| head(&o.command) == head(&c.command)) {
                out.push(c);
            }
        };
        for step in &self.ev.steps {
            if let Some(c) = checks::of_step(step, &self.template(step)) {
                add(c);
            }
        }
        for f in &self.ev.failures {
            for fix in f.fixed_by.iter().filter(|x| !x.starts_with(RERUN_AS)) {
                if let Some(c) = checks::of_command(&self.resolved(fix)) {
                    add(c);
                }
            }
        }
        out
    }

    /// The `## When it fails` lines: each failing step, in the form the steps write it, and
    /// what made it pass.
    pub fn failures_markdown(&self) -> String {
        let mut s = String::new();
        for f in &self.ev.failures {
            let runs = if f.sessions == 1 {
                "1 session".to_string()
            } else {
                format!("{} sessions", f.sessions)
            };
            let observed: Vec<String> = self
                .ev
                .steps
                .iter()
                .find(|st| st.template.trim() == f.step.trim())
                .map(|st| self.observed(st))
                .unwrap_or_default();
            let failing = placeholder::named(&self.resolved(&f.step), &observed);
            let rerun = f
                .fixed_by
                .iter()
                .filter_map(|x| x.strip_prefix(RERUN_AS))
                .find(|again| fit_rerun(again, &f.step))
                .map(|again| placeholder::named(&self.resolved(again), &[]));
            let fixes: Vec<String> = f
                .fixed_by
                .iter()
                .filter(|x| !x.starts_with(RERUN_AS) && useful_fix(x))
                .take(4)
                .map(|x| code(&placeholder::named(&self.resolved(x), &[]), 80))
                .collect();
            let step = code(&failing, MAX_COMMAND);
            let line = match (rerun, fixes.is_empty()) {
                (Some(again), true) => {
                    format!(
                        "- {step} failed in {runs}; run it as {} instead.\n",
                        code(&again, MAX_COMMAND)
                    )
                }
                (Some(again), false) => format!(
                    "- {step} failed in {runs}; {} fixed it, then it passed as {}.\n",
                    fixes.join(", "),
                    code(&again, MAX_COMMAND)
                ),
                (None, true) => format!("- {step} failed in {runs}; it passed when run again.\n"),
                (None, false) => format!(
                    "- {step} failed in {runs}; {} fixed it, then it passed when run again.\n",
                    fixes.join(", ")
                ),
            };
            s.push_str(&line);
        }
        s
    }
}

/// A short text as a code span, or nothing when it is empty or would have to be cut.
fn whole_code(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 40 { String::new() } else { code(text, 40) }
}

/// A rerun worth writing as the form that passed: different from the failing step, short, and no
/// here-document (a commit message written out is one run's text).
fn fit_rerun(again: &str, step: &str) -> bool {
    again.trim() != step.trim()
        && again.chars().count() <= MAX_RERUN
        && !again.contains("<<")
        && general_words(again)
}

/// Whether a command names no one run's values: no quoted text, no id with digits outside a
/// placeholder (`bd close cr-wisp-e3y --reason '...'` is one session's).
fn general_words(command: &str) -> bool {
    !command.contains(['"', '\''])
        && command.split_whitespace().all(|w| {
            w.contains('<')
                || !w.chars().any(|c| c.is_ascii_digit())
                || w.starts_with('-') && !w.contains('=')
        })
}

/// A fix step a reader can act on: not a read of the agent's own scratch output.
fn useful_fix(fix: &str) -> bool {
    !fix.contains("tool-results/") && !fix.contains(".jsonl") && !fix.contains("toolu_")
}

/// A path inside the repository (not a home folder or the agent's own plan files).
fn in_repository(path: &str) -> bool {
    !path.starts_with(['/', '~']) && !path.contains(".claude/")
}

fn is_read(step: &WorkflowStep) -> bool {
    step.kind == StepKind::File && step.tool == "Read"
}

/// The workflow's sessions and times.
pub fn shares(ev: &WorkflowEvidence) -> (usize, usize) {
    (ev.reason.support.max(ev.sightings.len()), ev.reason.iterations)
}

/// How often a step was seen, by sessions, or by the times done when it was seen in every
/// session (a loop that skips it on some passes), so the share never reads as "all of them".
pub fn share(step_sessions: usize, step_times: usize, sessions: usize, times: usize) -> String {
    if step_sessions >= sessions && times > step_times {
        format!("done in {step_times} of {times} times")
    } else {
        format!("seen in {step_sessions} of {sessions} sessions")
    }
}
