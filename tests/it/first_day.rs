//! What the CLI says is true on the first day and the hundredth, through the binary over the
//! demo workspace: proposals that change the text once, figures never measured shown
//! as such, and the demo's own first impression.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::describe;

/// A demo workspace built with `demo --no-console` under a temp folder.
pub struct Demo {
    _tmp: tempfile::TempDir,
    pub dir: PathBuf,
}

impl Demo {
    pub fn new() -> Demo {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .args(["demo", "--no-console", "--dir"])
            .arg(&dir)
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(&out));
        Demo { _tmp: tmp, dir }
    }

    /// The binary pointed at the demo workspace, as its summary's `try:` line says.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        c.arg("--db").arg(self.dir.join("skilldeck.db"));
        c.arg("--skills-dir").arg(self.dir.join("skills"));
        c.arg("--config").arg(self.dir.join("config.toml"));
        c.env("HOME", self.dir.parent().unwrap()).env("NO_COLOR", "1");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", describe(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let text = self.ok(&[args, &["--json"]].concat());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
    }
}

fn open_proposals(d: &Demo, source: &str, skill: &str) -> Vec<Value> {
    let all = d.json(&["candidates"]);
    all.as_array()
        .unwrap()
        .iter()
        .filter(|c| c["source"] == source && c["target_skill_name"] == skill)
        .filter(|c| c["status"] == "candidate")
        .cloned()
        .collect()
}

