//! The console driven by keys through its input channel, with the real engine and a real store:
//! each test checks what the screen says and what the database holds.

use ratatui::crossterm::event::Event;
use skilldeck::catalog::SkillStatus;
use skilldeck::engine::EngineOptions;
use skilldeck::store::Store;

use super::console_fixture::LINT_V3;
use super::console_live::Live;
use super::support::fixture::Fixture;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promote_moves_the_draft_live_and_undo_puts_it_back() {
    let live = Live::start().await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "promoted");
    assert_eq!(live.query("SELECT status FROM skills WHERE name = 'summarize-pr'"), "healthy");
    assert!(live.root.join("skills/summarize-pr/SKILL.md").is_file());
    assert!(!live.root.join("staging/summarize-pr").exists());
    let screen = live.wait_for("Skills (8)").await;
    assert!(screen.contains("Review queue (2)"), "{screen}");

    live.press("uy");
    live.wait_for("undid promote of summarize-pr").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "candidate");
    let left: i64 = live
        .db
        .conn()
        .query_row("SELECT COUNT(*) FROM skills WHERE name = 'summarize-pr'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0);
    assert!(live.root.join("staging/summarize-pr/SKILL.md").is_file());
    live.wait_for("Review queue (3)").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dismiss_parks_the_draft_and_undo_brings_it_back() {
    let live = Live::start().await;
    live.press("d");
    live.wait_for("dismissed summarize-pr (u undoes)").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "dismissed");
    // The draft waits in `<staging>/.dismissed/` where agents and the queue never look.
    assert!(live.root.join("staging/.dismissed/summarize-pr/SKILL.md").is_file());
    assert!(!live.root.join("staging/summarize-pr").exists());
    let screen = live.wait_for("Review queue (2)").await;
    assert!(!screen.contains("summarize-pr ×4"), "{screen}");
    live.press("uy");
    live.wait_for("undid dismiss of summarize-pr").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "candidate");
    assert!(live.root.join("staging/summarize-pr/SKILL.md").is_file());
    assert!(!live.root.join("staging/.dismissed/summarize-pr").exists());
    live.wait_for("Review queue (3)").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pin_toggles_protected_on_screen_and_in_the_store() {
    let live = Live::start().await;
    // Skills sort by name: degraded-y, deploy-docs, ...
    live.press("2j");
    live.wait_for("healthy           deploy-docs").await;
    live.press("P");
    live.wait_for("pinned deploy-docs: now healthy, never worse than warning").await;
    live.wait_for("healthy    pinned deploy-docs").await;
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE name = 'deploy-docs'"), "1");
    assert_eq!(
        live.query("SELECT kind FROM skill_events WHERE skill_id = 1 ORDER BY id DESC LIMIT 1"),
        "pinned"
    );
    live.press("P");
    live.wait_for("unpinned deploy-docs").await;
    live.wait_for("healthy           deploy-docs").await;
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE name = 'deploy-docs'"), "0");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_makes_the_proposal_the_next_version() {
    let live = Live::start().await;
    live.press("G");
    live.wait_for("Proposed new version of lint-fix").await;
    live.press("a");
    live.wait_for("Approve the proposed version #3 of lint-fix").await;
    live.press("y");
    live.wait_for("approved lint-fix version 3").await;
    assert_eq!(live.query("SELECT version || '' FROM skills WHERE name = 'lint-fix'"), "3");
    assert_eq!(
        live.query("SELECT source FROM skill_versions WHERE skill_id = 2 AND version = 3"),
        "approve"
    );
    let on_disk = std::fs::read_to_string(live.root.join("skills/lint-fix/SKILL.md")).unwrap();
    assert_eq!(on_disk, LINT_V3);
    live.wait_for("Review queue (2)").await;
    // The diff pane now lists v3 as a stored version.
    live.press("2jjj4");
    live.wait_for("v3 approve").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reject_asks_first_and_only_yes_rejects() {
    let live = Live::start().await;
    live.press("Gr");
    live.wait_for("Reject the proposed version #3 of lint-fix? y/n").await;
    live.press("n");
    live.wait_for("cancelled").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 3"), "candidate");
    live.press("ry");
    live.wait_for("rejected the proposed version of lint-fix").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 3"), "dismissed");
    assert_eq!(live.query("SELECT version || '' FROM skills WHERE id = 2"), "2");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_moves_the_folder_and_undo_restores_it() {
    let live = Live::start().await;
    live.press("2j");
    live.wait_for("healthy           deploy-docs").await;
    live.press("x");
    live.wait_for("archived deploy-docs (u undoes)").await;
    live.wait_for("archived          deploy-docs").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 1"), "archived");
    assert!(live.root.join("archive/default/deploy-docs/SKILL.md").is_file());
    assert!(!live.root.join("skills/deploy-docs").exists());
    live.press("uy");
    live.wait_for("undid archive of deploy-docs").await;
    live.wait_for("healthy           deploy-docs").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 1"), "healthy");
    assert!(live.root.join("skills/deploy-docs/SKILL.md").is_file());
    assert_eq!(
        live.query("SELECT reason FROM skill_events WHERE skill_id = 1 ORDER BY id DESC LIMIT 1"),
        "restored from archived"
    );
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archiving_a_protected_skill_parks_it_and_keeps_the_pin() {
    // The sweep never touches a pinned skill, but a person may archive one: it stays pinned, so
    // restoring it brings it back protected.
    let live = Live::start().await;
    live.press("2jjjjj");
    live.wait_for("healthy    pinned pinned-notes").await;
    live.press("x");
    live.wait_for("archived pinned-notes (u undoes)").await;
    live.wait_for("archived   pinned pinned-notes").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 4"), "archived");
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE id = 4"), "1");
    assert!(live.root.join("archive/default/pinned-notes/SKILL.md").is_file());
    live.press("uy");
    live.wait_for("undid archive of pinned-notes").await;
    live.wait_for("healthy    pinned pinned-notes").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 4"), "healthy");
    assert!(live.root.join("skills/pinned-notes/SKILL.md").is_file());
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_brings_a_retired_skill_back_live_as_healthy() {
    let live = Live::start().await;
    live.press("2jjjjjj");
    live.wait_for("retired           retired-x").await;
    live.press("R");
    live.wait_for("restored retired-x to the live folder as healthy").await;
    live.wait_for("healthy           retired-x").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 6"), "healthy");
    assert!(live.root.join("skills/retired-x/SKILL.md").is_file());
    assert!(!live.root.join("retired/default/retired-x").exists());
    assert_eq!(
        live.query("SELECT reason FROM skill_events WHERE skill_id = 6 ORDER BY id DESC LIMIT 1"),
        "restored from retired"
    );
    // A live skill cannot be restored: the status line says why and nothing changes.
    live.press("R");
    live.wait_for("skill \"retired-x\" is healthy, not archived, retired or missing").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_by_another_process_show_up_without_a_key() {
    let live = Live::start().await;
    let other = Store::open(&live.root.join("skilldeck.db")).unwrap();
    Fixture::new(other.conn()).candidate("from-elsewhere").at("2026-01-20T00:00:00Z").build();
    // The engine polls `PRAGMA data_version` (every 100 ms here, 250 ms in the console).
    live.wait_for("from-elsewhere").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sweep_now_judges_skills_on_their_recent_outcomes() {
    let live = Live::start().await;
    skilldeck::catalog::skills::set_status_unflagged(live.db.conn(), 3, SkillStatus::Healthy)
        .unwrap();
    live.press("2");
    live.wait_for("healthy           flaky-sync").await;
    live.press("s");
    // The real rules also lift degraded-y, which has no failures on record.
    let screen = live.wait_for("sweep judged 5 skills: 2 state changes").await;
    assert!(screen.contains("flaky-sync healthy→deprecated"), "{screen}");
    // The fixture's uses are months old: the same sweep flags the skill stale too.
    live.wait_for("deprecated stale  flaky-sync").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE id = 3"), "deprecated");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_transcript_file_is_ingested_detected_and_drafted() {
    let options = EngineOptions { watch: true, ..EngineOptions::quiet() };
    let live = Live::start_with(options).await;
    live.wait_for("watching 2 folders for changes").await;
    // A native trajectory: the same task succeeding three times in a row (a streak),
    // each picking deploy-docs.
    let file = live.root.join("transcripts/project/session.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let lines: String = (1..=3)
        .map(|n| {
            format!(
                "{{\"user_input\": \"rotate the logs on host {n}\", \"picked_skill\": \"deploy-docs\", \
                 \"outcome\": \"success\", \"summary\": \"rotated\", \
                 \"timestamp\": \"2026-01-20T10:0{n}:00Z\"}}\n"
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    live.wait_for("read 1 file, 3 new turns; 1 new candidate").await;
    live.wait_for("Review queue (4)").await;
    assert_eq!(
        live.query("SELECT COUNT(*) || '' FROM turns t WHERE complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)"),
        "3"
    );
    assert_eq!(
        live.query(
            "SELECT COUNT(*) || '' FROM skill_invocations WHERE skill_name = 'deploy-docs'
             AND source = 'transcript'"
        ),
        "3"
    );
    assert_eq!(
        live.query("SELECT source FROM skill_candidates ORDER BY id DESC LIMIT 1"),
        "signature"
    );
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resizing_redraws_at_the_new_size() {
    let live = Live::start().await;
    live.backend.0.lock().unwrap().resize(80, 24);
    live.keys.send(Event::Resize(80, 24)).unwrap();
    let screen = live.wait_for("Review queue (3) ────────────┐").await;
    assert_eq!(screen.lines().count(), 24, "{screen}");
    assert!(screen.lines().all(|l| l.chars().count() == 82), "{screen}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_skill_md_becomes_a_version_in_the_diff_pane() {
    let options = EngineOptions { watch: true, ..EngineOptions::quiet() };
    let live = Live::start_with(options).await;
    live.wait_for("watching 2 folders for changes").await;
    let edited = format!("{}4. Commit the fixes\n", super::console_fixture::LINT_V2);
    std::fs::write(live.root.join("skills/lint-fix/SKILL.md"), &edited).unwrap();
    live.wait_for("1 edited skill recorded as new versions").await;
    assert_eq!(
        live.query("SELECT content FROM skill_versions WHERE skill_id = 2 AND version = 3"),
        edited
    );
    live.press("2jjj4");
    live.wait_for("v3 edit → proposed #3").await;
    live.press("k");
    let screen = live.wait_for("v2 edit → v3 edit").await;
    assert!(screen.contains("+ 4. Commit the fixes"), "{screen}");
    live.quit().await;
}
