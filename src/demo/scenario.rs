//! The demo scenario: a small, deterministic workspace whose transcripts show every behaviour
//! skilldeck reacts to — a repeated tool sequence across sessions (Claude Code and Codex), a
//! streak of successes on one task signature (Claude Code and native), skill invocations that
//! succeed and fail, and, in a second phase, the same sequence grown by one step.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{TimeZone, Utc};
use serde_json::json;

use super::transcripts::{
    Call, Clock, Turn, call, claude_session, codex_rollout, failing, native_line,
};

/// Where the demo put things.
pub struct Layout {
    pub root: PathBuf,
    pub config_file: PathBuf,
    pub skills_dir: PathBuf,
    pub claude_projects: PathBuf,
    pub codex_sessions: PathBuf,
    pub native_dir: PathBuf,
}

impl Layout {
    pub fn under(root: &Path) -> Layout {
        let t = root.join("transcripts");
        Layout {
            root: root.to_path_buf(),
            config_file: root.join("config.toml"),
            skills_dir: root.join("skills"),
            claude_projects: t.join("claude/projects"),
            codex_sessions: t.join("codex/sessions"),
            native_dir: t.join("native"),
        }
    }
}

/// Hand-written skills the demo agent already has, so outcomes have something to score.
const LIVE_SKILLS: &[(&str, &str)] = &[
    (
        "release-notes",
        "Drafts release notes from merged pull requests. Use when the user asks for release notes, a changelog summary or what shipped in a sprint.",
    ),
    (
        "legacy-deploy",
        "Deploys the web app to staging with the old shell scripts. Use when the user asks to deploy to staging.",
    ),
    (
        "lint-fix",
        "Runs the linters and applies their automatic fixes. Use when the user asks to lint or tidy the code.",
    ),
];

fn skill_md(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nFollow the team's usual steps for this task and report what changed.\n"
    )
}

fn fix_test_turn(module: &str, extra_step: bool) -> Turn {
    let mut calls: Vec<Call> = vec![
        call("Grep", json!({"pattern": format!("snapshot_{module}"), "path": "tests"})),
        call("Read", json!({"file_path": format!("tests/{module}.rs")})),
        call(
            "Edit",
            json!({"file_path": format!("tests/{module}.rs"), "old_string": "a", "new_string": "b"}),
        ),
        call(
            "Bash",
            json!({"command": format!("cargo test {module}"), "description": "Run the tests"}),
        ),
    ];
    if extra_step {
        let snapshot = format!("tests/snapshots/{module}.snap");
        calls.push(call("Write", json!({"file_path": snapshot, "content": "accepted"})));
    }
    Turn {
        prompt: format!("fix the failing snapshot test in {module}"),
        calls,
        reply: "The snapshot test passes again.",
    }
}

fn changelog_turn(prompt: &str) -> Turn {
    Turn {
        prompt: prompt.into(),
        calls: vec![
            call("Read", json!({"file_path": "CHANGELOG.md"})),
            call(
                "Edit",
                json!({"file_path": "Cargo.toml", "old_string": "0.1", "new_string": "0.2"}),
            ),
        ],
        reply: "Version bumped and changelog updated.",
    }
}

