//! Using imported packages through the CLI: render with variants, dispatch with the dspy
//! fallback, checks with traces and scores, and the console's detail view through the library.

use serde_json::Value;
use skilldeck::store::Store;

use crate::packages::{count, fixture, path_str, write};
use crate::support::{TestWorkspace, describe};

#[test]
fn render_fills_variables_and_names_a_missing_one() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("consistency-checker.json"))]);
    let claims = r#"claims=[{"page_name":"Aria","text":"born in 1200"},{"page_name":"Keep","text":"born in 1250"}]"#;
    let out = tw.run_ok(&[
        "render",
        "Consistency Checker",
        "Check Prompt",
        "--var",
        "entity_name=Aria",
        "--var-json",
        claims,
    ]);
    assert!(out.starts_with("Given the following claims about \"Aria\":"), "{out}");
    assert!(out.contains("Claim 1 (from [[Aria]]): born in 1200"), "{out}");
    assert!(out.contains("Claim 2 (from [[Keep]]): born in 1250"), "{out}");

    let out =
        tw.run(&["render", "consistency-checker", "check-prompt", "--var", "entity_name=Aria"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("undefined"), "{}", describe(&out));

    let out = tw.run(&["render", "consistency-checker", "Nope"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no artifact named \"Nope\""));
}

#[test]
fn render_picks_the_model_variant_exact_then_default_then_first_by_ordinal() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    let render = |artifact: &str, model: Option<&str>| {
        let mut args = vec!["render", "release-notes", artifact, "--var", "version=1.2"];
        if let Some(m) = model {
            args.extend(["--model", m]);
        }
        tw.run_ok(&args).trim_end().to_string()
    };
    assert_eq!(render("Draft", Some("claude-sonnet-4")), "ANTHROPIC: <notes version=\"1.2\"/>");
    assert_eq!(render("Draft", Some("gpt-4o")), "OPENAI: notes for 1.2");
    assert_eq!(render("Draft", Some("mistral-large")), "DEFAULT: notes for 1.2");
    assert_eq!(render("Draft", None), "DEFAULT: notes for 1.2");
    // No default row: the first by ordinal (anthropic, ordinal 4) unless the family matches.
    assert_eq!(render("Headline", Some("mistral-large")), "ANTHROPIC headline 1.2");
    assert_eq!(render("Headline", Some("openai")), "OPENAI headline 1.2");
    let json = tw.run_json(&[
        "render",
        "release-notes",
        "Draft",
        "--var",
        "version=1",
        "--model",
        "gpt-5",
    ]);
    assert_eq!(json["model_variant"], "openai");
}

#[test]
fn a_dspy_module_falls_back_to_its_prompt_template_when_the_runtime_is_absent() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("consistency-checker.json"))]);
    let out = tw
        .cmd()
        .args([
            "dispatch",
            "consistency-checker",
            "DSPy Checker",
            "--var",
            "entity_name=Aria",
            "--var-json",
            "claims=[]",
            "--session",
            "s1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "the DSPy runtime is absent; fell back to its prompt_template \"Check Prompt\""
        ),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("Given the following claims about \"Aria\"")
    );

    let json = tw.run_json(&[
        "dispatch",
        "consistency-checker",
        "DSPy Checker",
        "--var",
        "entity_name=A",
        "--var-json",
        "claims=[]",
    ]);
    assert_eq!(json["fell_back_from"], "DSPy Checker");
    assert_eq!(json["artifact"], "Check Prompt");
    assert_eq!(json["handler"], "prompt_engine");
    // The trace names the artifact that actually ran.
    assert_eq!(
        count(&tw, "SELECT COUNT(*) FROM skill_execution_traces t JOIN skill_artifacts a ON a.id = t.artifact_id
                    WHERE a.name = 'Check Prompt' AND t.artifact_kind = 'prompt_template' AND t.error IS NULL"),
        2
    );
    assert_eq!(
        count(&tw, "SELECT COUNT(*) FROM skill_execution_traces WHERE session_id = 's1'"),
        1
    );
}

#[test]
fn a_configured_dspy_runtime_runs_the_module_and_a_missing_one_means_absent() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    let runtime = tw.root().join("fake-dspy");
    std::fs::write(&runtime, "#!/bin/sh\nread -r request\necho \"ran: $request\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(tw.config(), format!("[packages]\ndspy_runtime = [{:?}]\n", runtime)).unwrap();
    let json = tw.run_json(&["dispatch", "release-notes", "Optimized Draft", "--var", "version=3"]);
    assert_eq!(json["handler"], "dspy_runtime");
    assert_eq!(json["fell_back_from"], Value::Null);
    let output = json["output"].as_str().unwrap();
    assert!(output.starts_with("ran: {"), "{output}");
    assert!(
        output.contains("\"template_id\":\"predict\"")
            && output.contains("\"state_blob\":\"{\\\"demos\\\": []}\""),
        "{output}"
    );

    std::fs::write(tw.config(), "[packages]\ndspy_runtime = [\"/nonexistent/dspy-sidecar\"]\n")
        .unwrap();
    let json = tw.run_json(&["dispatch", "release-notes", "Optimized Draft", "--var", "version=3"]);
    assert_eq!(json["fell_back_from"], "Optimized Draft");
    assert_eq!(json["output"], "DEFAULT: notes for 3");
}

#[test]
fn a_dspy_module_without_fallback_fails_clearly_and_the_trace_keeps_the_error() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("consistency-checker.json"))]);
    // Raw SQL: import refuses such a module, so strip the fallback from the stored row by hand.
    Store::open(&tw.db())
        .unwrap()
        .conn()
        .execute("UPDATE skill_artifacts SET metadata = '{}' WHERE kind = 'dspy_module'", [])
        .unwrap();
    let out = tw.run(&["dispatch", "consistency-checker", "DSPy Checker"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs the DSPy runtime, which is absent"), "{stderr}");
    assert!(stderr.contains("names no metadata.fallback_artifact"), "{stderr}");
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_execution_traces WHERE artifact_kind = 'dspy_module' AND error LIKE '%fallback_artifact%'"
        ),
        1
    );
}

