//! `skilldeck demo` through the binary: the whole pipeline over the built-in transcripts.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::support::{agentskills_validate, describe};

fn demo_json(dir: &std::path::Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["demo", "--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn skill<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["skills"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap_or_else(|| {
        panic!("no skill {name} in {}", report["skills"]);
    })
}

/// Runs a subcommand against the demo workspace, like the summary's `try:` line says.
pub(crate) fn run_in_demo(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .arg("--db")
        .arg(dir.join("skilldeck.db"))
        .arg("--skills-dir")
        .arg(dir.join("skills"))
        .arg("--config")
        .arg(dir.join("config.toml"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", describe(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn in_demo(dir: &std::path::Path, args: &[&str]) -> Value {
    let text = run_in_demo(dir, &[args, &["--json"]].concat());
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?} printed non-JSON ({e}): {text}"))
}

#[test]
fn demo_runs_every_stage_and_its_drafts_pass_the_reference_validator() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let report = demo_json(&dir);

    let first = &report["first_pass"];
    assert_eq!(first["ingest"]["files"], 7, "3 Claude sessions, 3 Codex rollouts, 1 native file");
    assert_eq!(first["ingest"]["bad_lines"], 0);
    assert_eq!(report["second_pass"]["ingest"]["files_read"], 4);

    // Discovery proposes concrete workflows with their commands; generic tool sequences and
    // the native streak without commands stay evidence, out of the queue.
    let candidates = in_demo(&dir, &["candidates", "--all"]);
    let candidates = candidates.as_array().unwrap();
    for c in candidates {
        // Workflows, and the trigger rewrite of the backup skill the agent keeps missing.
        let trigger = c["source"] == "trigger" && c["target_skill_name"] == "db-backup";
        assert!(c["source"] == "workflow" || trigger, "only workflows are proposed: {c}");
        assert_eq!(c["evidence_only"], false, "{c}");
    }
    let templates = |c: &Value| -> Vec<String> {
        c["workflow"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["template"].as_str().unwrap().to_string())
            .collect()
    };
    let migration = candidates
        .iter()
        .find(|c| templates(c).iter().any(|t| t == "sqlx migrate run"))
        .expect("the migration workflow");
    assert_eq!(migration["status"], "candidate");
    assert_eq!(migration["occurrences"], 3);
    assert!(templates(migration).iter().any(|t| t == "Edit migrations/*.sql"), "{migration}");
    let reason = migration["reason"]["summary"].as_str().unwrap();
    assert!(reason.contains("seen in 3 sessions of 3 projects"), "{reason}");
    // The release workflow seen in 3 sessions was promoted; grown by a step in later sessions,
    // it is a proposed new version of that skill, not a new skill.
    let promoted = report["promoted"].as_str().unwrap();
    let proposal = candidates
        .iter()
        .find(|c| c["status"] == "candidate" && c["target_skill_name"] == promoted)
        .expect("a proposed version");
    assert_eq!(proposal["target_skill_id"], skill(&report, promoted)["id"]);
    assert_eq!(proposal["target_skill_name"], promoted);
    assert_eq!(proposal["occurrences"], 6);
    let steps = templates(proposal);
    for step in
        ["git tag v<version>", "cargo publish", "gh release create v<version> --notes-from-tag"]
    {
        assert!(steps.iter().any(|t| t == step), "{step} missing from {steps:?}");
    }
    let id = proposal["id"].to_string();
    let listing = run_in_demo(&dir, &["candidates"]);
    assert!(
        listing.contains(&format!("proposes a new version of {promoted}: skilldeck approve {id}")),
        "{listing}"
    );
    // Approving it makes version 2 of the same skill, and the diff shows the added step.
    run_in_demo(&dir, &["approve", &id]);
    let diff = run_in_demo(&dir, &["diff", promoted, "1", "2"]);
    assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("gh release create")), "{diff}");
    // Codex work belongs to its own agent.
    let codex = in_demo(&dir, &["candidates", "--agent", "codex"]);
    assert_eq!(codex.as_array().unwrap().len(), 1, "{codex}");
    assert_eq!(codex[0]["agent_id"], "codex");
    let steps = templates(&codex[0]);
    assert!(steps.iter().any(|t| t == "bd close <id>"), "{steps:?}");

    // Outcomes were scored and swept: failing skill deprecated, the pinned one spared.
    assert_eq!(skill(&report, "legacy-deploy")["status"], "deprecated");
    let pinned = skill(&report, "lint-fix");
    assert_eq!(pinned["protected"], true);
    assert_ne!(pinned["status"], "deprecated");
    assert_eq!(skill(&report, "release-notes")["status"], "healthy");
    // Hand-made skills found in the folder were adopted as version 1, not seen as edits.
    let versions = in_demo(&dir, &["versions", "legacy-deploy"]);
    assert_eq!(versions.as_array().unwrap().len(), 1, "{versions}");
    assert_eq!(versions[0]["source"], "adopt");

    // Every staged draft and every live skill is valid Agent Skills.
    for sub in ["staging", "skills"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let folder: PathBuf = entry.unwrap().path();
            if folder.join("SKILL.md").is_file() {
                agentskills_validate(&folder);
            }
        }
    }
}

