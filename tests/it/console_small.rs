//! The smaller trust fixes, through the console's keys and the command line: overlays close
//! with q, a new candidate opens at its top, rates say what they are over, a rollback to the
//! same text is refused, an ingest with no transcript folder says so.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::console_live::Live;
use super::support::TestWorkspace;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_closes_the_help_and_the_history_instead_of_quitting() {
    let live = Live::start().await;
    live.press("?");
    live.wait_for("this help").await;
    live.press("q");
    live.wait_gone("this help").await;
    live.press("H");
    live.wait_for("history:").await;
    live.press("q");
    live.wait_gone("history:").await;
    // Still running: keys still act.
    live.press("2");
    live.wait_for("┌ Skills (7)").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_candidate_opens_at_its_top_after_a_decision() {
    let live = Live::start().await;
    live.keys
        .send(ratatui::crossterm::event::Event::Key(KeyEvent::new(
            KeyCode::Char('d'),
            KeyModifiers::CONTROL,
        )))
        .unwrap();
    live.wait_gone("New skill · p promote · d dismiss").await;
    live.press("p");
    live.wait_for("promoted summarize-pr").await;
    let screen = live.wait_for("candidate #2").await;
    assert!(screen.contains("New skill · p promote · d dismiss"), "{screen}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_says_how_many_uses_it_is_over() {
    let live = Live::start().await;
    // flaky-sync: 11 outcomes, a window of 20.
    live.press("2jj3");
    live.wait_for("rate 27% over the last 11 uses").await;
    live.quit().await;
}

#[test]
fn a_rollback_to_the_text_already_live_is_refused_and_adds_no_version() {
    let tw = TestWorkspace::new();
    tw.live_skill("tidy");
    let out = tw.run(&["rollback", "tidy", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already has the text of version 1"), "{err}");
    assert_eq!(tw.run_json(&["versions", "tidy"]).as_array().unwrap().len(), 1);
}

#[test]
fn an_ingest_with_no_transcript_folder_says_where_it_looked() {
    let tw = TestWorkspace::new();
    let out = tw.run_ok(&["ingest"]);
    assert!(out.starts_with("no transcript folder found (looked in "), "{out}");
    assert!(out.contains(".claude/projects"), "{out}");
    assert!(!out.contains("0 files"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_for_a_skill_not_live_says_so_and_a_says_how_to_approve_it() {
    let live = Live::start().await;
    live.cli(&["archive", "lint-fix"]);
    live.press("G");
    let screen = live.wait_for("Proposed new version of lint-fix (archived v2)").await;
    assert!(screen.contains("restore it"), "{screen}");
    assert!(!screen.contains("live v2"), "{screen}");
    live.press("a");
    live.wait_for("lint-fix is archived: restore it (Skills, R) before approving").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 3"), "candidate");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_diffs_plus_and_minus_column_stays_when_scrolling_sideways() {
    let live = Live::start_at(
        skilldeck::engine::EngineOptions::quiet(),
        skilldeck::tui::keys::KeyMap::default(),
        60,
        24,
    )
    .await;
    // lint-fix's proposal against its live version.
    live.press("2jjj4");
    live.wait_for("- description: Fix lint errors").await;
    live.press("l");
    let screen = live.wait_for("+ ion: Fix lint and format errors").await;
    assert!(screen.contains("- ion: Fix lint errors"), "{screen}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn narrow_terminals_drop_columns_before_cutting_the_state_or_the_name() {
    for width in [40, 55, 60] {
        let live = Live::start_at(
            skilldeck::engine::EngineOptions::quiet(),
            skilldeck::tui::keys::KeyMap::default(),
            width,
            24,
        )
        .await;
        live.press("2");
        let screen = live.wait_for("flaky-sync").await;
        assert!(screen.contains("deprecated") && screen.contains("deploy-docs"), "{screen}");
        live.quit().await;
    }
}
