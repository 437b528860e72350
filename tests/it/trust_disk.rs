//! The skills folder as it is now, through the command line: a deleted SKILL.md makes the skill
//! `missing` (with an event) for every command that reads skills, `restore` writes the last
//! version back; a hand edit is a version as soon as `versions` or `diff` read the skill. The
//! console shows a deleted folder at once.

use crate::console_live::Live;
use crate::support::TestWorkspace;

fn audit_status(tw: &TestWorkspace, name: &str) -> String {
    let rows = tw.run_json(&["audit"]);
    let row = rows.as_array().unwrap().iter().find(|r| r["name"] == name).unwrap().clone();
    row["status"].as_str().unwrap().to_string()
}

#[test]
fn a_deleted_skill_folder_is_missing_for_every_command_and_restore_writes_it_back() {
    let tw = TestWorkspace::new();
    let file = tw.live_skill("tidy");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(audit_status(&tw, "tidy"), "healthy");
    std::fs::remove_dir_all(file.parent().unwrap()).unwrap();
    // A read-only command sees it at once; a sweep (full or not) keeps it missing.
    assert_eq!(audit_status(&tw, "tidy"), "missing");
    let plain = tw.run_ok(&["audit"]);
    assert!(plain.lines().any(|l| l.starts_with("tidy") && l.contains("missing")), "{plain}");
    tw.run_ok(&["sweep", "--full"]);
    assert_eq!(audit_status(&tw, "tidy"), "missing");
    let events = tw.run_ok(&["stats", "tidy", "--timeline"]);
    assert!(events.contains("is gone") && events.contains("skilldeck restore tidy"), "{events}");

    let out = tw.run_ok(&["restore", "tidy"]);
    assert!(!out.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert_eq!(audit_status(&tw, "tidy"), "healthy");
}

#[test]
fn a_skill_md_put_back_by_hand_is_live_again() {
    let tw = TestWorkspace::new();
    let file = tw.live_skill("tidy");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert_eq!(audit_status(&tw, "tidy"), "missing");
    std::fs::write(&file, &text).unwrap();
    assert_eq!(audit_status(&tw, "tidy"), "healthy");
}

#[test]
fn a_hand_edit_is_a_version_as_soon_as_versions_or_diff_read_it() {
    let tw = TestWorkspace::new();
    let file = tw.live_skill("tidy");
    let edited = std::fs::read_to_string(&file).unwrap().replace("Tidy.\n", "Tidy twice.\n");
    std::fs::write(&file, &edited).unwrap();
    let versions = tw.run_json(&["versions", "tidy"]);
    let list = versions.as_array().unwrap();
    assert_eq!(list.len(), 2, "{versions}");
    assert_eq!(list[1]["source"], "edit");
    let again = edited.replace("twice", "three times");
    std::fs::write(&file, &again).unwrap();
    let diff = tw.run_ok(&["diff", "tidy"]);
    assert!(diff.contains("+Tidy three times."), "{diff}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_skill_folder_shows_missing_at_once_and_r_writes_it_back() {
    let options = skilldeck::engine::EngineOptions {
        watch: true,
        ..skilldeck::engine::EngineOptions::quiet()
    };
    let live = Live::start_with(options).await;
    live.wait_for("watching 2 folders for changes").await;
    let folder = live.root.join("skills/deploy-docs");
    let text = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
    live.wait_for("deploy-docs now missing (R restores the last version)").await;
    live.press("2j");
    live.wait_for("missing           deploy-docs").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 1"), "missing");
    // e does not open a path that is gone; it says how to get the skill back.
    live.press("e");
    live.wait_for("SKILL.md is gone from").await;
    live.press("R");
    live.wait_for("restored deploy-docs").await;
    live.wait_for("healthy           deploy-docs").await;
    assert_eq!(std::fs::read_to_string(folder.join("SKILL.md")).unwrap(), text);
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pin_and_unpin_re_judge_at_once_and_say_the_same_in_the_console_and_the_cli() {
    let live = Live::start().await;
    // flaky-sync: deprecated at 27 %.
    live.press("2jj");
    live.wait_for("deprecated        flaky-sync").await;
    live.press("P");
    live.wait_for("pinned flaky-sync: now warning, never worse than warning").await;
    live.wait_for("warning    pinned flaky-sync").await;
    live.press("P");
    live.wait_for("unpinned flaky-sync: now deprecated, judged like any skill").await;
    live.wait_for("deprecated        flaky-sync").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE name = 'flaky-sync'"), "deprecated");
    let out = live.cli(&["pin", "flaky-sync"]);
    assert_eq!(out.trim(), "pinned flaky-sync: now warning, never worse than warning");
    live.wait_for("warning    pinned flaky-sync").await;
    // The sweep keeps what the pin gave.
    live.cli(&["sweep", "--full"]);
    assert_eq!(live.query("SELECT status FROM skills WHERE name = 'flaky-sync'"), "warning");
    let out = live.cli(&["unpin", "flaky-sync"]);
    assert_eq!(out.trim(), "unpinned flaky-sync: now deprecated, judged like any skill");
    live.wait_for("deprecated        flaky-sync").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skills_folder_created_after_start_is_watched_from_then_on() {
    let options = skilldeck::engine::EngineOptions {
        watch: true,
        ..skilldeck::engine::EngineOptions::quiet()
    };
    // The skills folder is not there when the console starts.
    let live = Live::start_prepared(
        options,
        |root| std::fs::rename(root.join("skills"), root.join("skills-away")).unwrap(),
        "summarize-pr",
    )
    .await;
    let screen = live.wait_for("does not exist yet").await;
    assert!(screen.contains("skills folder"), "{screen}");
    assert!(screen.contains("(check --skills-dir)"), "the hint is not cut: {screen}");
    // Created with a skill in it: the watcher notices it, and later edits inside are seen too.
    let away = live.root.join("skills-away");
    let folder = live.root.join("skills/new-one");
    std::fs::create_dir_all(&folder).unwrap();
    let text = "---\nname: new-one\ndescription: New. Use when asked for new.\n---\nNew.\n";
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    live.wait_for("adopted 1 new skill folder").await;
    std::fs::write(folder.join("SKILL.md"), text.replace("New.\n", "Newer.\n")).unwrap();
    live.wait_for("1 edited skill recorded as new versions").await;
    // deploy-docs' folder was gone (missing); put back, it is live again.
    std::fs::rename(away.join("deploy-docs"), live.root.join("skills/deploy-docs")).unwrap();
    live.wait_for("SKILL.md back: deploy-docs").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i_says_which_skill_folders_it_adopted() {
    // No watcher: only `i` looks.
    let live = Live::start().await;
    let folder = live.root.join("skills/new-two");
    std::fs::create_dir_all(&folder).unwrap();
    let text = "---\nname: new-two\ndescription: Two. Use when asked for two.\n---\nTwo.\n";
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    live.press("i");
    let screen = live.wait_for("adopted 1 new skill folder").await;
    assert!(!screen.contains("no changes"), "{screen}");
    live.quit().await;
}

#[test]
fn a_config_file_named_but_absent_is_one_warning_and_the_defaults() {
    let tw = TestWorkspace::new();
    let none = tw.root().join("none.toml");
    std::fs::create_dir_all(tw.home()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .arg("--db")
        .arg(tw.db())
        .arg("--skills-dir")
        .arg(tw.skills_dir())
        .arg("--config")
        .arg(&none)
        .arg("ingest")
        .env("HOME", tw.home())
        .env_remove("SKILLDECK_CONFIG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::support::describe(&out));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("config file {} not found", none.display())), "{err}");
    assert!(err.contains("using the defaults"), "{err}");
    // A config file that is there says nothing.
    let quiet = tw.run(&["audit"]);
    assert!(quiet.stderr.is_empty(), "{}", crate::support::describe(&quiet));
}
