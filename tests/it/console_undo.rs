//! `u` through the console's keys: it names the last change and asks, acts only on that change,
//! never reaches past one it cannot undo, and refuses a change something else has changed since.

use super::console_live::Live;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_names_the_last_change_asks_and_goes_back_several_steps() {
    let live = Live::start().await;
    live.press("d");
    live.wait_for("dismissed summarize-pr").await;
    live.press("d");
    live.wait_for("dismissed triage-issue").await;
    live.press("u");
    live.wait_for("Undo your last change, dismissed triage-issue (just now)? y/n").await;
    live.press("n");
    live.wait_for("cancelled").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 2"), "dismissed");
    live.press("uy");
    live.wait_for("undid dismiss of triage-issue").await;
    live.press("u");
    live.wait_for("Undo your last change, dismissed summarize-pr").await;
    live.press("y");
    live.wait_for("undid dismiss of summarize-pr").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "candidate");
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 2"), "candidate");
    live.press("u");
    live.wait_for("nothing to undo").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_takes_back_only_the_last_change_and_never_reaches_past_one_it_cannot() {
    let live = Live::start().await;
    // Promote, then pin another skill: u offers the pin, not the promote.
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    live.press("2j");
    live.wait_for("healthy           deploy-docs").await;
    live.press("P");
    live.wait_for("pinned deploy-docs").await;
    live.press("u");
    live.wait_for("Undo your last change, pinned deploy-docs").await;
    live.press("y");
    live.wait_for("undid pin of deploy-docs").await;
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE id = 1"), "0");
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "promoted");
    // Archive then restore: the restore cannot be undone, and u does not reach the archive.
    live.press("x");
    live.wait_for("archived deploy-docs").await;
    live.press("R");
    live.wait_for("restored deploy-docs").await;
    live.press("u");
    let screen = live.wait_for("cannot be undone").await;
    assert!(screen.contains("restored deploy-docs"), "{screen}");
    assert!(!screen.contains("y/n"), "{screen}");
    live.press("y");
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 1"), "healthy");
    assert!(live.root.join("skills/deploy-docs/SKILL.md").is_file());
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "promoted");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_refuses_a_change_someone_else_has_taken_back_since() {
    let live = Live::start().await;
    live.press("d");
    live.wait_for("dismissed summarize-pr").await;
    // Another process reopens it, then it is dismissed and reopened again from the CLI.
    live.cli(&["undo-dismiss", "1"]);
    live.wait_for("Review queue (3)").await;
    live.press("u");
    live.wait_for("Undo your last change, dismissed summarize-pr").await;
    live.press("y");
    let screen = live.wait_for("nothing undone: summarize-pr changed since").await;
    assert!(screen.contains("(dismissed then, in the queue now)"), "{screen}");
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "candidate");
    // That change now stops u.
    live.press("u");
    live.wait_for("cannot be undone").await;
    live.quit().await;
}
