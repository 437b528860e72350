//! Lifecycle: scorer features, the deterministic router, implicit failure signals, the timeline.

use skilldeck::lifecycle;

use crate::lifecycle::{add_skill, open, record, skill_md};
use crate::support::TestWorkspace;

#[test]
fn features_as_json_and_csv() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-a", true, None);
    add_skill(&tw, "default", "hand-b", false, None);
    record(&tw, "auto-a", "SSF");
    let text = tw.run_ok(&["features", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&text).unwrap();
    let a = &rows[0];
    assert_eq!(a["name"], "auto-a");
    assert_eq!(a["is_auto_created"], true);
    assert_eq!(a["use_count"], 3);
    assert_eq!(a["skill_version"], 1);
    assert!((a["skill_success_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    assert!((a["skill_invocation_velocity"].as_f64().unwrap() - 3.0 / 7.0).abs() < 1e-9);
    assert!(a["skill_age_days"].as_f64().unwrap() < 0.01);
    assert!(a["last_used_at"].is_string());
    assert_eq!(rows[1]["skill_success_rate"], serde_json::Value::Null);
    let csv = tw.run_ok(&["features", "--format", "csv"]);
    let lines: Vec<_> = csv.lines().collect();
    assert!(lines[0].starts_with("agent_id,name,status,skill_age_days,skill_success_rate"));
    assert!(lines[1].starts_with("\"default\",\"auto-a\",healthy,"), "{csv}");
    assert!(lines[1].contains(",0.6667,0.4286,1,true,3,"), "{csv}");
    assert_eq!(lines.len(), 3);
}

fn add_described(tw: &TestWorkspace, name: &str, description: &str) {
    let mut ws = open(tw);
    let text = skill_md(name, description, "body");
    lifecycle::register_skill(
        &mut ws,
        "default",
        name,
        &text,
        skilldeck::catalog::VersionSource::Promote,
        false,
        None,
    )
    .unwrap();
}

#[test]
fn suggest_matches_names_descriptions_and_triggers_weighted_by_outcomes() {
    let tw = TestWorkspace::new();
    add_described(&tw, "pdf-forms", "Fill PDF forms. Use when the user sends a tax form");
    add_described(&tw, "pdf-merge", "Merge PDF files");
    add_described(&tw, "csv-clean", "Clean CSV files");
    add_described(&tw, "pdf-broken", "Fill PDF forms badly");
    record(&tw, "pdf-broken", "SFFFSFFF");
    record(&tw, "pdf-merge", "SFSFF");
    tw.run_json(&["sweep"]);
    let found = tw.run_json(&["suggest", "fill the pdf form", "--limit", "3"]);
    let names: Vec<_> =
        found.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pdf-forms", "pdf-merge"], "{found}");
    assert!(!names.contains(&"pdf-broken"), "deprecated skills are never suggested");
    assert_eq!(found[1]["status"], "warning");
    assert_eq!(found[1]["flagged"], true);
    assert!(found[1]["note"].as_str().unwrap().contains("low reliability"));
    assert_eq!(found[0]["prior"], "default");
    // A trigger phrase in the query ranks its skill first, and a bench prior lifts a skill.
    let found = tw.run_json(&["suggest", "the user sends a tax form"]);
    assert_eq!(found[0]["name"], "pdf-forms");
    assert_eq!(tw.run_json(&["suggest", "zebra"]).as_array().unwrap().len(), 0);
    let text = tw.run_ok(&["suggest", "merge pdf"]);
    assert!(text.contains("pdf-merge  (low reliability"), "{text}");
}

#[test]
fn router_priors_follow_the_layered_order() {
    let tw = TestWorkspace::new();
    add_described(&tw, "alpha-report", "Write a report");
    add_described(&tw, "beta-report", "Write a report");
    add_described(&tw, "gamma-report", "Write a report");
    let ws = open(&tw);
    // Through the prompt store's owner, as drafting and benchmarks record scores.
    let insert = |at: &str, skill: &str, score: f64, scorer: &str| {
        let at = format!("2026-01-01T00:00:0{at}Z");
        skilldeck::catalog::prompts::add(
            ws.store.conn(),
            "default",
            skill,
            "p",
            score,
            scorer,
            &at,
        )
        .unwrap();
    };
    insert("1", "gamma-report", 0.7, "auto_drafter");
    insert("2", "beta-report", 1.0, "bench");
    insert("3", "beta-report", 0.2, "auto_drafter");
    let found = tw.run_json(&["suggest", "report"]);
    let order: Vec<_> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (s["name"].as_str().unwrap().to_string(), s["prior"].as_str().unwrap().to_string())
        })
        .collect();
    let expect =
        [("beta-report", "bench"), ("gamma-report", "auto_drafter"), ("alpha-report", "default")];
    let expect: Vec<_> = expect.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(order, expect);
    // 0.7 → round(3.5) = 4 pseudo-successes of 5.
    assert!((found[1]["reliability"].as_f64().unwrap() - 0.8).abs() < 1e-9);
}

#[test]
fn retrying_the_same_task_with_other_tools_after_a_skill_is_an_implicit_failure() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "refactor", false, None);
    // A Claude Code session, ingested (and its turns signed by detection) like any transcript:
    // the skill, then the same task again with other tools; later the skill, then the same task
    // with the same tool.
    use skilldeck::detect::task_signature;
    use skilldeck::synth::transcripts::{Clock, Turn, call, claude_session};
    let prompts =
        ["refactor the code", "Refactor the code!", "refactor the parser", "Refactor the parser."];
    assert_eq!(task_signature(prompts[0]), task_signature(prompts[1]));
    assert_eq!(task_signature(prompts[2]), task_signature(prompts[3]));
    assert_ne!(task_signature(prompts[0]), task_signature(prompts[2]));
    let skill = || call("Skill", serde_json::json!({"skill": "refactor"}));
    let edit = || call("Edit", serde_json::json!({"file_path": "/p/a.rs"}));
    let turns = [
        vec![skill(), edit()],
        vec![
            call("Read", serde_json::json!({"file_path": "/p/a.rs"})),
            call("Bash", serde_json::json!({"command": "cargo test"})),
        ],
        vec![skill(), edit()],
        vec![edit()],
        vec![],
    ];
    let script: Vec<Turn> = turns
        .into_iter()
        .zip(prompts.iter().copied().chain(["thanks, that is all"]))
        .map(|(calls, prompt)| Turn { prompt: prompt.to_string(), calls, reply: "done" })
        .collect();
    let start = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().to_utc();
    let text = claude_session(&mut Clock::starting(start), "s1", "/p", &script);
    let dir = tw.root().join("projects/p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s1.jsonl"), text).unwrap();
    tw.run_json(&["ingest", dir.to_str().unwrap()]);
    let report = tw.run_json(&["sweep"]);
    assert_eq!(
        report["implicit_failures"], 1,
        "turn 4 used the same tools: not a retry with others"
    );
    let stats = tw.run_json(&["stats", "refactor"]);
    assert_eq!(
        (stats["success_count"].as_i64(), stats["failure_count"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(tw.run_json(&["sweep"])["implicit_failures"], 0, "rerunning adds nothing");
    let note: String = open(&tw)
        .store
        .conn()
        .query_row("SELECT note FROM skill_invocations WHERE source = 'implicit'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(note, "retried in turn 2 with different tools");
}

#[test]
fn timeline_has_days_rate_points_and_events() {
    let tw = TestWorkspace::new();
    let id = add_skill(&tw, "default", "t", false, None);
    let ws = open(&tw);
    for (at, outcome) in [
        ("2026-01-01T10:00:00Z", "success"),
        ("2026-01-01T11:00:00Z", "failure"),
        ("2026-01-03T09:00:00Z", "success"),
    ] {
        // What `record` writes, at a chosen time (through the invocation table's owner).
        let new = skilldeck::catalog::invocations::NewInvocation {
            agent: "default",
            skill_name: "t",
            skill_id: Some(id),
            outcome: skilldeck::model::Outcome::parse(outcome).unwrap(),
            source: skilldeck::catalog::InvocationSource::Explicit,
            session_key: None,
            turn_id: None,
            call_id: None,
            note: None,
            at,
        };
        skilldeck::catalog::invocations::insert(ws.store.conn(), &new).unwrap();
    }
    let t = lifecycle::timeline(&ws.store, id).unwrap();
    let days: Vec<_> = t.days.iter().map(|d| (d.day.as_str(), d.successes, d.failures)).collect();
    assert_eq!(days, [("2026-01-01", 1, 1), ("2026-01-03", 1, 0)]);
    let rates: Vec<_> = t.rate_points.iter().map(|p| p.rate).collect();
    assert_eq!(rates, [1.0, 0.5, 2.0 / 3.0]);
    assert_eq!(t.events[0].kind, skilldeck::catalog::EventKind::Registered);
}

#[test]
fn real_skills_are_imported_by_a_sweep_and_routed() {
    let Some(src) = crate::support::shared_data("skills/openai__skills") else { return };
    let tw = TestWorkspace::new();
    let mut copied = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let dir = entry.unwrap().path();
        let skill = dir.join("SKILL.md");
        if skill.is_file() {
            let to = tw.skills_dir().join(dir.file_name().unwrap());
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(&skill, to.join("SKILL.md")).unwrap();
            copied += 1;
        }
    }
    assert_eq!(copied, 10, "SOURCES.md: 10 real Codex skills");
    // Each folder is imported as version 1 when the next command opens the workspace.
    let audit = tw.run_json(&["audit"]);
    assert_eq!(audit.as_array().unwrap().len(), 10);
    assert!(
        audit.as_array().unwrap().iter().all(|s| s["status"] == "healthy" && s["version"] == 1)
    );
    let found = tw.run_json(&["suggest", "fix the failing CI checks on my GitHub PR"]);
    assert_eq!(found[0]["name"], "gh-fix-ci", "{found}");
    let found = tw.run_json(&["suggest", "write a plan for this coding task"]);
    assert_eq!(found[0]["name"], "create-plan", "{found}");
    // A second sweep finds nothing new.
    assert_eq!(tw.run_json(&["sweep"])["edits_recorded"], 0);
}

#[test]
fn a_registered_skill_is_suggested_by_its_triggers_and_a_sweep_adds_no_version() {
    // Every skill row is written by the one registration path, which reads the triggers then.
    let tw = TestWorkspace::new();
    let text = "---\nname: auto-lint\ndescription: Lint the tree\nmetadata:\n  triggers:\n    - tidy warnings\n---\nbody\n";
    let mut ws = open(&tw);
    let source = skilldeck::catalog::VersionSource::Promote;
    lifecycle::register_skill(&mut ws, "default", "auto-lint", text, source, true, None).unwrap();
    let found = tw.run_json(&["suggest", "tidy"]);
    assert_eq!(found[0]["name"], "auto-lint", "{found}");
    let report = tw.run_json(&["sweep"]);
    assert_eq!(report["edits_recorded"], 0, "same bytes as version 1: no new version");
    assert_eq!(tw.run_json(&["versions", "auto-lint"]).as_array().unwrap().len(), 1);
}
