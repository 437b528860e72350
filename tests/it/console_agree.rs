//! The console and the command line tell the same story: changes another process makes are
//! announced without hiding an unread result; both list every agent's candidates by default.

use skilldeck::engine::EngineOptions;

use super::console_live::Live;
use super::support::fixture::Fixture;

fn status_line(screen: &str) -> String {
    screen.lines().last().unwrap_or_default().trim_matches('"').trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_change_waits_behind_an_unread_result() {
    let live = Live::start().await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    let before = live.drawn();
    live.cli(&["pin", "flaky-sync"]);
    // Drawn after the engine loaded the change (a new generation) and said so (its snapshot
    // and its note are two updates): the result stays.
    live.wait_drawn(|d| d.generation > before.generation && d.updates >= before.updates + 2).await;
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
    // A candidate another agent's sessions produced, beside the fixture's default-agent ones.
    fn codex(root: &std::path::Path) {
        let store = skilldeck::store::Store::open(&root.join("skilldeck.db")).unwrap();
        Fixture::new(store.conn()).candidate("bump-deps").agent("codex").build();
    }
    let live = Live::start_prepared(EngineOptions::quiet(), codex, "summarize-pr").await;
    // Each agent by the name a person knows it by.
    let screen = live.wait_for("bump-deps ×3 · Codex").await;
    assert!(screen.contains("summarize-pr ×4 · Claude Code"), "{screen}");
    assert!(screen.contains("Review queue (4)"), "{screen}");
    // The command line lists the same rows by default, with an agent column.
    let out = live.cli(&["candidates"]);
    let header = out.lines().next().unwrap();
    assert!(header.contains("AGENT"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("  candidate  ")).collect();
    assert_eq!(rows.len(), 4, "{out}");
    assert!(rows.iter().any(|r| r.contains("Codex") && r.contains("bump-deps")), "{out}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_mid_run_shows_the_wait_at_once_then_one_line_that_keeps_its_fix() {
    let live = Live::start_at(
        skilldeck::engine::EngineOptions::quiet(),
        skilldeck::tui::keys::KeyMap::default(),
        80,
        24,
    )
    .await;
    // Raw SQL: a foreign process's write lock, which no library door takes and holds.
    let other = rusqlite::Connection::open(live.root.join("skilldeck.db")).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE; UPDATE skills SET updated_at = updated_at;").unwrap();
    live.press("p");
    // The wait shows at once, not a stale line.
    live.wait_for("promote summarize-pr…").await;
    // The job gives up after the store's busy timeout.
    let guard = std::time::Duration::from_secs(30);
    let screen = live.wait_for_within("close it and run again", guard).await;
    // At 80 columns the path is cut, never what is wrong or the fix.
    let status = status_line(&screen);
    assert!(status.starts_with("database skilldeck.db is locked"), "{status:?}");
    assert!(status.ends_with("close it and run again"), "{status:?}");
    assert!(status.chars().count() <= 80, "{status:?}");
    // The console keeps running: once the lock is gone, the same key works.
    other.execute_batch("ROLLBACK").unwrap();
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_database_is_said_in_the_panes_and_quitting_fails() {
    // The queue's table overwritten: the file opens and `audit` works, the queue cannot be read.
    let live = Live::start_prepared(
        skilldeck::engine::EngineOptions::quiet(),
        |root| {
            let db = root.join("skilldeck.db");
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
            let sql = "SELECT rootpage FROM sqlite_master WHERE name = 'skill_candidates'";
            let root_page: u32 = c.query_row(sql, [], |r| r.get(0)).unwrap();
            let root_page = root_page as usize;
            drop(c);
            let mut bytes = std::fs::read(&db).unwrap();
            let size = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
            bytes[(root_page - 1) * size..root_page * size].fill(0xAB);
            std::fs::write(&db, bytes).unwrap();
        },
        "Cannot read the database",
    )
    .await;
    let screen = live.wait_for("move it aside").await;
    assert!(!screen.contains("Reading the database…"), "{screen}");
    let quit = live.quit_with().await;
    let why = format!("{:#}", quit.expect_err("a console that read nothing exits non-zero"));
    assert!(why.contains("skilldeck.db") && why.contains("move it aside"), "{why}");
}
