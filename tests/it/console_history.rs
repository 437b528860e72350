//! The history of dismissed and rejected candidates with reopen, rollback from the Diff pane,
//! and the Skills orders by rate and by last use.

use super::console_fixture::{LINT_V1, LINT_V2};
use super::console_live::Live;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_lists_dismissed_and_rejected_candidates_and_reopens_them() {
    let live = Live::start().await;
    let status =
        |id: i64| live.query(&format!("SELECT status FROM skill_candidates WHERE id = {id}"));
    // Dismiss the new skill, reject the proposed version.
    live.press("d");
    live.wait_for("dismissed summarize-pr").await;
    live.press("G");
    live.wait_for("Proposed new version of lint-fix").await;
    live.press("r");
    live.wait_for("y/n").await;
    live.press("y");
    live.wait_for("rejected the proposed version of lint-fix").await;
    live.press("H");
    let screen = live.wait_for("history: 2 dismissed or rejected").await;
    assert!(screen.contains("rejected   #3 lint-fix"), "{screen}");
    assert!(screen.contains("version of lint-fix"), "{screen}");
    assert!(screen.contains("dismissed  #1 summarize-pr"), "{screen}");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    insta::assert_snapshot!("history_100x30", live.redact(&screen).replace(&today, "[TODAY]   "));
    // Newest first: j moves to the dismissed draft; O puts it back in the queue with its draft.
    live.press("jO");
    live.wait_for("reopened summarize-pr: back in the review queue").await;
    assert_eq!(status(1), "candidate");
    assert!(live.root.join("staging/summarize-pr/SKILL.md").is_file());
    live.wait_for("history: 1 dismissed or rejected").await;
    // R (or Enter) reopens too: the rejected proposal is back in the queue.
    live.press("R");
    live.wait_for("reopened lint-fix").await;
    assert_eq!(status(3), "candidate");
    live.wait_for("Nothing dismissed or rejected.").await;
    live.code(ratatui::crossterm::event::KeyCode::Esc);
    live.wait_for("version lint-fix ×3").await;
    // u takes the last reopen back.
    live.press("uy");
    live.wait_for("undid reopen of lint-fix").await;
    assert_eq!(status(3), "dismissed");
    // Outside the history, O says where it works.
    live.press("O");
    live.wait_for("open the history with H").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_in_the_diff_pane_rolls_back_to_the_version_under_the_cursor() {
    let live = Live::start().await;
    // lint-fix: v1, v2 (live) and a proposed version.
    live.press("2jjj");
    live.wait_for("warning           lint-fix").await;
    live.press("4");
    live.wait_for("proposed").await;
    live.press("b");
    live.wait_for("this is a proposed version: a approves it, r rejects it").await;
    live.press("k");
    live.press("b");
    live.wait_for("this is the live version").await;
    live.press("k");
    live.press("b");
    live.wait_for("Roll lint-fix back to v1 (its text as a new version)? y/n").await;
    live.press("y");
    live.wait_for("rolled lint-fix back to v1 (now v3)").await;
    let file = live.root.join("skills/lint-fix/SKILL.md");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), LINT_V1);
    assert_ne!(LINT_V1, LINT_V2);
    assert_eq!(live.query("SELECT version || '' FROM skills WHERE id = 2"), "3");
    // Elsewhere, b says where it works.
    live.press("1b");
    live.wait_for("b rolls back to the version under the cursor in the diff pane (4)").await;
    live.quit().await;
}

/// The skill names in the Skills table, top to bottom.
fn skill_order(screen: &str) -> Vec<String> {
    let names = [
        "degraded-y",
        "deploy-docs",
        "flaky-sync",
        "lint-fix",
        "old-report",
        "pinned-notes",
        "retired-x",
    ];
    screen
        .lines()
        .filter_map(|line| names.iter().find(|n| line.contains(&format!(" {n} "))))
        .map(|n| n.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn o_sorts_skills_by_rate_and_by_last_use() {
    let live = Live::start().await;
    // A sweep brings the counters the orders read in step with the outcomes on record.
    live.press("s");
    live.wait_for("sweep judged").await;
    live.press("2oo");
    let screen = live.wait_for("by rate").await;
    let order = skill_order(&screen);
    // Lowest rate first (flaky-sync 27%, lint-fix 35%, deploy-docs 90%), never used last.
    assert_eq!(order[..3], ["flaky-sync", "lint-fix", "deploy-docs"], "{screen}");
    live.press("oo");
    let screen = live.wait_for("by last used").await;
    let newest: Vec<String> = {
        let mut stmt = live
            .db
            .conn()
            .prepare(
                "SELECT s.name FROM skills s JOIN skill_invocations i ON i.skill_id = s.id
                 GROUP BY s.id ORDER BY max(i.at) DESC",
            )
            .unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert_eq!(newest.len(), 3);
    assert_eq!(skill_order(&screen)[..3], newest[..], "{screen}");
    live.quit().await;
}
