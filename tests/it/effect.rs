//! Effect: runs of a skill's workflow with the skill against runs without it, from transcripts
//! with known differences. Through the binary: `stats NAME --effect [--json]`, `features`.

use serde_json::{Value, json};

use crate::support::TestWorkspace;
use crate::uptake::RELEASE_FLOW;

/// How one scripted run of the release workflow goes.
#[derive(Clone, Copy)]
pub(crate) struct Run {
    pub with_skill: bool,
    /// Failing commands before the workflow goes through (each a retry).
    pub failures: usize,
    /// The run ends on a failed push.
    pub fails: bool,
    /// The user's next prompt corrects it.
    pub corrected: bool,
    pub model: &'static str,
}

pub(crate) const GOOD: Run =
    Run { with_skill: true, failures: 0, fails: false, corrected: false, model: "model-a" };
pub(crate) const BAD: Run =
    Run { with_skill: false, failures: 2, fails: true, corrected: true, model: "model-a" };

/// One session holding one run and the user's next prompt, as Claude Code writes it.
pub(crate) fn session(n: usize, run: Run) -> String {
    let s = format!("{n:08}-eeee-4bbb-8ccc-000000000000");
    let start = chrono::DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z").unwrap()
        + chrono::Duration::hours(n as i64);
    let mut tick = 0;
    let mut at = || {
        tick += 5;
        (start + chrono::Duration::seconds(tick)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let line = |kind: &str, at: String, message: Value| json!({"type": kind, "sessionId": s, "timestamp": at, "cwd": "/repo", "message": message});
    let mut lines = vec![line(
        "user",
        at(),
        json!({"role": "user", "content": format!("cut release 1.{n} of the crate")}),
    )];
    let mut calls: Vec<(&str, Value, bool)> = Vec::new();
    if run.with_skill {
        calls.push(("Skill", json!({"skill": "release-flow"}), false));
    }
    for _ in 0..run.failures {
        calls.push(("Bash", json!({"command": "cargo test"}), true));
    }
    calls.push(("Bash", json!({"command": "cargo test"}), false));
    calls.push(("Bash", json!({"command": format!("git tag v1.{n}.0")}), false));
    calls.push(("Bash", json!({"command": "git push --tags"}), run.fails));
    for (i, (tool, input, error)) in calls.into_iter().enumerate() {
        let id = format!("toolu_{n}_{i}");
        lines.push(line(
            "assistant",
            at(),
            json!({"role": "assistant", "model": run.model, "id": format!("msg_{n}_{i}"),
                   "usage": {"input_tokens": 100, "output_tokens": 50 * (i + 1)},
                   "content": [{"type": "tool_use", "id": id, "name": tool, "input": input}]}),
        ));
        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
        if error {
            result["is_error"] = json!(true);
        }
        lines.push(line("user", at(), json!({"role": "user", "content": [result]})));
    }
    let next = if run.corrected { "no, that's the wrong tag" } else { "thanks" };
    lines.push(line("user", at(), json!({"role": "user", "content": next})));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A workspace with the release-flow skill live and `runs` ingested, one session each.
pub(crate) fn workspace_with(runs: &[Run]) -> TestWorkspace {
    let ws = TestWorkspace::new();
    let folder = ws.skills_dir().join("release-flow");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), RELEASE_FLOW).unwrap();
    ws.run_json(&["audit"]);
    let dir = ws.root().join("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    for (n, run) in runs.iter().enumerate() {
        std::fs::write(dir.join(format!("s{n}.jsonl")), session(n + 1, *run)).unwrap();
    }
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    ws
}

fn metric<'a>(e: &'a Value, name: &str) -> &'a Value {
    e["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

#[test]
fn a_skill_that_saves_retries_and_corrections_helps() {
    let runs: Vec<Run> = (0..12).map(|i| if i % 2 == 0 { GOOD } else { BAD }).collect();
    let ws = workspace_with(&runs);
    let e = ws.run_json(&["stats", "release-flow", "--effect"]);
    assert_eq!((e["runs_with"].as_u64(), e["runs_without"].as_u64()), (Some(6), Some(6)), "{e:#}");
    assert_eq!(e["verdict"], "helps", "{e:#}");
    let success = metric(&e, "success");
    assert_eq!((success["with"].as_f64(), success["without"].as_f64()), (Some(1.0), Some(0.0)));
    assert!(success["low"].as_f64().unwrap() > 0.0, "{success:#}");
    assert_eq!(success["reading"], "better");
    let calls = metric(&e, "tool calls");
    // With: Skill + 3 commands; without: 2 failed retries + 3 commands.
    assert_eq!((calls["with"].as_f64(), calls["without"].as_f64()), (Some(4.0), Some(5.0)));
    assert_eq!(metric(&e, "failed steps")["reading"], "better");
    let corrections = metric(&e, "corrections");
    assert_eq!(
        (corrections["with"].as_f64(), corrections["without"].as_f64()),
        (Some(0.0), Some(1.0))
    );
    // Tokens are read from the transcripts' usage: 100 in + 50·i out per message.
    let tokens = metric(&e, "tokens");
    assert_eq!(tokens["with"].as_f64(), Some(4.0 * 100.0 + 50.0 * (1.0 + 2.0 + 3.0 + 4.0)));
    assert!(e["by_model"].as_object().unwrap().is_empty(), "one model: no split");

    let text = ws.run_ok(&["stats", "release-flow", "--effect"]);
    assert!(text.contains("release-flow: helps (6 runs with the skill, 6 without"), "{text}");
    assert!(text.contains("success") && text.contains("+100 pts"), "{text}");

    // The sweep stores it; `features` exports it.
    ws.run_json(&["sweep"]);
    let f: Value = serde_json::from_str(&ws.run_ok(&["features"])).unwrap();
    let row = f.as_array().unwrap().iter().find(|r| r["name"] == "release-flow").unwrap();
    assert_eq!(row["effect"], "helps", "{row:#}");
    assert_eq!(row["effect_success_delta"].as_f64(), Some(1.0), "{row:#}");
    assert_eq!(
        (row["effect_runs_with"].as_u64(), row["effect_runs_without"].as_u64()),
        (Some(6), Some(6))
    );
}

#[test]
fn a_skill_that_adds_failures_makes_things_worse() {
    let worse = Run { with_skill: true, ..BAD };
    let fine = Run { with_skill: false, ..GOOD };
    let runs: Vec<Run> = (0..12).map(|i| if i % 2 == 0 { worse } else { fine }).collect();
    let ws = workspace_with(&runs);
    let e = ws.run_json(&["stats", "release-flow", "--effect"]);
    assert_eq!(e["verdict"], "makes things worse", "{e:#}");
    assert_eq!(metric(&e, "success")["reading"], "worse");
    assert!(metric(&e, "success")["high"].as_f64().unwrap() < 0.0);
    let text = ws.run_ok(&["stats", "release-flow", "--effect"]);
    assert!(text.contains("makes things worse"), "{text}");
}

#[test]
fn too_few_runs_on_a_side_is_not_enough_evidence_yet() {
    let runs = [GOOD, GOOD, GOOD, GOOD, GOOD, GOOD, BAD, BAD];
    let ws = workspace_with(&runs);
    let e = ws.run_json(&["stats", "release-flow", "--effect"]);
    assert_eq!((e["runs_with"].as_u64(), e["runs_without"].as_u64()), (Some(6), Some(2)));
    assert_eq!(e["verdict"], "not enough evidence yet", "{e:#}");
    let success = metric(&e, "success");
    assert!(success["diff"].is_null() && success["low"].is_null(), "no interval: {success:#}");
    let text = ws.run_ok(&["stats", "release-flow", "--effect"]);
    assert!(text.contains("not enough evidence yet (6 runs with the skill, 2 without"), "{text}");
}

#[test]
fn runs_on_two_models_are_also_compared_model_by_model() {
    let mut runs = Vec::new();
    for i in 0..20 {
        let model = if i < 10 { "model-a" } else { "model-b" };
        // On model-a the skill saves retries; on model-b runs go the same way with it or
        // without, so it only adds its own call.
        let run = match (model, i % 2 == 0) {
            ("model-a", true) => GOOD,
            ("model-a", false) => BAD,
            (_, with) => Run { with_skill: with, ..GOOD },
        };
        runs.push(Run { model, ..run });
    }
    let ws = workspace_with(&runs);
    let e = ws.run_json(&["stats", "release-flow", "--effect"]);
    let by = e["by_model"].as_object().unwrap();
    assert_eq!(by.keys().collect::<Vec<_>>(), ["model-a", "model-b"], "{e:#}");
    assert_eq!(by["model-a"]["verdict"], "helps");
    assert_eq!(
        (by["model-a"]["runs_with"].as_u64(), by["model-a"]["runs_without"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(by["model-b"]["verdict"], "makes things worse", "{:#}", by["model-b"]);
    assert_eq!(metric(&by["model-b"], "success")["reading"], "no clear difference");
    assert_eq!(metric(&by["model-b"], "tool calls")["reading"], "worse");
    let text = ws.run_ok(&["stats", "release-flow", "--effect"]);
    assert!(text.contains("model model-a: helps (5 with, 5 without)"), "{text}");
    assert!(text.contains("model model-b: makes things worse"), "{text}");
}

#[test]
fn the_console_sorts_skills_by_effect_and_shows_it_in_the_detail() {
    use skilldeck::tui::Action;
    let runs: Vec<Run> = (0..12).map(|i| if i % 2 == 0 { GOOD } else { BAD }).collect();
    let ws = workspace_with(&runs);
    // A skill whose workflow never ran: measured, not enough evidence; first by name.
    let folder = ws.skills_dir().join("a-notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: a-notes\ndescription: Write notes.\n---\nRun `make notes` then `make publish`.\n",
    )
    .unwrap();
    ws.run_json(&["sweep"]);
    let lib = crate::support::library_workspace(skilldeck::config::Config::default(), ws.root());
    let names = |s: &str| (s.find("a-notes").unwrap(), s.find("release-flow").unwrap());
    let by_name = crate::console::screen(&lib, 120, 40, &[Action::GoSkills]);
    let (a, r) = names(&by_name);
    assert!(a < r, "by name first: {by_name}");
    let mut sort = vec![Action::GoSkills];
    sort.extend([Action::CycleSort; 5]);
    let by_effect = crate::console::screen(&lib, 120, 40, &sort);
    assert!(by_effect.contains("effect"), "the sort is named: {by_effect}");
    let (a, r) = names(&by_effect);
    assert!(r < a, "the skill that helps comes first: {by_effect}");
    sort.push(Action::Enter);
    let detail = crate::console::screen(&lib, 120, 40, &sort);
    assert!(detail.contains("Effect: helps (6 runs with the skill, 6 without)"), "{detail}");
    assert!(detail.contains("success") && detail.contains("+100 pts"), "{detail}");
}

#[test]
fn a_codex_turn_keeps_the_model_its_turn_context_names() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("codex/2026/03/01");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        json!({"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta",
               "payload": {"id": "019e-codex-model", "cwd": "/repo"}}),
        json!({"timestamp": "2026-03-01T10:00:01Z", "type": "turn_context",
               "payload": {"cwd": "/repo", "model": "gpt-test-1"}}),
        json!({"timestamp": "2026-03-01T10:00:02Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": "run the tests"}}),
        json!({"timestamp": "2026-03-01T10:00:03Z", "type": "response_item",
               "payload": {"type": "function_call", "name": "exec_command",
                           "arguments": "{\"cmd\":\"cargo test\"}", "call_id": "c1"}}),
        json!({"timestamp": "2026-03-01T10:00:04Z", "type": "event_msg",
               "payload": {"type": "task_complete", "last_agent_message": "done"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("rollout-2026-03-01T10-00-00-019e-codex-model.jsonl"), text).unwrap();
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let model: Option<String> = db.query_row("SELECT model FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(model.as_deref(), Some("gpt-test-1"));
}