#[test]
fn an_approved_trigger_rewrite_is_not_proposed_again_and_its_undo_leaves_one_row() {
    let d = Demo::new();
    let open = open_proposals(&d, "trigger", "db-backup");
    assert_eq!(open.len(), 1, "{open:#?}");
    let c = &open[0];
    let keys: Vec<&str> =
        c["session_keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    let distinct: std::collections::HashSet<&&str> = keys.iter().collect();
    assert_eq!(keys.len(), distinct.len(), "each session once: {keys:?}");
    let id = c["id"].as_i64().unwrap().to_string();

    d.ok(&["approve", &id]);
    let sweep = d.json(&["sweep", "--full"]);
    assert_eq!(sweep["proposed_fixes"]["trigger_rewrites"], 0, "{sweep:#}");
    assert!(open_proposals(&d, "trigger", "db-backup").is_empty());

    d.ok(&["undo-approve", &id]);
    let open = open_proposals(&d, "trigger", "db-backup");
    assert_eq!(open.len(), 1, "one version row for db-backup after the undo: {open:#?}");
    // And the reopened proposal still changes the text.
    let diff = d.ok(&["diff", "--candidate", &id]);
    assert!(diff.contains("+description:"), "{diff}");
}

#[test]
fn lessons_text_shows_the_fix_and_says_no_data_for_what_was_never_measured() {
    use crate::lessons::{claude, release_session};
    let ws = crate::support::TestWorkspace::new();
    let dir = ws.root().join("transcripts");
    claude(&dir, 1, &release_session("feat-cart"));
    claude(&dir, 2, &release_session("fix-tax"));
    ws.run_ok(&["ingest", dir.to_str().unwrap()]);
    let text = ws.run_ok(&["lessons"]);
    assert!(text.contains("     fix:  mix format"), "the fix is in the text output:\n{text}");
    assert!(
        text.contains("     then: ran the same command again, and it passed"),
        "no did/then pair that reads the same:\n{text}"
    );
    let list = ws.run_json(&["lessons"]);
    let id = list.as_array().unwrap()[0]["id"].to_string();
    ws.run_ok(&["lessons", "approve", &id]);
    let text = ws.run_ok(&["lessons"]);
    assert!(text.contains("helped: no data yet"), "{text}");
    assert!(!text.contains("0 of 0"), "{text}");
    assert!(!text.contains("hit rate 0.00"), "{text}");
}

#[test]
fn skilldecks_own_playbook_is_not_judged_by_the_sweep_nor_warned_by_validate() {
    let d = Demo::new();
    d.ok(&["lessons", "approve", "1"]);
    let sweep = d.ok(&["sweep", "--full"]);
    assert!(!sweep.contains("lessons-playbook"), "{sweep}");
    let validate = d.ok(&["validate", d.dir.join("skills").to_str().unwrap()]);
    assert!(!validate.contains("lessons-playbook"), "{validate}");
    // The demo's own skills say when to use them too: a clean first `validate`.
    assert!(validate.contains("0 error(s), 0 warning(s)"), "{validate}");
}

#[test]
fn an_effect_side_never_measured_reads_no_data_not_zero() {
    let d = Demo::new();
    let e = d.json(&["stats", "release-notes", "--effect"]);
    assert_eq!(e["runs_without"], 0, "{e:#}");
    for m in e["metrics"].as_array().unwrap() {
        assert!(m["without"].is_null(), "never measured is null, not 0: {m:#}");
    }
    let text = d.ok(&["stats", "release-notes", "--effect"]);
    assert!(text.contains("no data"), "{text}");
    for never in ["(n=0)", "-0.0", "0% (n=0)"] {
        assert!(!text.contains(never), "{never} in:\n{text}");
    }
}

/// The demo's console in tmux at `width`×`height`, on the Review queue once it is drawn.
fn demo_console(d: &Demo, width: u16, height: u16) -> Option<crate::console_tmux::Session> {
    use crate::console_tmux::{start_session, tmux_available, wait_for_pane};
    if !tmux_available() {
        assert!(std::env::var_os("CI").is_none(), "tmux is required in CI (.ci/run installs it)");
        crate::support::skip("tmux is not installed");
        return None;
    }
    let name = format!("skilldeck-first-day-{}", uuid::Uuid::new_v4().simple());
    let command = format!(
        "NO_COLOR=1 HOME={} {} --db {} --skills-dir {} --config {}",
        d.dir.parent().unwrap().display(),
        env!("CARGO_BIN_EXE_skilldeck"),
        d.dir.join("skilldeck.db").display(),
        d.dir.join("skills").display(),
        d.dir.join("config.toml").display(),
    );
    let session = start_session(&name, width, height, &command);
    wait_for_pane(&session.0, "Review queue");
    Some(session)
}

#[test]
fn narrow_terminals_keep_every_queue_rows_name() {
    use crate::console_tmux::wait_for_pane;
    let d = Demo::new();
    for (width, height) in [(60, 20), (80, 24)] {
        let Some(session) = demo_console(&d, width, height) else { return };
        let screen = wait_for_pane(&session.0, "fix-tracker-issue");
        for row in [
            "new     fix-tracker-issue ×3",
            "new     add-migration ×3",
            "version release-crate ×6",
            "version db-backup ×3",
        ] {
            assert!(screen.contains(row), "{width}×{height}: no {row:?} in\n{screen}");
        }
        assert!(!screen.contains("25f5e151"), "a version row is named by its skill:\n{screen}");
    }
}

fn files_under(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn the_demos_drafts_name_no_live_skill_as_a_step_nor_a_hash_and_its_transcripts_are_past() {
    let d = Demo::new();
    let mut files = Vec::new();
    files_under(&d.dir.join("staging"), &mut files);
    let drafts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter(|p| p.ends_with("SKILL.md"))
        .map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    assert!(drafts.len() >= 4, "{drafts:#?}");
    let hash = regex::Regex::new(r"(?m)^(#|description:|[A-Z]).*\b[a-z]+ [0-9a-f]{8}\b").unwrap();
    for (path, text) in &drafts {
        assert!(!text.contains("skill db-backup"), "a live skill as a step: {path:?}\n{text}");
        assert!(!hash.is_match(text), "a hash in a sentence: {path:?}\n{text}");
        // "X failed; it passed run as X" says nothing: the same command is "run again".
        for line in text.lines().filter(|l| l.contains("; it passed run as `")) {
            let spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
            assert_ne!(spans.first(), spans.last(), "{path:?}: {line}");
        }
    }
    // The backup work done with db-backup proposes a version of it, not a new skill beside it.
    let all = d.json(&["candidates"]);
    let backup = all.as_array().unwrap().iter().find(|c| {
        c["source"] == "workflow" && c["tool_sequence"].to_string().contains("skill:db-backup")
    });
    let backup = backup.expect("the backup workflow was proposed");
    assert_eq!(backup["target_skill_name"], "db-backup", "{backup:#}");

    let now = chrono::Utc::now();
    let mut transcripts = Vec::new();
    files_under(&d.dir.join("transcripts"), &mut transcripts);
    let stamp = regex::Regex::new(r#""timestamp": ?"([^"]+)""#).unwrap();
    let mut seen = 0;
    for path in transcripts.iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        let text = std::fs::read_to_string(path).unwrap();
        for m in stamp.captures_iter(&text) {
            let at = chrono::DateTime::parse_from_rfc3339(&m[1]).unwrap();
            assert!(at <= now, "{path:?} is dated {at}, after the demo ran ({now})");
            seen += 1;
        }
    }
    assert!(seen > 100, "only {seen} timestamps read");
}

#[test]
fn promote_takes_a_name_too() {
    let d = Demo::new();
    let out = d.json(&["promote", "add-migration"]);
    assert_eq!(out["name"], "add-migration", "{out:#}");
    assert!(d.dir.join("skills/add-migration/SKILL.md").is_file());
    let again = d.run(&["promote", "add-migration"]);
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("is promoted: no open new-skill candidate is named \"add-migration\""),
        "{err}"
    );
}

#[test]
fn a_reader_that_closes_the_pipe_is_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let script = format!(
        "(sleep 0.5; {} 2>{}/err; echo $? >{}/rc) | true",
        env!("CARGO_BIN_EXE_skilldeck"),
        tmp.path().display(),
        tmp.path().display()
    );
    let out = Command::new("sh").arg("-c").arg(&script).env("HOME", tmp.path()).output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let err = std::fs::read_to_string(tmp.path().join("err")).unwrap();
    let rc = std::fs::read_to_string(tmp.path().join("rc")).unwrap();
    assert!(!err.contains("Broken pipe"), "{err}");
    assert_eq!(rc.trim(), "0", "{err}");
}