#[test]
fn demo_rebuilds_its_own_folder_and_refuses_a_foreign_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let a = demo_json(&dir);
    let b = demo_json(&dir);
    assert_eq!(a["skills"].as_array().unwrap().len(), b["skills"].as_array().unwrap().len());
    assert_eq!(a["open_candidates"], b["open_candidates"]);

    let foreign = tmp.path().join("mine");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep me").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["demo", "--no-console", "--dir"])
        .arg(&foreign)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not made by `skilldeck demo`"));
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "keep me");
}

#[test]
fn the_demo_console_shows_a_skills_effect_and_a_trigger_rewrite_proposal() {
    use skilldeck::tui::Action;
    let tmp = tempfile::tempdir().unwrap();
    let (ws, _) = skilldeck::demo::build(&tmp.path().join("demo")).unwrap();
    let queue = crate::console::screen(&ws, 140, 50, &[]);
    assert!(queue.contains("db-backup"), "the trigger rewrite is in the queue: {queue}");
    let effect = ws.store.conn();
    let backup: i64 = effect
        .query_row("SELECT id FROM skills WHERE name = 'db-backup'", [], |r| r.get(0))
        .unwrap();
    let stored = skilldeck::usage::effects::load(effect, backup).unwrap().expect("measured");
    assert_eq!(stored.overall.verdict.as_str(), "helps");
    // Skills sorted by effect: the backup skill first; Enter shows its effect.
    let mut keys = vec![Action::GoSkills];
    keys.extend([Action::CycleSort; 5]);
    keys.push(Action::Enter);
    let detail = crate::console::screen(&ws, 140, 50, &keys);
    assert!(detail.contains("Effect: helps (6 runs with the skill, 9 without)"), "{detail}");
    assert!(detail.contains("failed steps") && detail.contains("better"), "{detail}");
    // Beside it, the trial the demo ran with a stand-in agent.
    assert!(detail.contains("Trial: trial of db-backup on"), "{detail}");
    assert!(detail.contains(": helps (5 runs each"), "{detail}");
    assert!(detail.contains("with:    passed 5 of 5"), "{detail}");
    assert!(detail.contains("without: passed 0 of 5"), "{detail}");
}

#[test]
fn what_reaches_the_agent_after_promote_and_approve_has_no_staging_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    demo_json(&dir);
    // The demo promotes release-crate and proposes a version of it drafted under a hashed name.
    let proposal = in_demo(&dir, &["candidates"]);
    let row = proposal
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("release-crate-"))
        .unwrap_or_else(|| panic!("no proposed version of release-crate in {proposal}"))
        .clone();
    let id = row["id"].to_string();
    let hash = row["name"].as_str().unwrap().trim_start_matches("release-crate-").to_string();
    run_in_demo(&dir, &["approve", &id]);
    for entry in std::fs::read_dir(dir.join("skills")).unwrap() {
        let file = entry.unwrap().path().join("SKILL.md");
        let text = std::fs::read_to_string(&file).unwrap();
        for staging in ["Draft awaiting review", "skilldeck-needs-review", "skilldeck-auto-drafted"]
        {
            assert!(!text.contains(staging), "{} carries {staging:?}:\n{text}", file.display());
        }
    }
    let live = std::fs::read_to_string(dir.join("skills/release-crate/SKILL.md")).unwrap();
    assert!(live.contains("\n# Release crate\n"), "{live}");
    assert!(live.contains("description: \"Release crate: "), "{live}");
    assert!(!live.contains(&hash), "{live}");
    agentskills_validate(&dir.join("skills/release-crate"));
}
