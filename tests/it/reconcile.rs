//! Every command sees every skill on disk: the skills folders the agents load are reconciled with
//! the database when a command opens the workspace (no sweep or ingest needed first).

use serde_json::Value;

use crate::support::TestWorkspace;

fn write_skill(dir: &std::path::Path, name: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Hand-made skill {name}. Use when testing.\n---\n# {name}\n\nRun `make check`.\n"),
    )
    .unwrap();
}

fn names(audit: &Value) -> Vec<(String, String)> {
    audit
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (s["name"].as_str().unwrap().to_string(), s["agent_id"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_hand_made_skill_is_seen_by_audit_and_pin_at_once() {
    let ws = TestWorkspace::new();
    write_skill(&ws.skills_dir(), "hand-made");
    let audit = ws.run_json(&["audit"]);
    assert_eq!(names(&audit), [("hand-made".to_string(), "default".to_string())]);
    ws.run_ok(&["pin", "hand-made"]);
    let audit = ws.run_json(&["audit"]);
    assert_eq!(audit[0]["protected"], true, "{audit:#}");
    // A second folder appears later: the next command sees it too, the first stays one row.
    write_skill(&ws.skills_dir(), "later");
    let out = ws.run(&["pin", "later"]);
    assert!(out.status.success(), "{}", crate::support::describe(&out));
    assert_eq!(ws.run_json(&["audit"]).as_array().unwrap().len(), 2);
}

#[test]
fn codex_skills_folders_are_a_scope_of_the_codex_agent() {
    let ws = TestWorkspace::new();
    let codex = ws.root().join("codex-skills");
    let shared = ws.root().join("agents-skills");
    write_skill(&codex, "release-notes");
    write_skill(&shared, "hand-made");
    write_skill(&ws.skills_dir(), "hand-made");
    std::fs::write(
        ws.config(),
        format!(
            "[codex]\nskills_dirs = [{:?}, {:?}]\n",
            codex.to_str().unwrap(),
            shared.to_str().unwrap()
        ),
    )
    .unwrap();
    let mut all = names(&ws.run_json(&["audit"]));
    all.sort();
    // The same name under two agents is two skills, kept apart.
    assert_eq!(
        all,
        [
            ("hand-made".to_string(), "codex".to_string()),
            ("hand-made".to_string(), "default".to_string()),
            ("release-notes".to_string(), "codex".to_string())
        ]
    );
    let codex_only = names(&ws.run_json(&["audit", "--agent", "codex"]));
    assert_eq!(codex_only.len(), 2);
    ws.run_ok(&["pin", "release-notes", "--agent", "codex"]);
}