#[test]
fn code_templates_are_rendered_and_run_with_the_variables_as_payload() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    let json = tw.run_json(&[
        "dispatch",
        "release-notes",
        "Count Changes",
        "--var",
        "version=4.0",
        "--var-json",
        "changes=[1,2,3]",
    ]);
    assert_eq!(json["handler"], "code_runner");
    assert_eq!(json["output"], "4.0: 3 changes\n");
    let out = tw.run(&[
        "dispatch",
        "release-notes",
        "Count Changes",
        "--var",
        "version=4.0",
        "--var-json",
        "changes=5",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("TypeError"), "{}", describe(&out));
}

#[test]
fn check_evaluates_assertions_records_traces_and_feeds_the_score() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    let good = write(&tw, "good.json", r#"{"sections": ["Fixes", "Features"]}"#);
    let out = tw.run_ok(&["check", "release-notes", "Draft", "--output", path_str(&good)]);
    assert!(out.contains("PASS    structural json_schema"), "{out}");
    assert!(out.contains("NOT RUN semantic llm_eval"), "{out}");
    assert!(
        out.contains("3/3 assertions passed, 1 not run; recorded success for release-notes"),
        "{out}"
    );

    let bad = write(&tw, "bad.txt", "```\n{\"sections\": []}\n```");
    let out = tw.run(&["check", "release-notes", "Draft", "--output", path_str(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FAIL    structural json_schema: output is not JSON"), "{stdout}");
    assert!(stdout.contains("FAIL    pattern regex_no_match"), "{stdout}");
    assert!(stdout.contains("PASS    length char_range"), "{stdout}");
    assert!(stdout.contains("1/3 assertions passed"), "{stdout}");

    let empty_list = write(&tw, "empty.json", r#"{"sections": [], "x": 1}"#);
    let report = {
        let out = tw.run(&[
            "check",
            "release-notes",
            "Draft",
            "--output",
            path_str(&empty_list),
            "--json",
        ]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(report["outcome"], "failure");
    assert_eq!(report["results"][0]["detail"], "$.sections: 0 items, fewer than 1");

    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_execution_traces WHERE assertions_run = 3 AND assertions_passed = 3"
        ),
        1
    );
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_execution_traces WHERE assertions_run = 3 AND assertions_passed = 1"
        ),
        1
    );
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_invocations WHERE source = 'check' AND skill_name = 'release-notes' AND outcome = 'success'"
        ),
        1
    );
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_invocations WHERE source = 'check' AND outcome = 'failure'"
        ),
        2
    );

    // An artifact without assertions: nothing runs, the score is untouched.
    tw.run_ok(&["check", "release-notes", "Headline", "--output", path_str(&good)]);
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skill_invocations"), 3);
}

#[test]
fn detail_shows_artifacts_variants_scope_shadowing_and_traces() {
    let tw = TestWorkspace::new();
    let ws_skills = tw.root().join("project-skills");
    std::fs::write(tw.config(), format!("workspace_skills_dir = {:?}\n", ws_skills)).unwrap();
    let pkg = fixture("variants.json");
    tw.run_ok(&["import", path_str(&pkg)]);
    tw.run_ok(&["import", path_str(&pkg), "--scope", "workspace"]);
    tw.run_ok(&["dispatch", "release-notes", "Draft", "--var", "version=1", "--model", "openai"]);

    let store = Store::open(&tw.db()).unwrap();
    let id = |scope: &str| -> i64 {
        store
            .conn()
            .query_row("SELECT id FROM skills WHERE scope = ?1", [scope], |r| r.get(0))
            .unwrap()
    };
    let account = skilldeck::packages::detail(&store, id("account")).unwrap();
    assert_eq!(account.scope.as_str(), "account");
    assert_eq!(account.status, skilldeck::catalog::SkillStatus::Healthy);
    let shown = serde_json::to_value(&account).unwrap();
    assert_eq!(
        (shown["scope"].as_str(), shown["status"].as_str()),
        (Some("account"), Some("healthy")),
        "typed fields, spelt as before: {shown}"
    );
    assert_eq!(account.shadowed_by.as_ref().map(|s| s.skill_id), Some(id("workspace")));
    assert!(account.recent_traces.is_empty());
    let workspace = skilldeck::packages::detail(&store, id("workspace")).unwrap();
    assert_eq!(workspace.shadowed_by, None);
    assert_eq!(workspace.shadows.iter().map(|s| s.skill_id).collect::<Vec<_>>(), [id("account")]);
    assert_eq!(workspace.artifacts.len(), 8);
    assert_eq!(workspace.display_name.as_deref(), Some("Release Notes"));
    let draft = workspace.variants.iter().find(|g| g.artifact == "Draft").unwrap();
    assert_eq!(draft.variants, [None, Some("anthropic".into()), Some("openai".into())]);
    let dspy = workspace.artifacts.iter().find(|a| a.name == "Optimized Draft").unwrap();
    assert_eq!(dspy.fallback_artifact.as_deref(), Some("Draft"));
    assert_eq!(workspace.artifacts.iter().find(|a| a.name == "Draft").unwrap().assertions, 4);
    assert_eq!(workspace.recent_traces.len(), 1);
    assert_eq!(workspace.recent_traces[0].artifact_name.as_deref(), Some("Draft"));
    assert_eq!(workspace.recent_traces[0].model_id.as_deref(), Some("openai"));
}
