//! `e` opens the selected draft or SKILL.md in the editor (a stub script that appends a line)
//! and returns to the console; decisions are bound to the text the reviewer saw.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use skilldeck::engine::EngineOptions;
use skilldeck::tui::keys::KeyMap;

use super::console_live::Live;

/// An editor that appends `line` to the file it is given, as `$EDITOR` would be run.
fn stub_editor(dir: &Path, line: &str) -> String {
    let script = dir.join("stub-editor.sh");
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' '{line}' >> \"$1\"\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

async fn start(line: &str) -> (Live, tempfile::TempDir) {
    let tools = tempfile::tempdir().unwrap();
    let editor = stub_editor(tools.path(), line);
    let live =
        Live::start_editing(EngineOptions::quiet(), KeyMap::default(), 100, 30, Some(editor)).await;
    (live, tools)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_edits_the_selected_draft_and_promote_writes_it_as_saved() {
    let (live, _tools) = start("Check the changelog entry.").await;
    let staged = live.root.join("staging/summarize-pr/SKILL.md");
    live.press("e");
    live.wait_for("back from the editor").await;
    assert!(std::fs::read_to_string(&staged).unwrap().ends_with("Check the changelog entry.\n"));
    // The queue shows the draft as saved, so what the reviewer reads is what promote writes.
    live.wait_for("Check the changelog entry.").await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    let on_disk = std::fs::read_to_string(live.root.join("skills/summarize-pr/SKILL.md")).unwrap();
    assert!(on_disk.ends_with("Check the changelog entry.\n"), "{on_disk}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_changed_after_it_was_shown_is_not_promoted_unseen() {
    let (live, _tools) = start("unused").await;
    live.wait_for("gh pr view NUMBER").await;
    // Saved from another window after the console drew it.
    let staged = live.root.join("staging/summarize-pr/SKILL.md");
    let text = std::fs::read_to_string(&staged).unwrap();
    std::fs::write(&staged, format!("{text}4. Post it in the channel\n")).unwrap();
    live.press("p");
    live.wait_for("summarize-pr changed since it was reviewed").await;
    assert!(!live.root.join("skills/summarize-pr").exists());
    // The queue now shows the draft as saved; promoting what is shown goes through.
    live.wait_for("4. Post it in the channel").await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    let on_disk = std::fs::read_to_string(live.root.join("skills/summarize-pr/SKILL.md")).unwrap();
    assert!(on_disk.ends_with("4. Post it in the channel\n"), "{on_disk}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_skill_records_the_edit_and_approval_is_bound_to_what_is_saved() {
    let (live, _tools) = start("Run the link checker first.").await;
    // deploy-docs was drafted automatically: a hand edit sends it back to review.
    skilldeck::catalog::skills::set_auto_created(live.db.conn(), 1, true).unwrap();
    live.press("2j");
    live.wait_for("deploy-docs").await;
    live.press("e");
    live.wait_for("back from the editor").await;
    // The saved edit is recorded at once as the next version, and waits in the queue.
    live.wait_for("healthy    review deploy-docs").await;
    assert_eq!(live.query("SELECT version || '' FROM skills WHERE id = 1"), "2");
    live.press("1G");
    let screen = live.wait_for("+ Run the link checker first.").await;
    assert!(screen.contains("edited by hand since v1 was approved"), "{screen}");
    // Edited again after the reviewer saw the diff: approve refuses and shows the new text.
    let file = live.root.join("skills/deploy-docs/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}Then publish.\n")).unwrap();
    live.press("a");
    live.wait_for("y/n").await;
    live.press("y");
    live.wait_for("deploy-docs changed since it was reviewed").await;
    assert_eq!(live.query("SELECT needs_review || '' FROM skills WHERE id = 1"), "1");
    live.wait_for("+ Then publish.").await;
    live.press("a");
    live.wait_for("y/n").await;
    live.press("y");
    live.wait_for("approved the edited deploy-docs as it is on disk").await;
    assert_eq!(live.query("SELECT needs_review || '' FROM skills WHERE id = 1"), "0");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_proposed_version_says_what_to_do_instead() {
    let (live, _tools) = start("unused").await;
    live.press("G");
    live.wait_for("Proposed new version of lint-fix").await;
    live.press("e");
    live.wait_for("a proposed version has no draft file").await;
    live.quit().await;
}

#[test]
fn the_command_line_twin_edits_a_skill_or_a_draft_and_binds_decisions_to_a_digest() {
    let tw = super::support::TestWorkspace::new();
    super::console_fixture::populate(&super::console_fixture::workspace(tw.root()));
    super::console_fixture::write_config(tw.root());
    let editor = stub_editor(tw.root(), "Edited from the shell.");
    let edit = |target: &str| {
        let out = tw.cmd().env("VISUAL", &editor).args(["edit", target]).output().unwrap();
        assert!(out.status.success(), "{}", super::support::describe(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let said = edit("deploy-docs");
    assert!(said.contains("deploy-docs: the edit is recorded as version 2"), "{said}");
    let said = edit("1");
    assert!(said.contains("saved draft 1"), "{said}");
    let staged = std::fs::read_to_string(tw.root().join("staging/summarize-pr/SKILL.md")).unwrap();
    // Promote binds to the digest of what the reviewer saw: the text before the edit is refused.
    let before = super::console_fixture::NEW_SKILL_MD;
    let old = skilldeck::text::hex::sha256_hex(before.as_bytes());
    let out = tw.run(&["promote", "1", "--seen", &old]);
    assert!(!out.status.success(), "{}", super::support::describe(&out));
    let now = skilldeck::text::hex::sha256_hex(staged.as_bytes());
    tw.run_ok(&["promote", "1", "--seen", &now]);
    let live = std::fs::read_to_string(tw.skills_dir().join("summarize-pr/SKILL.md")).unwrap();
    assert!(live.ends_with("Edited from the shell.\n"), "{live}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_an_archived_skill_says_when_the_edit_counts() {
    let (live, _tools) = start("Check the links too.").await;
    live.press("2j");
    live.wait_for("healthy           deploy-docs").await;
    live.press("x");
    live.wait_for("archived deploy-docs").await;
    live.press("e");
    let screen = live.wait_for("back from the editor").await;
    assert!(!screen.contains("unchanged"), "{screen}");
    live.wait_for("deploy-docs is archived; the edit becomes its next version when it is").await;
    live.press("R");
    live.wait_for("restored deploy-docs").await;
    let versions = live.query("SELECT COUNT(*) || '' FROM skill_versions WHERE skill_id = 1");
    assert_eq!(versions, "2");
    live.quit().await;
}
