//! What a reviewer notices in the first minutes, driven by keys (and the mouse) through the real
//! console and engine: filters, long text, the timeline's labels, the status line, the header,
//! the key map from the config, copy, undo, confirmations; and database troubles said in one line
//! with the fix, in the CLI.

use ratatui::crossterm::event::{KeyCode, MouseButton, MouseEventKind};
use skilldeck::config::KeyList;
use skilldeck::draft::candidates::{self, DraftedBy};
use skilldeck::engine::EngineOptions;
use skilldeck::tui::keys::KeyMap;

use super::console_fixture::{LINT_V2, LINT_V3, populate, workspace, write_config};
use super::console_live::Live;
use super::support::{TestWorkspace, describe};

/// The status line (last row) of a screen.
fn status_line(screen: &str) -> String {
    let line = screen.lines().last().unwrap_or_default();
    line.trim_matches('"').trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clearing_a_filter_brings_every_row_back_and_esc_clears_a_kept_filter() {
    let live = Live::start().await;
    // A filter that matches nothing, kept with Enter: the title says so.
    live.press("/zz");
    live.code(KeyCode::Enter);
    live.wait_for("Review queue (0 of 3 · /zz · Esc clears)").await;
    // Opening the filter again and leaving it with Esc clears it: every candidate is back.
    live.press("/");
    live.code(KeyCode::Esc);
    let screen = live.wait_for("Review queue (3)").await;
    assert!(screen.contains("summarize-pr") && !screen.contains("Nothing awaiting"), "{screen}");

    // Skills: a kept filter stays visible in the title, and Esc alone clears it.
    live.press("2/fsy");
    live.code(KeyCode::Enter);
    let screen = live.wait_for("Skills (1 of 7 · /fsy · Esc clears)").await;
    assert!(!screen.contains("deploy-docs"), "{screen}");
    live.code(KeyCode::Esc);
    let screen = live.wait_for("┌ Skills (7)").await;
    assert!(screen.contains("deploy-docs") && !screen.contains("No skill matches"), "{screen}");

    // Filter by state: `f` steps through the states; the title names the one shown.
    live.press("fff");
    let screen = live.wait_for("Skills (1 of 7 · only deprecated · Esc clears)").await;
    assert!(screen.contains("flaky-sync") && !screen.contains("lint-fix"), "{screen}");
    insta::assert_snapshot!("filter_kept_state_100x30", live.redact(&screen));
    // Both at once read apart, not `/fla only deprecated`.
    live.press("/fla");
    live.code(KeyCode::Enter);
    live.wait_for("Skills (1 of 7 · /fla · only deprecated · Esc clears)").await;
    live.code(KeyCode::Esc);
    live.wait_for("Skills (1 of 7 · only deprecated · Esc clears)").await;
    live.code(KeyCode::Esc);
    live.wait_for("┌ Skills (7)").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_stay_whole_at_60_columns_and_keep_their_count() {
    // At 60 columns the list takes 36: every name whole, the detail narrower.
    let live = Live::start_at(EngineOptions::quiet(), KeyMap::default(), 60, 24).await;
    let screen = live.wait_for("summarize-pr ×4").await;
    insta::assert_snapshot!("queue_narrow_60x24", live.redact(&screen));
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_diff_pane_marks_the_live_version_scrolls_sideways_and_jumps_between_changes() {
    let live = Live::start_at(EngineOptions::quiet(), KeyMap::default(), 60, 24).await;
    // lint-fix: v1, v2 (live), proposed #3; the cursor starts on the proposal.
    live.press("2jjj4");
    let screen = live.wait_for("v2 edit (live)").await;
    // The long changed line is cut at the edge until the pane scrolls sideways.
    assert!(!screen.contains("format errors"), "{screen}");
    live.press("l");
    let screen = live.wait_for("format errors").await;
    assert!(screen.contains("+ ion: Fix lint and"), "{screen}");
    live.press("h");
    live.wait_gone("format errors").await;
    // n: the first change (the description) moves to the top; the unchanged name above it goes.
    assert!(live.backend.screen().contains("  name: lint-fix"));
    live.press("n");
    let screen = live.wait_gone("  name: lint-fix").await;
    assert!(screen.contains("- description: Fix lint errors"), "{screen}");
    live.press("n");
    let screen = live.wait_gone("- description: Fix lint errors").await;
    assert!(screen.contains("+ 1. Run cargo fmt"), "{screen}");
    insta::assert_snapshot!("diff_second_change_60x24", live.redact(&screen));
    live.press("N");
    live.wait_for("- description: Fix lint errors").await;
    live.press("nn");
    live.wait_for("no more changes below").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_labels_days_counts_and_both_thresholds_at_every_size() {
    for (width, height) in [(80, 24), (120, 40)] {
        let live = Live::start_at(EngineOptions::quiet(), KeyMap::default(), width, height).await;
        // flaky-sync: 11 outcomes over four days.
        live.press("2jj3");
        let screen = live.wait_for("outcomes per day (4 days)").await;
        for day in ["01-02", "01-03", "01-04", "01-05"] {
            assert!(screen.contains(day), "{day} missing at {width}x{height}:\n{screen}");
        }
        assert!(screen.contains("2✗") && screen.contains("1✓"), "{screen}");
        assert!(screen.contains("warning ≤40%"), "{screen}");
        assert!(screen.contains("deprecated ≤30%"), "{screen}");
        // No axis label that a threshold line would contradict (50% on the 40% row).
        assert!(!screen.contains("│50%"), "{screen}");
        insta::assert_snapshot!(
            format!("timeline_labelled_{width}x{height}"),
            live.redact(&screen)
        );
        live.quit().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_line_keeps_a_result_speaks_plainly_and_fits() {
    let live = Live::start_at(EngineOptions::quiet(), KeyMap::default(), 60, 24).await;
    // Nothing to ingest: "no changes", not a row of zeros.
    live.press("i");
    let screen = live.wait_for("no changes").await;
    assert!(!screen.contains("0/0"), "{screen}");
    // A result stays while the person moves around.
    live.press("p");
    let screen = live.wait_for("promoted summarize-pr").await;
    live.press("j");
    live.wait_for("candidate #3").await;
    live.press("k");
    let after = live.wait_for("candidate #2").await;
    assert!(status_line(&after).starts_with("promoted summarize-pr"), "{after}");
    // The long result is cut at the edge with an ellipsis, never wrapped or run off.
    let status = status_line(&screen);
    assert!(status.ends_with('…'), "{status:?}");
    assert!(status.chars().count() <= 61, "{status:?}");
    insta::assert_snapshot!("status_kept_60x24", live.redact(&after));
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_skill_folder_is_adopted_and_counts_are_singular_or_plural() {
    let options = EngineOptions { watch: true, ..EngineOptions::quiet() };
    let live = Live::start_with(options).await;
    live.wait_for("watching 2 folders for changes").await;
    let folder = live.root.join("skills/new-one");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: new-one\ndescription: New one\n---\n# New\n",
    )
    .unwrap();
    let screen = live.wait_for("adopted 1 new skill folder").await;
    assert!(!screen.contains("edited"), "{screen}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_header_names_the_database_and_the_skills_folder() {
    let live = Live::start().await;
    let root = live.root.display().to_string();
    let screen = live.wait_for(" db ").await;
    let expected = format!(" db {root}/skilldeck.db · skills {root}/skills");
    assert!(screen.contains(&expected), "{expected:?} missing:\n{screen}");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_come_from_the_config_table_and_the_help_shows_them() {
    let table: std::collections::BTreeMap<String, KeyList> =
        toml::from_str("promote = \"+\"\nhelp = \"F1\"").unwrap();
    let keymap = KeyMap::from_config(&table).unwrap();
    let live = Live::start_at(EngineOptions::quiet(), keymap, 100, 30).await;
    // `p` no longer promotes; `+` does.
    live.press("p");
    live.code(KeyCode::F(1));
    let screen = live.wait_for("keys (").await;
    assert!(screen.contains("│+ ") && screen.contains("promote candidate"), "{screen}");
    assert!(screen.contains("│F1 / q"), "{screen}");
    live.code(KeyCode::Esc);
    live.wait_gone("keys (").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "candidate");
    live.press("+");
    live.wait_for("promoted summarize-pr").await;
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 1"), "promoted");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_copies_the_selected_path_and_says_how() {
    let live = Live::start().await;
    live.press("y");
    live.wait_for("to the test clipboard").await;
    live.press("2j");
    live.wait_for("deploy-docs").await;
    live.press("y");
    live.wait_for("skills/deploy-docs to the test clipboard").await;
    let copied = live.copied.lock().unwrap().clone();
    let root = live.root.display().to_string();
    assert_eq!(
        copied,
        vec![format!("{root}/staging/summarize-pr"), format!("{root}/skills/deploy-docs")]
    );
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_selects_a_row_and_switches_panes_and_the_wheel_moves() {
    let live = Live::start().await;
    // Tabs: " skilldeck " then " 1 Queue (3) " then " 2 Skills (7) ".
    live.mouse(MouseEventKind::Down(MouseButton::Left), 26, 0);
    live.wait_for("┌ Skills (7)").await;
    // Rows start under the header (2 lines), the border and the column titles: flaky-sync is
    // the third skill.
    live.mouse(MouseEventKind::Down(MouseButton::Left), 20, 6);
    live.press("P");
    live.wait_for("pinned flaky-sync").await;
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE name = 'flaky-sync'"), "1");
    // The wheel moves the selection down to lint-fix.
    live.mouse(MouseEventKind::ScrollDown, 20, 10);
    live.press("P");
    live.wait_for("pinned lint-fix").await;
    assert_eq!(live.query("SELECT protected || '' FROM skills WHERE name = 'lint-fix'"), "1");
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_asks_first_and_a_pinned_skill_keeps_its_real_state() {
    let live = Live::start().await;
    live.press("Ga");
    let screen = live.wait_for("Approve the proposed version #3 of lint-fix").await;
    insta::assert_snapshot!("approve_asks_100x30", live.redact(&screen));
    live.press("n");
    live.wait_for("cancelled").await;
    assert_eq!(live.query("SELECT version || '' FROM skills WHERE name = 'lint-fix'"), "2");
    // lint-fix is failing: pinned, it still reads `warning`, with the pin beside it.
    live.press("2jjjP");
    live.wait_for("pinned lint-fix").await;
    let screen = live.wait_for("warning    pinned lint-fix").await;
    assert!(!screen.contains("protected"), "{screen}");
    insta::assert_snapshot!("skills_pinned_warning_100x30", live.redact(&screen));
    live.quit().await;
}

#[test]
fn database_troubles_are_one_line_naming_the_path_and_the_fix() {
    let tw = TestWorkspace::new();
    std::fs::write(tw.config(), "").unwrap();
    let first_line_of_error = |db: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .arg("--db")
            .arg(db)
            .arg("--skills-dir")
            .arg(tw.skills_dir())
            .arg("--config")
            .arg(tw.config())
            .arg("sweep")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{}", describe(&out));
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        err
    };

    // A path under a file.
    let file = tw.root().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let err = first_line_of_error(&file.join("skilldeck.db"));
    assert!(err.contains(&format!("{} is a file, not a folder", file.display())), "{err}");
    assert!(err.contains("pass --db"), "{err}");

    // A file that is not a database.
    let junk = tw.root().join("junk.db");
    std::fs::write(&junk, vec![b'j'; 4096]).unwrap();
    let err = first_line_of_error(&junk);
    assert!(err.contains(&format!("{} is not a skilldeck database or is damaged", junk.display())));
    assert!(err.contains("move it aside"), "{err}");

    // A read-only folder (not enforced for root, which writes anywhere).
    use std::os::unix::fs::PermissionsExt;
    let locked_dir = tw.root().join("ro");
    std::fs::create_dir(&locked_dir).unwrap();
    std::fs::set_permissions(&locked_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(locked_dir.join("probe"), "x").is_ok() {
        crate::support::skip("read-only folder: this user writes into read-only folders (root)");
    } else {
        let err = first_line_of_error(&locked_dir.join("skilldeck.db"));
        assert!(err.contains(&format!("cannot write in {}", locked_dir.display())), "{err}");
        assert!(err.contains("chmod u+w"), "{err}");
    }
    std::fs::set_permissions(&locked_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn inverted_thresholds_are_refused_naming_the_file_and_key() {
    let tw = TestWorkspace::new();
    std::fs::write(tw.config(), "[lifecycle]\nwarning_rate = 0.2\ndeprecated_rate = 0.3\n")
        .unwrap();
    let out = tw.run(&["sweep"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&tw.config().display().to_string()), "{err}");
    assert!(err.contains("warning_rate = 0.2 is below deprecated_rate = 0.3"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approval_diff_is_what_approve_writes_and_u_takes_it_back() {
    let live = Live::start().await;
    // A proposal drafted under another name: approve keeps the skill's name, so the diff must
    // not show the name changing.
    let renamed = LINT_V3.replace("name: lint-fix", "name: lint-fix-write");
    let text = Some((renamed.as_str(), "Fix lint and format errors"));
    candidates::set_drafted(live.db.conn(), 3, DraftedBy::Command, text, None).unwrap();
    live.press("G");
    let screen = live.wait_for("Proposed new version of lint-fix").await;
    assert!(!screen.contains("lint-fix-write"), "{screen}");
    assert!(screen.contains("  name: lint-fix"), "{screen}");
    live.press("ay");
    live.wait_for("approved lint-fix version 3 (u undoes)").await;
    let on_disk = std::fs::read_to_string(live.root.join("skills/lint-fix/SKILL.md")).unwrap();
    assert_eq!(on_disk, LINT_V3);
    live.press("uy");
    live.wait_for("undid approve of lint-fix").await;
    let on_disk = std::fs::read_to_string(live.root.join("skills/lint-fix/SKILL.md")).unwrap();
    assert_eq!(on_disk, LINT_V2);
    assert_eq!(live.query("SELECT status FROM skill_candidates WHERE id = 3"), "candidate");
    assert_eq!(
        live.query(
            "SELECT source FROM skill_versions WHERE skill_id = 2 ORDER BY version DESC LIMIT 1"
        ),
        "rollback"
    );
    live.wait_for("version lint-fix ×3").await;
    live.quit().await;
}

#[test]
fn undo_approve_on_the_command_line_takes_the_approval_back() {
    let tw = TestWorkspace::new();
    populate(&workspace(tw.root()));
    write_config(tw.root());
    tw.run_ok(&["approve", "3"]);
    let out = tw.run_ok(&["undo-approve", "3"]);
    assert!(out.contains("the approval of candidate 3 (lint-fix) is undone"), "{out}");
    let on_disk = std::fs::read_to_string(tw.skills_dir().join("lint-fix/SKILL.md")).unwrap();
    assert_eq!(on_disk, LINT_V2);
    let again = tw.run(&["undo-approve", "3"]);
    assert!(!again.status.success(), "{}", describe(&again));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_edited_auto_skill_waits_in_the_queue_with_its_edit_and_can_be_rolled_back_or_approved()
 {
    let options = EngineOptions { watch: true, ..EngineOptions::quiet() };
    let live = Live::start_with(options).await;
    live.wait_for("watching 2 folders for changes").await;
    // deploy-docs was drafted automatically and approved as it is on disk.
    skilldeck::catalog::skills::set_auto_created(live.db.conn(), 1, true).unwrap();
    let file = live.root.join("skills/deploy-docs/SKILL.md");
    let approved = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{approved}\nRun the link checker first.\n")).unwrap();
    // The edit puts it back in review: flagged in Skills, and in the queue with the diff.
    live.wait_for("edited  deploy-docs").await;
    // The scan's result comes after the snapshot that shows its work: wait for both.
    live.wait_for("1 edited skill recorded as new versions").await;
    live.press("G");
    let screen = live.wait_for("edited by hand since v1 was approved").await;
    assert!(screen.contains("+ Run the link checker first."), "{screen}");
    insta::assert_snapshot!("queue_hand_edit_100x30", live.redact(&screen));
    live.press("2");
    live.wait_for("healthy    review deploy-docs").await;
    // r rolls the edit back (after y).
    live.press("1Gr");
    live.wait_for("Roll deploy-docs back to v1, dropping the edit shown? y/n").await;
    live.press("y");
    live.wait_for("rolled deploy-docs back to v1").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), approved);
    assert_eq!(live.query("SELECT needs_review || '' FROM skills WHERE id = 1"), "0");
    live.wait_gone("edited  deploy-docs").await;
    // Another edit, approved this time: the approval follows the text on disk.
    std::fs::write(&file, format!("{approved}\nCheck the links.\n")).unwrap();
    live.wait_for("edited  deploy-docs").await;
    live.press("Gay");
    live.wait_for("approved the edited deploy-docs as it is on disk").await;
    assert_eq!(live.query("SELECT needs_review || '' FROM skills WHERE id = 1"), "0");
    live.wait_gone("edited  deploy-docs").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pinning_re_judges_the_skill_at_once_with_one_event() {
    let live = Live::start().await;
    let events = || live.query("SELECT COUNT(*) || '' FROM skill_events WHERE skill_id = 3");
    let before: i64 = events().parse().unwrap();
    // flaky-sync is deprecated at 27%: pinned, it can no longer be deprecated, but its rate is
    // still below the warning line, so it reads `warning` at once (not `healthy` until a sweep).
    live.press("2jj");
    live.wait_for("deprecated        flaky-sync").await;
    live.press("P");
    live.wait_for("pinned flaky-sync").await;
    live.wait_for("warning    pinned flaky-sync").await;
    let after: i64 = events().parse().unwrap();
    assert_eq!(after, before + 1);
    assert_eq!(
        live.query(
            "SELECT kind || ' ' || from_status || '→' || to_status FROM skill_events
             WHERE skill_id = 3 ORDER BY id DESC LIMIT 1"
        ),
        "pinned deprecated→warning"
    );
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn o_sorts_the_skills_by_state_then_by_uses() {
    let live = Live::start().await;
    // A sweep brings the use counters in step with the record.
    live.press("s");
    live.wait_for("sweep judged").await;
    live.press("2o");
    let screen = live.wait_for("Skills (7) · by state").await;
    let at = |screen: &str, name: &str| screen.find(&format!(" {name} ")).unwrap();
    assert!(at(&screen, "flaky-sync") < at(&screen, "lint-fix"), "{screen}");
    assert!(at(&screen, "lint-fix") < at(&screen, "deploy-docs"), "{screen}");
    assert!(at(&screen, "deploy-docs") < at(&screen, "old-report"), "{screen}");
    live.press("oo");
    let screen = live.wait_for("Skills (7) · by uses").await;
    assert!(at(&screen, "deploy-docs") < at(&screen, "flaky-sync"), "{screen}");
    assert!(at(&screen, "lint-fix") < at(&screen, "flaky-sync"), "{screen}");
    assert!(at(&screen, "flaky-sync") < at(&screen, "degraded-y"), "{screen}");
    live.press("oo");
    live.wait_for("Skills (7) · by effect").await;
    live.press("o");
    live.wait_for("┌ Skills (7) ─").await;
    live.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_shows_at_once_health_pin_review_and_stale() {
    let live = Live::start().await;
    // As the usage sweep and an edit would leave them: pinned-notes pinned and stale.
    let db = live.db.conn();
    db.execute_batch("BEGIN").unwrap();
    skilldeck::catalog::skills::set_stale(db, 4, Some("2026-01-01T00:00:00Z")).unwrap();
    skilldeck::catalog::skills::mark_needs_review(db, 4).unwrap();
    db.execute_batch("COMMIT").unwrap();
    live.press("2");
    live.wait_for("healthy    pinned review stale pinned-notes").await;
    // The write came from outside the console: it says so (the hand edit waits in the queue).
    let screen = live.wait_for("changed outside the console: 1 new item in the queue").await;
    insta::assert_snapshot!("skills_all_flags_100x30", live.redact(&screen));
    live.quit().await;
}
