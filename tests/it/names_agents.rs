//! Skills go live where their agent loads them, and every command that takes a candidate, a
//! skill, a version or a lesson takes its id or its name, through the binary over the demo
//! workspace (whose `fix-tracker-issue` draft is Codex's work, the rest Claude Code's).

use std::path::PathBuf;

use skilldeck::synth::transcripts::{Call, Clock, Turn, call, claude_session, codex_rollout};

use crate::first_day::Demo;
use crate::support::{TestWorkspace, describe};

/// The demo with a Codex skills folder configured: what `~/.agents/skills` is by default.
fn demo_with_codex_folder() -> (Demo, PathBuf) {
    let d = Demo::new();
    let codex = d.dir.join("agents-skills");
    let config = d.dir.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("\n[codex]\nskills_dirs = [{:?}]\n", codex));
    std::fs::write(&config, text).unwrap();
    (d, codex)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_codex_draft_goes_live_in_codex_s_folder_and_the_cli_says_so() {
    let (d, codex) = demo_with_codex_folder();
    let all = d.json(&["candidates"]);
    let tracker = all.as_array().unwrap().iter().find(|c| c["name"] == "fix-tracker-issue");
    assert_eq!(tracker.expect("the demo's Codex draft")["agent_id"], "codex");

    let said = d.ok(&["promote", "fix-tracker-issue"]);
    let live = codex.join("fix-tracker-issue");
    assert!(live.join("SKILL.md").is_file(), "{said}");
    assert!(!d.dir.join("skills/fix-tracker-issue").exists(), "not in Claude Code's folder");
    assert!(said.contains(&live.display().to_string()), "{said}");
    assert!(said.contains("where Codex loads it"), "{said}");

    // Its skill is Codex's: named without --agent, it is found.
    let stats = d.ok(&["stats", "fix-tracker-issue"]);
    assert!(stats.contains("fix-tracker-issue"), "{stats}");

    // Back to staging by name, and out of Codex's folder.
    let undone = d.ok(&["undo-promote", "fix-tracker-issue"]);
    assert!(undone.contains("is open again"), "{undone}");
    assert!(!live.exists());
}

#[test]
fn a_claude_code_draft_is_said_to_be_loaded_by_claude_code() {
    let d = Demo::new();
    let open = d.json(&["candidates"]);
    let claude = open
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["agent_id"] == "default" && c["status"] == "candidate")
        .filter(|c| c["target_skill_id"].is_null())
        .expect("an open Claude Code draft");
    let name = claude["name"].as_str().unwrap();
    let said = d.ok(&["promote", name]);
    assert!(said.contains("where Claude Code loads it"), "{said}");
    assert!(d.dir.join("skills").join(name).join("SKILL.md").is_file());
}

#[test]
fn without_a_codex_folder_promote_says_codex_will_not_load_it() {
    let d = Demo::new();
    let said = d.ok(&["promote", "fix-tracker-issue"]);
    assert!(said.contains("a Codex skill in a folder Codex does not load"), "{said}");
    assert!(said.contains("codex.skills_dirs"), "{said}");
}

#[test]
fn a_trial_of_a_codex_draft_installs_it_where_codex_loads_project_skills() {
    let d = Demo::new();
    let out = d.ok(&[
        "trial",
        "fix-tracker-issue",
        "--agent",
        "codex exec --json -",
        "--check",
        "true",
        "--runs",
        "1",
        "--dry-run",
    ]);
    assert!(out.contains("(Codex skill)"), "{out}");
    assert!(!out.contains("agent default"), "{out}");
    assert!(
        out.contains(".agents/skills/fix-tracker-issue, where Codex loads project skills"),
        "{out}"
    );
}

#[test]
fn candidates_are_named_by_id_or_name_in_every_command() {
    let d = Demo::new();
    let dismissed = d.ok(&["dismiss", "fix-tracker-issue"]);
    assert!(dismissed.contains("dismissed candidate"), "{dismissed}");
    let back = d.ok(&["undo-dismiss", "fix-tracker-issue"]);
    assert!(back.contains("is open again"), "{back}");
    d.ok(&["promote", "fix-tracker-issue"]);
    let undone = d.ok(&["undo-promote", "fix-tracker-issue"]);
    assert!(undone.contains("is open again"), "{undone}");

    // A typo gets the nearest name; a name of the wrong kind says what it is.
    let typo = d.run(&["dismiss", "fix-traker-issue"]);
    assert!(!typo.status.success());
    assert!(stderr(&typo).contains("did you mean \"fix-tracker-issue\"?"), "{}", describe(&typo));
    assert!(!stderr(&typo).contains("invalid digit"), "{}", describe(&typo));
    let wrong = d.run(&["undo-dismiss", "fix-tracker-issue"]);
    assert!(!wrong.status.success());
    assert!(
        stderr(&wrong).contains("a new skill) is open: no dismissed candidate"),
        "{}",
        describe(&wrong)
    );
}

