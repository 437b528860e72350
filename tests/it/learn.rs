//! `skilldeck learn [SESSION|--last]`: a skill drafted from the one session a person points at,
//! staged for review with the same drafting and checks as detection's. Through the binary.

use serde_json::{Value, json};

use crate::support::TestWorkspace;

pub(crate) fn session(key: &str, at: &str, request: &str, commands: &[&str]) -> String {
    let line = |kind: &str, content: Value| {
        json!({"type": kind, "sessionId": key, "timestamp": at, "cwd": "/repo",
               "message": {"role": if kind == "user" { "user" } else { "assistant" }, "content": content}})
        .to_string()
    };
    let mut out = vec![line("user", json!(request))];
    for (i, cmd) in commands.iter().enumerate() {
        let id = format!("toolu_{key}_{i}");
        out.push(line(
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]),
        ));
        out.push(line(
            "user",
            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
        ));
    }
    out.push(line("user", json!("thanks")));
    out.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn learn_drafts_the_last_session_or_a_named_one_as_a_candidate_for_review() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    let other = ["npm ci", "npm run lint", "npm test"];
    for (n, day) in [(1, "01"), (2, "02"), (3, "03")] {
        let text = session(
            &format!("web-{n}"),
            &format!("2026-03-{day}T10:00:00Z"),
            "check the web app",
            &other,
        );
        std::fs::write(dir.join(format!("web{n}.jsonl")), text).unwrap();
    }
    let release = ["cargo test", "cargo build --release", "git tag v1.2.0", "git push --tags"];
    let text = session("rel-1", "2026-03-04T10:00:00Z", "cut release 1.2 of the crate", &release);
    std::fs::write(dir.join("rel.jsonl"), text).unwrap();
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    // Seen once: detection alone proposes nothing.
    assert!(ws.run_json(&["candidates"]).as_array().unwrap().is_empty());

    let l = ws.run_json(&["learn", "--last"]);
    assert_eq!(l["session"], "rel-1", "{l:#}");
    assert_eq!(l["drafted"], true, "{l:#}");
    let id = l["candidate_id"].as_i64().unwrap();
    let c = ws.run_json(&["candidates"]);
    let c = c.as_array().unwrap().iter().find(|c| c["id"] == id).cloned().unwrap();
    assert_eq!(c["source"], "learn", "{c:#}");
    assert_eq!(c["status"], "candidate");
    assert_eq!(c["session_keys"], json!(["rel-1"]));
    // Named as any workflow is, by what was asked, never by its tool names (`seq-shell-…`).
    assert_eq!(c["name"], "cut-release", "{c:#}");
    let staged =
        std::fs::read_to_string(format!("{}/SKILL.md", c["staged_path"].as_str().unwrap()))
            .unwrap();
    for cmd in ["cargo test", "git tag", "git push --tags"] {
        assert!(staged.contains(cmd), "{cmd} in\n{staged}");
    }
    assert!(staged.contains("cut release 1.2 of the crate"), "{staged}");
    // Through the same writer as detection's drafts: clean of what a reader sees first.
    let defects = skilldeck::draft::lint::defects(&staged);
    assert!(defects.is_empty(), "{defects:?}\n{staged}");
    assert!(!staged.contains("the way it was done"), "{staged}");
    crate::support::agentskills_validate(std::path::Path::new(c["staged_path"].as_str().unwrap()));

    // Named by the start of its key: the same candidate, not a second draft.
    let again = ws.run_json(&["learn", "rel"]);
    assert_eq!(
        (again["candidate_id"].as_i64(), again["drafted"].as_bool()),
        (Some(id), Some(false))
    );
    let text = ws.run_ok(&["learn", "rel-1"]);
    assert!(text.contains(&format!("session rel-1's work is already candidate {id}")), "{text}");
    // Promoted through the usual door.
    ws.run_ok(&["promote", &id.to_string()]);

    let bad = ws.run(&["learn", "nope"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no ingested session \"nope\""));
    let ambiguous = ws.run(&["learn", "web"]);
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("names 3 sessions"));
}

#[test]
fn hooks_install_offers_learn_as_a_claude_command_and_a_codex_prompt_and_uninstall_takes_it_back() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let hooks = |args: &[&str]| {
        let mut all = vec!["hooks"];
        all.extend_from_slice(args);
        all.extend_from_slice(&[
            "--scope",
            "project",
            "--project",
            project.path().to_str().unwrap(),
        ]);
        ws.run_json(&all)
    };
    let claude = project.path().join(".claude/commands/learn.md");
    let codex = project.path().join(".codex/prompts/learn.md");
    let added = hooks(&["install", "--agent", "claude"]);
    assert!(added.to_string().contains("commands/learn.md"), "{added:#}");
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(text.starts_with("---\ndescription: Draft a skill from this session"), "{text}");
    assert!(text.contains("allowed-tools: Bash(") && text.contains(" learn:*)"), "{text}");
    assert!(text.contains(" ingest\n") && text.contains(" learn --last\n"), "{text}");
    assert!(!text.contains("--hook"), "{text}");
    hooks(&["install", "--agent", "codex"]);
    let prompt = std::fs::read_to_string(&codex).unwrap();
    assert!(prompt.contains(" learn --last") && !prompt.contains("allowed-tools"), "{prompt}");

    hooks(&["uninstall", "--agent", "claude"]);
    hooks(&["uninstall", "--agent", "codex"]);
    assert!(!claude.exists() && !codex.exists());

    // The folders install created went with it.
    assert!(!claude.parent().unwrap().exists(), "commands/ was install's: gone again");
    // A learn command of the user's own is never overwritten nor removed.
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(&claude, "my own learn command\n").unwrap();
    let kept = hooks(&["install", "--agent", "claude"]);
    assert!(kept.to_string().contains("left as it is"), "{kept:#}");
    hooks(&["uninstall", "--agent", "claude"]);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), "my own learn command\n");
}
