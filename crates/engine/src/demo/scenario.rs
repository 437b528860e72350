//! The demo scenario: a small, deterministic workspace whose transcripts show every behaviour
//! skilldeck reacts to — concrete workflows repeated across sessions of different projects
//! (releasing a crate and adding a SQL migration in Claude Code, an issue-tracker loop in Codex),
//! with the variations real sessions have (a failed check fixed and re-run, a look-around step,
//! swapped steps, other versions and ids); skill invocations that succeed and fail; a native
//! streak with no commands (kept as evidence only); and, in a second phase, the release
//! workflow grown by one step (a GitHub release), which proposes a new version of the skill
//! promoted in between. A hand-written backup skill shows effect and uptake: its workflow runs
//! with it (clean) and without it (a failed dump retried) in both phases, and a third session,
//! the day before the demo runs and after the backup skill went live (`backup_live_since`:
//! missed triggers count only once a skill is live), runs it three times without the skill, so
//! the sweep proposes a trigger rewrite. No transcript is dated after the demo runs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{TimeZone, Utc};
use serde_json::json;

use crate::synth::plant::{Agent, Script};
use crate::synth::transcripts::{
    Clock, Turn, call, claude_session, codex_rollout, failing, native_line,
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

/// The hand-written skill whose effect and missed triggers the demo shows.
pub const BACKUP_SKILL: &str = "db-backup";
const BACKUP_MD: &str = "---\nname: db-backup\ndescription: Backs up the app database. Use when asked for a database backup.\n---\n\n# db-backup\n\n1. `pg_dump --format=custom app --file app.dump`\n2. `gzip app.dump`\n3. `aws s3 cp app.dump.gz s3://backups/app/`\n";

/// Backing the database up: with the skill a clean run; without it, the dump fails once (a
/// wrong flag) and is retried.
fn backup_turn(cwd: &str, prompt: &str, with_skill: bool) -> Turn {
    let mut s = script(Agent::Claude, cwd);
    if with_skill {
        s.calls.push(call("Skill", json!({"skill": BACKUP_SKILL})));
    } else {
        s.sh_result("pg_dump app --file app.dump", true);
    }
    s.sh("pg_dump --format=custom app --file app.dump");
    s.sh("gzip app.dump");
    s.sh("aws s3 cp app.dump.gz s3://backups/app/");
    Turn { prompt: prompt.into(), calls: s.calls, reply: "Backed up." }
}

fn skill_md(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nFollow the team's usual steps for this task and report what changed.\n"
    )
}

fn script(agent: Agent, cwd: &str) -> Script {
    Script { agent, cwd: cwd.to_string(), calls: Vec::new() }
}

/// Releasing a crate: test, changelog, version bump, commit, tag, publish. `variant` adds what
/// real sessions do differently: 1 fails a test, fixes it and re-runs it; 2 looks around first
/// and bumps the version before the changelog. `grown` adds a GitHub release at the end.
fn release_turn(cwd: &str, version: &str, variant: usize, grown: bool) -> Turn {
    let mut s = script(Agent::Claude, cwd);
    if variant == 1 {
        s.sh_result("cargo test --all-features", true);
        s.edit("src/lib.rs");
    }
    s.sh("cargo test --all-features");
    if variant == 2 {
        s.sh("git log --oneline -5");
        s.read("README.md");
        s.edit("Cargo.toml");
        s.edit("CHANGELOG.md");
    } else {
        s.edit("CHANGELOG.md");
        s.edit("Cargo.toml");
    }
    s.sh(&format!("git commit -am 'Release {version}'"));
    s.sh(&format!("git tag v{version}"));
    s.sh("cargo publish");
    if grown {
        s.sh(&format!("gh release create v{version} --notes-from-tag"));
    }
    let prompt = match variant {
        0 => format!("release {version} of the crate"),
        1 => format!("release the crate as {version} and publish it to crates.io"),
        _ => format!("release crate version {version}: changelog, bump, tag, publish"),
    };
    Turn { prompt, calls: s.calls, reply: "Published and tagged." }
}

/// Adding a SQL migration: write it, apply it, test, commit. Variant 1 lists the folder
/// first; variant 2's migration fails, gets fixed and is applied again.
fn migration_turn(cwd: &str, n: usize, table: &str, variant: usize) -> Turn {
    let mut s = script(Agent::Claude, cwd);
    if variant == 1 {
        s.sh("ls migrations");
    }
    let file = format!("migrations/{n:04}_index_{table}.sql");
    s.write(&file);
    if variant == 2 {
        s.sh_result("sqlx migrate run", true);
        s.edit(&file);
    }
    s.sh("sqlx migrate run");
    s.sh("cargo test");
    s.sh(&format!("git add migrations && git commit -m 'Index {table}'"));
    Turn {
        prompt: format!("add a migration that indexes the {table} table"),
        calls: s.calls,
        reply: "Migration added and applied.",
    }
}

