//! Missed triggers: a live skill's workflow recurs in a session after it went live, and the skill
//! was not used there. Through the binary: `stats NAME --uptake`.

use serde_json::{Value, json};

use crate::support::TestWorkspace;

fn line(kind: &str, session: &str, at: &str, content: Value) -> Value {
    json!({"type": kind, "sessionId": session, "timestamp": at, "cwd": "/repo",
           "message": {"role": if kind == "user" { "user" } else { "assistant" }, "content": content}})
}

/// One session: a request, the release commands as Bash calls (optionally through the skill), and
/// a closing request.
fn session(n: usize, at: &str, with_skill: bool) -> Vec<Value> {
    let s = format!("0000000{n}-aaaa-4bbb-8ccc-000000000000");
    let mut out = vec![line("user", &s, at, json!(format!("cut release 1.{n} of the crate")))];
    let mut calls = vec![];
    if with_skill {
        calls.push(("Skill", json!({"skill": "release-flow"})));
    }
    for cmd in ["cargo test", &format!("git tag v1.{n}.0"), "git push --tags"] {
        calls.push(("Bash", json!({"command": cmd})));
    }
    for (i, (tool, input)) in calls.into_iter().enumerate() {
        let id = format!("toolu_{n}{i}");
        out.push(line(
            "assistant",
            &s,
            at,
            json!([{"type": "tool_use", "id": id, "name": tool, "input": input}]),
        ));
        out.push(line(
            "user",
            &s,
            at,
            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
        ));
    }
    out.push(line("user", &s, at, json!("thanks")));
    out
}

#[test]
fn a_workflow_recurring_without_the_skill_is_a_missed_trigger_and_flags_it() {
    let ws = TestWorkspace::new();
    let folder = ws.skills_dir().join("release-flow");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: release-flow\ndescription: Release the crate. Use when cutting a release.\n---\n# Release\n\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n",
    )
    .unwrap();
    ws.run_json(&["audit"]); // goes live now
    let later = (chrono::Utc::now() + chrono::Duration::days(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let dir = ws.root().join("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    for n in 1..=4 {
        let lines = session(n, &later, n == 4);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(format!("s{n}.jsonl")), text).unwrap();
    }
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);

    let u = ws.run_json(&["stats", "release-flow", "--uptake"]);
    assert_eq!(u["workflow_from"], "body");
    assert_eq!(u["workflow"], json!(["sh:cargo test", "sh:git tag", "sh:git push"]), "{u:#}");
    assert_eq!(u["uses"], 1, "session 4 used it: {u:#}");
    let missed = u["missed"].as_array().unwrap();
    assert_eq!(missed.len(), 3, "{u:#}");
    assert!(missed.iter().all(|m| m["matched"] == 3 && m["of"] == 3));
    let mut requests: Vec<&str> = missed.iter().map(|m| m["request"].as_str().unwrap()).collect();
    requests.sort_unstable();
    assert_eq!(
        requests,
        [
            "cut release 1.1 of the crate",
            "cut release 1.2 of the crate",
            "cut release 1.3 of the crate"
        ]
    );
    assert_eq!(u["not_triggering"], true);
    let text = ws.run_ok(&["stats", "release-flow", "--uptake"]);
    assert!(
        text.contains("1 uses vs 3 missed triggers") && text.contains("not triggering"),
        "{text}"
    );
    assert!(text.contains("description: Release the crate."), "{text}");
}

#[test]
fn skills_doing_the_same_steps_are_listed_as_overlapping_and_others_are_not() {
    let ws = TestWorkspace::new();
    let write = |name: &str, description: &str, body: &str| {
        let folder = ws.skills_dir().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n");
        std::fs::write(folder.join("SKILL.md"), text).unwrap();
    };
    write(
        "release-flow",
        "Release the crate.",
        "Run `cargo test`, `git tag v1`, `git push --tags`.",
    );
    write(
        "ship-it",
        "Ship a version.",
        "1. `cargo test`\n2. `git tag v2`\n3. `git push origin --tags`",
    );
    write(
        "pdf-forms",
        "Fill PDF forms.",
        "Run `pdftk form.pdf fill_form data.fdf output out.pdf`.",
    );
    let pairs = ws.run_json(&["overlaps"]);
    let pairs = pairs.as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{pairs:#?}");
    let names = [pairs[0]["a"].as_str().unwrap(), pairs[0]["b"].as_str().unwrap()];
    assert!(names.contains(&"release-flow") && names.contains(&"ship-it"), "{names:?}");
    assert_eq!(pairs[0]["workflow_order"], 1.0);
    assert!(pairs[0]["strong"].as_str().unwrap().contains("same order"));
}
