//! The console and the command line tell the same story: changes another process makes are
//! announced without hiding an unread result; both list every agent's candidates by default.

use super::console_live::Live;

fn status_line(screen: &str) -> String {
    screen.lines().last().unwrap_or_default().trim_matches('"').trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_change_waits_behind_an_unread_result() {
    let live = Live::start().await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    live.cli(&["pin", "flaky-sync"]);
    // The engine polls every 100 ms here: the change is loaded, the result stays.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let screen = live.backend.screen();
    assert!(status_line(&screen).starts_with("promoted summarize-pr"), "{screen}");
    live.press("j");
    live.wait_for("changed outside the console: flaky-sync deprecated→warning").await;
    live.press("2");
    live.wait_for("warning    pinned flaky-sync").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_and_candidates_list_every_agent_and_name_each() {
    let live = Live::start().await;
    live.db
        .conn()
        .execute("UPDATE skill_candidates SET agent_id = 'codex' WHERE id = 2", [])
        .unwrap();
    let screen = live.wait_for("triage-issue ×3 · codex").await;
    assert!(screen.contains("Review queue (3)"), "{screen}");
    // The command line lists the same rows by default, with an agent column.
    let out = live.cli(&["candidates"]);
    let header = out.lines().next().unwrap();
    assert!(header.contains("AGENT"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("  candidate  ")).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows.iter().any(|r| r.contains("codex") && r.contains("triage-issue")), "{out}");
    live.quit().await;
}