#[test]
fn an_editor_that_changes_nothing_says_unchanged() {
    let d = Demo::new();
    let all = d.json(&["candidates"]);
    let c = all.as_array().unwrap().iter().find(|c| c["name"] == "add-migration").cloned();
    let id = c.expect("the demo drafts add-migration")["id"].to_string();
    let out =
        d.cmd().args(["edit", &id]).env("EDITOR", "true").env_remove("VISUAL").output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("draft {id} unchanged")), "{said}");
    assert!(!said.contains("saved draft"), "{said}");
}

#[test]
fn a_tilde_in_config_paths_is_the_home_folder() {
    let ws = crate::support::TestWorkspace::new();
    std::fs::create_dir_all(ws.home().join("tr")).unwrap();
    std::fs::write(ws.config(), "[[transcripts]]\npath = \"~/tr\"\n").unwrap();
    let out = ws.run_ok(&["ingest"]);
    assert!(!out.contains("no transcript folder found"), "{out}");
    // A configured folder that is not there is a mistake said with an error, not exit 0.
    std::fs::write(ws.config(), "[[transcripts]]\npath = \"~/nowhere\"\n").unwrap();
    let out = ws.run(&["ingest"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let home = ws.home().join("nowhere");
    assert!(err.contains(&home.display().to_string()), "the expanded path: {err}");
}

/// `hooks` with HOME at `home` and PATH holding only `path` (no agent, no skilldeck on it).
fn hooks_in(ws: &crate::support::TestWorkspace, path: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["hooks"];
    all.extend_from_slice(args);
    let out = ws.cmd().args(&all).env("PATH", path).output().unwrap();
    assert!(out.status.success(), "{all:?}: {}", describe(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn hooks_leave_no_footprint_of_an_absent_agent_and_uninstall_takes_its_folders_back() {
    let ws = crate::support::TestWorkspace::new();
    let bin = ws.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let home = ws.home();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let said = hooks_in(&ws, &bin, &["install"]);
    assert!(!home.join(".codex").exists(), "no Codex here, nothing of it created:\n{said}");
    assert!(said.contains("skipped"), "{said}");
    assert!(!said.contains("unchanged"), "no 'unchanged' for a file that is not there:\n{said}");
    assert!(home.join(".claude/commands/learn.md").is_file());
    let status = hooks_in(&ws, &bin, &["status", "--agent", "claude"]);
    assert!(status.contains("installed: SessionEnd, Stop"), "{status}");

    hooks_in(&ws, &bin, &["uninstall"]);
    let mut left = Vec::new();
    files_under(&home, &mut left);
    assert!(left.is_empty(), "uninstall leaves no file: {left:?}");
    assert!(!home.join(".claude/commands").exists(), "the folder install created is gone");
    assert!(home.join(".claude").is_dir(), "the user's own folder stays");
}

#[test]
fn status_says_when_the_hooks_program_is_gone() {
    let ws = crate::support::TestWorkspace::new();
    let bin = ws.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let settings = ws.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let gone = ws.root().join("gone/skilldeck");
    let hook = format!(
        "{{\"hooks\": {{\"SessionEnd\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \
         \"{} ingest --hook\"}}]}}]}}}}\n",
        gone.display()
    );
    std::fs::write(&settings, hook).unwrap();
    let status = hooks_in(&ws, &bin, &["status", "--agent", "claude"]);
    assert!(status.contains("is gone: the hook fails"), "{status}");
    assert!(status.contains(&gone.display().to_string()), "{status}");
}

#[test]
fn a_hook_installed_from_a_build_output_says_so() {
    let ws = crate::support::TestWorkspace::new();
    let bin = ws.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let said = hooks_in(&ws, &bin, &["install", "--agent", "claude"]);
    // The test binary is under target/: with no skilldeck on PATH the hook must point there, and
    // says what `cargo clean` would do to it.
    assert!(said.contains("`cargo clean` deletes it"), "{said}");
    // With one on PATH, the hook runs that one.
    let stable = bin.join("skilldeck");
    std::fs::write(&stable, "#!/bin/sh\n").unwrap();
    hooks_in(&ws, &bin, &["install", "--agent", "claude"]);
    let text = std::fs::read_to_string(ws.home().join(".claude/settings.json")).unwrap();
    assert!(!text.contains("target/debug"), "{text}");
    assert!(text.contains(&format!("{} ", stable.display())), "{text}");
}

#[test]
fn the_demo_summarys_skill_columns_line_up() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["demo", "--no-console", "--dir"])
        .arg(tmp.path().join("demo"))
        .env("HOME", tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" uses  v")).collect();
    assert!(rows.len() >= 5, "{text}");
    let at = |row: &str, word: &str| row.find(word).unwrap();
    let over: Vec<usize> = rows.iter().map(|r| at(r, " over ")).collect();
    assert!(over.iter().all(|&o| o == over[0]), "the columns line up:\n{text}");
    for name in ["db-backup", "legacy-deploy", "lint-fix"] {
        let row = rows.iter().find(|r| r.contains(name)).unwrap();
        assert_eq!(at(row, name), 15, "names start in one column:\n{text}");
    }
}

#[test]
fn the_readme_installs_the_tested_lock_and_names_what_the_tests_need() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("cargo install --locked --path ."), "the tested Cargo.lock");
    assert!(!readme.contains("cargo install --path ."), "never re-resolved");
    assert!(readme.contains("PostgreSQL 15"), "the team tests start a server");
    assert!(readme.contains("`agentskills`"), "the validator's command, not only its package");
    assert!(readme.lines().count() <= 200, "README stays short");
}

#[test]
fn a_long_command_in_a_lesson_is_never_cut_mid_name() {
    let Some(dir) = crate::support::shared_data("transcripts/marot__spotter") else { return };
    let ws = crate::support::TestWorkspace::new();
    ws.run_ok(&["ingest", dir.to_str().unwrap()]);
    let all = ws.run_json(&["lessons", "--all"]);
    let list = all.as_array().unwrap();
    assert!(!list.is_empty(), "the spotter sessions teach lessons");
    for l in list {
        let text = format!("{} {}", l["anti_pattern"], l["correct_pattern"]);
        // The spotter commands name files under test/spotter/services/: each whole.
        assert!(!text.contains("test/spo`"), "{text}");
        assert!(!text.contains("transcript_render`"), "a path cut mid-name: {text}");
    }
}
