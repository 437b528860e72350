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
pub(crate) fn session(n: usize, at: &str, with_skill: bool) -> Vec<Value> {
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

pub(crate) const RELEASE_FLOW: &str = "---\nname: release-flow\ndescription: Release the crate. Use when cutting a release.\n---\n# Release\n\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n";

/// Writes sessions `ns` (a day from now, after the skill went live) as transcripts in `dir`;
/// `used` says which of them use the skill.
pub(crate) fn write_sessions(
    dir: &std::path::Path,
    ns: std::ops::RangeInclusive<usize>,
    used: &[usize],
) {
    let later = (chrono::Utc::now() + chrono::Duration::days(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    std::fs::create_dir_all(dir).unwrap();
    for n in ns {
        let lines = session(n, &later, used.contains(&n));
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(format!("s{n}.jsonl")), text).unwrap();
    }
}

fn release_flow_missing(ws: &TestWorkspace) {
    let folder = ws.skills_dir().join("release-flow");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), RELEASE_FLOW).unwrap();
    ws.run_json(&["audit"]); // goes live now
    let dir = ws.root().join("transcripts");
    write_sessions(&dir, 1..=4, &[4]);
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
}

#[test]
fn a_workflow_recurring_without_the_skill_is_a_missed_trigger_and_flags_it() {
    let ws = TestWorkspace::new();
    release_flow_missing(&ws);

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

fn events_of(ws: &TestWorkspace, kind: &str) -> Vec<Value> {
    let t = ws.run_json(&["stats", "release-flow", "--timeline"]);
    t["events"].as_array().unwrap().iter().filter(|e| e["kind"] == kind).cloned().collect()
}

#[test]
fn not_triggering_is_an_event_once_per_transition_with_its_reason() {
    let ws = TestWorkspace::new();
    release_flow_missing(&ws);
    let sweep = ws.run_json(&["sweep"]);
    let changes = sweep["triggering"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{sweep:#}");
    assert_eq!(changes[0]["name"], "release-flow");
    assert_eq!(changes[0]["not_triggering"], true);
    let events = events_of(&ws, "not_triggering");
    assert_eq!(events.len(), 1, "{events:#?}");
    let reason = events[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("3 missed triggers vs 1 uses since"), "{reason}");
    assert!(reason.contains("Release the crate. Use when cutting a release."), "{reason}");
    assert!(reason.contains("cut release 1."), "{reason}");

    // Still not triggering: no second event.
    assert!(ws.run_json(&["sweep", "--full"])["triggering"].as_array().unwrap().is_empty());
    assert_eq!(events_of(&ws, "not_triggering").len(), 1);
    assert!(events_of(&ws, "triggering").is_empty());

    // Used in the next three sessions: 4 uses against 3 misses, triggering again.
    let dir = ws.root().join("transcripts");
    write_sessions(&dir, 5..=7, &[5, 6, 7]);
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    let text = ws.run_ok(&["sweep"]);
    assert!(text.contains("release-flow (Claude Code): triggering again"), "{text}");
    let back = events_of(&ws, "triggering");
    assert_eq!(back.len(), 1, "{back:#?}");
    assert_eq!(back[0]["reason"], "triggering again: 4 uses vs 3 missed triggers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_skill_detail_shows_uptake_and_what_should_have_triggered_it() {
    let live = super::console_live::Live::start().await;
    let folder = live.root.join("skills/release-flow");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), RELEASE_FLOW).unwrap();
    live.press("s");
    live.wait_for("Skills (8)").await;
    write_sessions(&live.root.join("transcripts"), 1..=4, &[4]);
    live.press("i");
    live.wait_for("read 4 files").await;
    live.press("2/release");
    live.code(ratatui::crossterm::event::KeyCode::Enter);
    live.code(ratatui::crossterm::event::KeyCode::Enter);
    let screen = live.wait_for("1 use vs 3 missed triggers").await;
    for text in [
        "workflow (from its body): sh:cargo test → sh:git tag → sh:git push",
        "used in: 00000004-aaaa-4bbb-8ccc-000000000000",
        "Not triggering: the agent repeats its workflow without picking it.",
        "Description: Release the crate. Use when cutting a release.",
        "Requests that should have triggered it:",
        "00000001-aaaa-4bbb-8ccc-000000000000 · “cut release 1.1 of the crate”",
    ] {
        assert!(screen.contains(text), "{text:?} missing from\n{screen}");
    }
    // The engine's sweep records the transition: the timeline shows it with its reason.
    live.code(ratatui::crossterm::event::KeyCode::Esc);
    live.press("s");
    live.wait_for("sweep judged").await;
    live.press("3");
    live.wait_for("not_triggering: 3 missed triggers vs 1 uses").await;
    live.quit().await;
}
