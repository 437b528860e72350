//! The writer's rules through the library's door (`draft::skill::skill_md`, `draft::naming`):
//! a loop told as one, a long procedure as phases holding every step, at most a third optional,
//! placeholders that say what goes there, paths as the repository has them, the form of a
//! command that worked, the checks with their real commands, descriptions and examples in words,
//! and no defect `draft::lint` finds; every draft passes the reference validator.

use skilldeck::draft::{lint, naming, skill};
use skilldeck::workflow::{
    CheckKind, FailureFix, RERUN_AS, Reason, Sighting, StepKind, WorkflowEvidence, WorkflowStep,
};

use crate::support::agentskills_validate;

fn shell(template: &str, observed: &[&str], sessions: usize, times: usize) -> WorkflowStep {
    let words: Vec<&str> = template.split_whitespace().take(2).collect();
    WorkflowStep {
        key: format!("sh:{}", words.join(" ")),
        kind: StepKind::Shell,
        tool: "Bash".into(),
        template: template.into(),
        observed: observed.iter().map(|o| o.to_string()).collect(),
        check: None,
        sessions,
        times,
        optional: false,
    }
}

fn read(path: &str, sessions: usize) -> WorkflowStep {
    WorkflowStep {
        key: format!("file:Read:{path}"),
        kind: StepKind::File,
        tool: "Read".into(),
        template: format!("Read {path}"),
        observed: vec![path.to_string()],
        check: None,
        sessions,
        times: sessions,
        optional: false,
    }
}

fn evidence(
    steps: Vec<WorkflowStep>,
    support: usize,
    iterations: usize,
    requests: &[&str],
) -> WorkflowEvidence {
    WorkflowEvidence {
        agent_id: "claude-code".into(),
        steps,
        requests: requests.iter().map(|r| r.to_string()).collect(),
        sightings: (0..support)
            .map(|n| Sighting {
                session_key: format!("s{n}"),
                project: Some("/home/dev/spotter".into()),
                turn_id: n as i64,
                at: Some("2026-02-11T10:00:00Z".into()),
                success: true,
            })
            .collect(),
        failures: Vec::new(),
        reason: Reason {
            support,
            iterations,
            min_support: 3,
            specificity: 0.9,
            specific_steps: Vec::new(),
            score: 1.0,
            summary: format!("seen in {support} sessions"),
            driven: None,
            targets: Vec::new(),
        },
        first_seen: None,
        last_seen: None,
        trigger: None,
        chore: false,
        titles: Vec::new(),
    }
}

/// Working a tracker's beads: `bd ready` once a session, then for each subtask the same steps.
fn bead_work() -> WorkflowEvidence {
    let mut test = shell(
        "mix test <name>",
        &["mix test test/spotter/a_test.exs 2>&1", "mix test test/b_test.exs"],
        4,
        13,
    );
    test.check = None;
    let mut push = shell("git push", &["git push"], 3, 6);
    push.optional = true;
    let mut ev = evidence(
        vec![
            shell("bd ready", &["bd ready"], 4, 6),
            shell("bd show <id>", &["bd show spotter-dov.1", "bd show spotter-dov.2"], 4, 15),
            shell(
                "bd update <id> --status in_progress",
                &["bd update spotter-dov.1 --status in_progress"],
                4,
                14,
            ),
            test,
            shell("bd close <id>", &["bd close spotter-dov.1"], 4, 15),
            shell("git commit -m <message>", &[], 4, 12),
            push,
        ],
        4,
        15,
        &[
            "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks.",
            "These tests are failing\nFAIL test/a_test.exs\n  at foo (a.ex:1)",
            "## User Input\n\n```text\nWork on bead spotter-fum, one subtask at a time.\n```\n\nYou **MUST** consider the user input",
        ],
    );
    ev.failures = vec![
        FailureFix {
            step: "git push".into(),
            sessions: 3,
            fixed_by: vec![format!("{RERUN_AS}git push --set-upstream origin <branch>")],
        },
        FailureFix {
            step: "mix test <name>".into(),
            sessions: 2,
            fixed_by: vec!["mix format".into(), "Edit *.ex".into()],
        },
    ];
    ev
}

fn body_of(text: &str) -> &str {
    let notice = text.find("> **Draft awaiting review.**").unwrap();
    let after = &text[notice..];
    &after[after.find('\n').unwrap()..]
}

fn checked(name: &str, text: &str) {
    assert!(lint::defects(text).is_empty(), "{:?}\n{text}", lint::defects(text));
    assert!(!body_of(text).contains("skilldeck"), "the skill talks about skilldeck:\n{text}");
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    agentskills_validate(&folder);
}

#[test]
fn a_loop_is_told_once_with_its_steps_in_the_order_done() {
    let ev = bead_work();
    let text = skill::skill_md(&ev, "work-bead");
    checked("work-bead", &text);
    let steps = text.split("## Steps").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(
        steps.contains(
            "1. Run `bd ready`.\n2. For each subtask, in turn:\n   - Run `bd show <bead-id>`"
        ),
        "{steps}"
    );
    let show = steps.find("bd show").unwrap();
    let close = steps.find("bd close").unwrap();
    assert!(show < close && steps.find("git push").unwrap() > close, "{steps}");
}