/// An issue-tracker loop in Codex: show, claim, fix, test, commit, close. Variant 1 asks the
/// tracker what is ready first; variant 2's test fails once and is re-run after a fix.
fn tracker_turn(cwd: &str, id: &str, variant: usize) -> Turn {
    let mut s = script(Agent::Codex, cwd);
    if variant == 1 {
        s.sh("bd ready");
    }
    s.sh(&format!("bd show {id}"));
    s.sh(&format!("bd update {id} --status in_progress"));
    s.read("src/handlers.rs");
    s.edit("src/handlers.rs");
    if variant == 2 {
        s.sh_result("cargo test", true);
        s.edit("src/handlers.rs");
    }
    s.sh("cargo test");
    s.sh(&format!("git commit -am 'Fix {id}'"));
    s.sh(&format!("bd close {id}"));
    Turn {
        prompt: match variant {
            0 => format!("fix tracker issue {id} and close it"),
            1 => format!("fix tracker issue {id}, then close it"),
            _ => format!("fix the tracker issue {id} and close it when done"),
        },
        calls: s.calls,
        reply: "Fixed, committed and closed.",
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
    write(&layout.skills_dir.join(BACKUP_SKILL).join("SKILL.md"), BACKUP_MD)?;
    write(
        &layout.config_file,
        &format!(
            "agent_id = \"default\"\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"claude\"\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"codex\"\nagent = \"codex\"\n\n\
             [[transcripts]]\npath = {:?}\nformat = \"native\"\n",
            layout.claude_projects, layout.codex_sessions, layout.native_dir
        ),
    )?;

    let deploys = [(true, false), (false, false), (true, false)];
    let crates =
        [("tally", "0.4.0", "orders"), ("quill", "1.2.0", "users"), ("ferry", "0.9.1", "events")];
    for (i, (name, version, table)) in crates.iter().enumerate() {
        let mut clock =
            Clock::starting(Utc.with_ymd_and_hms(2026, 11, 2 + i as u32, 9, 0, 0).unwrap());
        let session = format!("5e55{i:04x}-demo-4000-8000-00000000000{i}");
        let cwd = format!("/home/demo/{name}");
        let (deploy_a, deploy_b) = deploys[i];
        let turns = vec![
            release_turn(&cwd, version, i, false),
            migration_turn(&cwd, 3 + i, table, i),
            skill_turn("write the release notes for this sprint", "release-notes", true),
            skill_turn("deploy the web app to staging", "legacy-deploy", deploy_a),
            skill_turn("deploy to staging again please", "legacy-deploy", deploy_b),
            skill_turn("lint the code", "lint-fix", i == 0),
            backup_turn(&cwd, "back up the database", true),
            backup_turn(&cwd, &format!("back up the {name} database before the release"), false),
        ];
        write(
            &layout
                .claude_projects
                .join(format!("-home-demo-{name}"))
                .join(format!("{session}.jsonl")),
            &claude_session(&mut clock, &session, &cwd, &turns),
        )?;
    }

    for (i, (name, id)) in
        [("api", "API-12"), ("billing", "BIL-7"), ("search", "SRC-31")].iter().enumerate()
    {
        let day = 2 + i as u32;
        let mut clock = Clock::starting(Utc.with_ymd_and_hms(2026, 11, day, 14, 0, 0).unwrap());
        let session = format!("019e0000-0000-7000-8000-00000000c0d{i}");
        let cwd = format!("/home/demo/{name}");
        let dir = layout.codex_sessions.join(format!("2026/11/{day:02}"));
        write(
            &dir.join(format!("rollout-2026-11-{day:02}T14-00-00-{session}.jsonl")),
            &codex_rollout(&mut clock, &session, &cwd, &[tracker_turn(&cwd, id, i)]),
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

/// When the demo's hand-written backup skill went live: 08:00 UTC the day before the demo runs
/// (always in the past, after the fixed-date sessions of both phases).
pub fn backup_live_since() -> chrono::DateTime<Utc> {
    let yesterday = (Utc::now() - chrono::Duration::days(1)).date_naive();
    Utc.from_utc_datetime(&yesterday.and_hms_opt(8, 0, 0).expect("a valid time"))
}

/// Phase two: three later sessions of other crates where the release workflow gained a step
/// (`gh release create`), so detection proposes a new version of the skill promoted in between.
pub fn write_phase_two(layout: &Layout) -> Result<()> {
    for (i, (name, version)) in
        [("loom", "0.2.0"), ("sprig", "2.0.1"), ("kiln", "0.7.3")].iter().enumerate()
    {
        let mut clock =
            Clock::starting(Utc.with_ymd_and_hms(2026, 11, 9 + i as u32, 9, 0, 0).unwrap());
        let session = format!("5e55{:04x}-demo-4000-8000-00000000001{i}", 16 + i);
        let cwd = format!("/home/demo/{name}");
        let turns = vec![
            release_turn(&cwd, version, i, true),
            skill_turn("write the release notes for this sprint", "release-notes", true),
            skill_turn("deploy the web app to staging", "legacy-deploy", false),
            skill_turn("lint the code", "lint-fix", false),
            backup_turn(&cwd, "back up the database", true),
            backup_turn(&cwd, &format!("back up the {name} database"), false),
        ];
        write(
            &layout
                .claude_projects
                .join(format!("-home-demo-{name}"))
                .join(format!("{session}.jsonl")),
            &claude_session(&mut clock, &session, &cwd, &turns),
        )?;
    }
    // The day before the demo runs, an hour after the backup skill went live: the backup
    // workflow three times, the skill never picked.
    let mut clock = Clock::starting(backup_live_since() + chrono::Duration::hours(1));
    let session = "5e550020-demo-4000-8000-000000000020";
    let cwd = "/home/demo/ops";
    let turns: Vec<Turn> = [
        "snapshot the production database to S3",
        "dump the app database and ship it to the backups bucket",
        "take a nightly dump of the app database",
    ]
    .iter()
    .map(|p| backup_turn(cwd, p, false))
    .collect();
    write(
        &layout.claude_projects.join("-home-demo-ops").join(format!("{session}.jsonl")),
        &claude_session(&mut clock, session, cwd, &turns),
    )?;
    Ok(())
}