#[test]
fn skills_versions_and_lessons_are_named_as_they_are_listed() {
    let d = Demo::new();
    let audit = d.json(&["audit"]);
    let skill = &audit.as_array().unwrap()[0];
    let (id, name) = (skill["id"].as_i64().unwrap(), skill["name"].as_str().unwrap());
    let by_id = d.ok(&["versions", &format!("#{id}")]);
    assert_eq!(by_id, d.ok(&["versions", name]));
    assert!(by_id.starts_with("v1"), "{by_id}");
    d.ok(&["diff", name, "v1", "1"]);

    let typo = d.run(&["pin", &format!("{name}x")]);
    assert!(stderr(&typo).contains(&format!("did you mean {name:?}?")), "{}", describe(&typo));

    let lesson = d.run(&["lessons", "dismiss", "fix-doctor"]);
    assert!(!lesson.status.success());
    let said = stderr(&lesson);
    assert!(said.contains("a lesson is named by its id"), "{said}");
    assert!(!said.contains("invalid digit"), "{said}");
}

/// Three sessions of the same release work, as the agent's own transcripts.
fn release_turns(n: usize, call: &dyn Fn(&str) -> Call) -> Vec<Turn> {
    let cmds = [
        "cargo test --all-features".to_string(),
        format!("git tag v0.{n}.0"),
        "cargo publish".to_string(),
        format!("gh release create v0.{n}.0 --generate-notes"),
    ];
    vec![
        Turn {
            prompt: format!("release the crate as 0.{n}.0"),
            calls: cmds.iter().map(|c| call(c)).collect(),
            reply: "Released.",
        },
        Turn { prompt: "thanks".into(), calls: Vec::new(), reply: "Done." },
    ]
}

#[test]
fn the_same_work_done_with_both_agents_goes_live_for_both() {
    let tw = TestWorkspace::new();
    let (claude, codex) = (tw.root().join("claude"), tw.root().join("codex"));
    let codex_skills = tw.root().join("agents-skills");
    std::fs::write(
        tw.config(),
        format!(
            "[[transcripts]]\npath = {claude:?}\nformat = \"claude\"\n\n[[transcripts]]\n\
             path = {codex:?}\nformat = \"codex\"\nagent = \"codex\"\n\n[codex]\n\
             skills_dirs = [{codex_skills:?}]\n"
        ),
    )
    .unwrap();
    let at = |n: usize| {
        let start = chrono::DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap();
        Clock::starting(start.to_utc() + chrono::Duration::days(n as i64))
    };
    let bash = |cmd: &str| call("Bash", serde_json::json!({"command": cmd}));
    let shell = |cmd: &str| call("shell", serde_json::json!({"command": ["bash", "-lc", cmd]}));
    std::fs::create_dir_all(claude.join("-work-crate")).unwrap();
    std::fs::create_dir_all(&codex).unwrap();
    for n in 1..=3 {
        let id = format!("00000000-0000-4000-8000-{n:012}");
        let text =
            claude_session(&mut at(n), &id, &format!("/work/crate{n}"), &release_turns(n, &bash));
        std::fs::write(claude.join("-work-crate").join(format!("{id}.jsonl")), text).unwrap();
        let key = format!("019c0000-0000-7000-8000-00000000000{n}");
        let text = codex_rollout(
            &mut at(n + 3),
            &key,
            &format!("/work/crate{n}"),
            &release_turns(n + 3, &shell),
        );
        std::fs::write(
            codex.join(format!("rollout-2026-03-0{}T10-00-00-{key}.jsonl", n + 3)),
            text,
        )
        .unwrap();
    }
    tw.run_ok(&["ingest"]);
    let open = tw.run_json(&["candidates"]);
    let drafts: Vec<(&str, &str)> = open
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["agent_id"].as_str().unwrap()))
        .collect();
    assert_eq!(drafts.len(), 2, "one draft per agent: {drafts:?}");
    let base = drafts.iter().map(|(n, _)| *n).min_by_key(|n| n.len()).unwrap();

    let said = tw.run_ok(&["promote", base]);
    assert!(said.contains("where Codex loads it"), "{said}");
    assert!(said.contains("where Claude Code loads it"), "{said}");
    for (name, agent) in &drafts {
        let dir = if *agent == "codex" { codex_skills.clone() } else { tw.skills_dir() };
        assert!(
            dir.join(name).join("SKILL.md").is_file(),
            "{name} ({agent}) not in {dir:?}:\n{said}"
        );
    }
}

/// The console's `p` says which agent loads the skill from where, as `promote` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_says_where_a_promoted_skill_goes_live() {
    use skilldeck::engine::EngineOptions;
    use skilldeck::tui::keys::KeyMap;
    let live =
        crate::console_live::Live::start_at(EngineOptions::quiet(), KeyMap::default(), 160, 30)
            .await;
    live.wait_for("summarize-pr").await;
    live.press("p");
    let screen = live.wait_for("promoted summarize-pr to ").await;
    assert!(screen.contains("where Claude Code loads it (u undoes)"), "{screen}");
    live.quit().await;
}

/// `record NAME` finds a Codex skill without `--agent`, as every skill command does.
#[test]
fn a_codex_skill_s_outcome_is_recorded_by_its_name() {
    let (d, _codex) = demo_with_codex_folder();
    d.ok(&["promote", "fix-tracker-issue"]);
    let said = d.ok(&["record", "fix-tracker-issue", "success"]);
    assert!(said.contains("recorded success for fix-tracker-issue"), "{said}");
    let stats = d.json(&["stats", "fix-tracker-issue"]);
    assert_eq!(
        (stats["agent_id"].as_str(), stats["success_count"].as_i64()),
        (Some("codex"), Some(1))
    );
}