fn skill_turn(prompt: &str, skill: &str, ok: bool) -> Turn {
    let input = json!({"skill": skill});
    Turn {
        prompt: prompt.into(),
        calls: vec![if ok { call("Skill", input) } else { failing("Skill", input) }],
        reply: if ok { "Done." } else { "The skill failed." },
    }
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Phase one: the live skills, the config, and transcripts of all three formats.
pub fn write_phase_one(layout: &Layout) -> Result<()> {
    for (name, description) in LIVE_SKILLS {
        write(&layout.skills_dir.join(name).join("SKILL.md"), &skill_md(name, description))?;
    }
    write(
        &layout.config_file,
        &format!(
            "agent_id = \"default\"\n\n\
             [detect]\nspecific_only = false\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"claude\"\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"codex\"\nagent = \"codex\"\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"native\"\n",
            layout.claude_projects, layout.codex_sessions, layout.native_dir
        ),
    )?;

    let project = layout.claude_projects.join("-home-demo-webapp");
    let changelog = [
        "bump the version and update the changelog",
        "update the changelog and bump the version",
        "bump version, update changelog",
    ];
    let deploys = [(true, false), (false, false), (true, false)];
    for (i, module) in ["parser", "lexer", "render"].iter().enumerate() {
        let mut clock =
            Clock::starting(Utc.with_ymd_and_hms(2026, 11, 2 + i as u32, 9, 0, 0).unwrap());
        let session = format!("5e55{i:04x}-demo-4000-8000-00000000000{i}");
        let (deploy_a, deploy_b) = deploys[i];
        let turns = vec![
            fix_test_turn(module, false),
            changelog_turn(changelog[i]),
            skill_turn("write the release notes for this sprint", "release-notes", true),
            skill_turn("deploy the web app to staging", "legacy-deploy", deploy_a),
            skill_turn("deploy to staging again please", "legacy-deploy", deploy_b),
            skill_turn("lint the code", "lint-fix", i == 0),
        ];
        write(
            &project.join(format!("{session}.jsonl")),
            &claude_session(&mut clock, &session, "/home/demo/webapp", &turns),
        )?;
    }

    for (i, area) in ["auth", "billing", "search"].iter().enumerate() {
        let day = 2 + i as u32;
        let mut clock = Clock::starting(Utc.with_ymd_and_hms(2026, 11, day, 14, 0, 0).unwrap());
        let session = format!("019e0000-0000-7000-8000-00000000c0d{i}");
        let turn = Turn {
            prompt: format!("add a regression test for the {area} bug and make it pass"),
            calls: vec![
                call(
                    "exec_command",
                    json!({"cmd": format!("rg -n {area} src"), "workdir": "/home/demo/api"}),
                ),
                call(
                    "apply_patch",
                    json!(format!(
                        "*** Begin Patch\n*** Add File: tests/{area}.rs\n+#[test]\n*** End Patch\n"
                    )),
                ),
                call("exec_command", json!({"cmd": "cargo test", "workdir": "/home/demo/api"})),
            ],
            reply: "Added the test; it passes.",
        };
        let dir = layout.codex_sessions.join(format!("2026/11/{day:02}"));
        write(
            &dir.join(format!("rollout-2026-11-{day:02}T14-00-00-{session}.jsonl")),
            &codex_rollout(&mut clock, &session, "/home/demo/api", &[turn]),
        )?;
    }

    let mut clock = Clock::starting(Utc.with_ymd_and_hms(2026, 11, 3, 18, 0, 0).unwrap());
    let mut native = String::new();
    for (input, skill, ok) in [
        ("generate the weekly metrics report", None, true),
        ("summarise yesterday's incidents", Some("release-notes"), false),
        ("generate weekly metrics report please", None, true),
        ("draft release notes", Some("release-notes"), true),
        ("weekly metrics report, generate it", None, true),
        ("deploy staging", Some("legacy-deploy"), false),
        ("deploy staging once more", Some("legacy-deploy"), false),
    ] {
        native.push_str(&native_line(&mut clock, input, skill, ok, "2 turns"));
    }
    write(&layout.native_dir.join("trajectories.jsonl"), &native)
}

/// Phase two: three later sessions where the snapshot-fix sequence gained a step (writing the
/// accepted snapshot), so detection proposes a new version of the skill promoted in between.
pub fn write_phase_two(layout: &Layout) -> Result<()> {
    let project = layout.claude_projects.join("-home-demo-webapp");
    for (i, module) in ["cli", "config", "store"].iter().enumerate() {
        let mut clock =
            Clock::starting(Utc.with_ymd_and_hms(2026, 11, 9 + i as u32, 9, 0, 0).unwrap());
        let session = format!("5e55{:04x}-demo-4000-8000-00000000001{i}", 16 + i);
        let turns = vec![
            fix_test_turn(module, true),
            skill_turn("write the release notes for this sprint", "release-notes", true),
            skill_turn("deploy the web app to staging", "legacy-deploy", false),
            skill_turn("lint the code", "lint-fix", false),
        ];
        write(
            &project.join(format!("{session}.jsonl")),
            &claude_session(&mut clock, &session, "/home/demo/webapp", &turns),
        )?;
    }
    Ok(())
}