#[test]
fn placeholders_say_what_goes_there_and_the_form_that_worked_is_the_step() {
    let text = skill::skill_md(&bead_work(), "work-bead");
    assert!(text.contains("`mix test <test-file>`"), "{text}");
    assert!(!text.contains("<name>") && !text.contains("<value>"), "{text}");
    // `git push` failed and passed with an upstream: the step is the form that passed.
    assert!(text.contains("Run `git push --set-upstream origin <branch>`"), "{text}");
    assert!(text.contains("- `git push` failed in 3 sessions; run it as `git push --set-upstream origin <branch>` instead."), "{text}");
}

#[test]
fn checks_list_the_commands_run_with_a_pinned_test_file_made_general() {
    let mut ev = bead_work();
    let mut vitest = shell("npx vitest apps/api/tests/integration/moderation.test.ts", &[], 1, 1);
    vitest.check = Some(CheckKind::Test);
    ev.steps.push(vitest);
    let text = skill::skill_md(&ev, "work-bead");
    let checks = text.split("## Checks").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(checks.contains("- Test: `mix test <test-file>`"), "{checks}");
    assert!(checks.contains("- Test: `npx vitest <test-file>`"), "{checks}");
    // A check run while fixing a failure is a check too.
    assert!(checks.contains("- Format: `mix format`"), "{checks}");
}

#[test]
fn descriptions_and_examples_are_requests_in_words() {
    let ev = bead_work();
    let desc = skill::description(&ev, "work-bead");
    assert!(!desc.contains("the way it was done") && !desc.contains("```"), "{desc}");
    assert!(desc.contains("Use when asked to work bead"), "{desc}");
    let examples = skill::example_requests(&ev);
    assert_eq!(
        examples,
        [
            "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks.",
            "Work on bead spotter-fum, one subtask at a time."
        ],
        "the template's input is the request; the pasted failure is none"
    );
    // The name comes from the words that asked, never a template's.
    let mut templated = evidence(vec![shell("bd show <id>", &[], 3, 3)], 3, 3, &[]);
    templated.requests = vec![
        "## User Input\n\n```text\nImplement the first milestone as planned.\n```\n\n## Outline\n\n1. Run AVAILABLE_DOCS".into(),
        "## User Input\n\n```text\nImplement milestone 2.\n```".into(),
    ];
    assert_eq!(naming::base_name(&templated), "implement-milestone");
}

#[test]
fn a_long_procedure_is_phases_holding_every_step_and_at_most_a_third_is_optional() {
    let mut steps: Vec<WorkflowStep> =
        (0..22).map(|i| shell(&format!("gt step{i}"), &[], 30, 30)).collect();
    for s in steps.iter_mut().skip(1).step_by(2) {
        s.optional = true;
        s.sessions = 8;
        s.times = 8;
    }
    steps.push(shell("bd close <id>", &["bd close hq-wisp-17d", "bd close hq-wisp-9ht"], 30, 30));
    let ev = evidence(steps, 32, 32, &["I am Deacon. Start patrol."]);
    let text = skill::skill_md(&ev, "run-deacon-patrol");
    checked("run-deacon-patrol", &text);
    assert!(text.contains("1. Start ("), "{text}");
    assert!(text.contains("Finish ("), "{text}");
    assert!(text.contains("`bd close <wisp-id>`"), "the last step is kept:\n{text}");
    for i in 0..22 {
        assert!(text.contains(&format!("`gt step{i}`")), "step {i} is lost:\n{text}");
    }
    assert!(text.contains("Some sessions also did these, where they fit:"), "{text}");
    assert!(!text.contains("more steps"), "{text}");
}

#[test]
fn elided_paths_are_written_as_the_repository_has_them() {
    let mut edit = read("specs/001-poker-mvp/tasks.md", 4);
    edit.kind = StepKind::File;
    edit.tool = "Edit".into();
    edit.key = "file:Edit:specs/001-poker-mvp/tasks.md".into();
    edit.template = "Edit specs/001-poker-mvp/tasks.md".into();
    let mut ev = evidence(
        vec![
            shell(".specify/scripts/bash/check-prerequisites.sh --json", &[], 4, 4),
            read(".../001-poker-mvp/plan.md", 4),
            read(".../specify-poker/.gitignore", 4),
            edit,
        ],
        4,
        4,
        &[
            "Please review completion of milestone 5. Complete milestone 6 when milestone 5 is satisfied.",
        ],
    );
    ev.sightings[0].project = Some("/Users/b/git/specify-poker".into());
    let text = skill::skill_md(&ev, "implement-milestone");
    checked("implement-milestone", &text);
    assert!(text.contains("Read `specs/001-poker-mvp/plan.md`, `.gitignore`."), "{text}");
    // A file keyed by its last components is written by the fullest path a session used.
    let mut short = read("auth/meta-auth.ts", 4);
    short.observed = vec!["src/auth/meta-auth.ts".into(), ".../auth/meta-auth.ts".into()];
    ev.steps.insert(1, short);
    let text = skill::skill_md(&ev, "implement-milestone");
    assert!(text.contains("Read `src/auth/meta-auth.ts`, `specs/001-poker-mvp/plan.md`"), "{text}");
}
