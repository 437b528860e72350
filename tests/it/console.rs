//! Screens of each console pane, drawn from a snapshot of a real store into a `TestBackend`.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use skilldeck::engine::snapshot::{Snapshot, View, refresh};
use skilldeck::tui::Action;
use skilldeck::tui::draw::draw;
use skilldeck::tui::state::UiState;
use skilldeck::tui::update::update;
use skilldeck::workspace::Workspace;

use super::console_fixture::{populate, tempdir, workspace};

/// Draws the console after `actions`, the way the app does: lists first, then the view's detail.
pub fn screen(ws: &Workspace, width: u16, height: u16, actions: &[Action]) -> String {
    let mut snap = Snapshot::for_workspace(ws);
    refresh(&ws.store, &mut snap, &View::default(), true).unwrap();
    let mut ui = UiState::new(Rect::new(0, 0, width, height), false);
    ui.sync(&snap);
    for &action in actions {
        update(&mut ui, &snap, action);
        let view = ui.view(&snap);
        refresh(&ws.store, &mut snap, &view, false).unwrap();
    }
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| draw(f, &snap, &ui)).unwrap();
    let root = ws.paths.db.parent().unwrap().display().to_string();
    terminal.backend().to_string().replace(&root, "[TMP]")
}

fn populated() -> (tempfile::TempDir, Workspace) {
    let dir = tempdir();
    let ws = workspace(dir.path());
    populate(&ws);
    (dir, ws)
}

#[test]
fn queue_pane_shows_evidence_and_staged_skill_md() {
    let (_dir, ws) = populated();
    let small = screen(&ws, 80, 24, &[]);
    assert!(small.contains("summarize-pr") && small.contains("4 occurrences in 4 sessions"));
    insta::assert_snapshot!("queue_80x24", small);
    insta::assert_snapshot!("queue_120x40", screen(&ws, 120, 40, &[]));
    let streak = screen(&ws, 80, 24, &[Action::Down]);
    assert!(streak.contains("Task signature: triage issue <n>"), "{streak}");
    assert!(streak.contains("e.g. “triage issue 31”"), "{streak}");
}

#[test]
fn queue_pane_shows_a_proposed_version_as_a_diff() {
    let (_dir, ws) = populated();
    let s = screen(&ws, 120, 40, &[Action::Bottom]);
    assert!(s.contains("Proposed new version of lint-fix (live v2)"), "{s}");
    assert!(s.contains("+ 1. Run cargo fmt"), "{s}");
    insta::assert_snapshot!("queue_proposal_120x40", s);
}

#[test]
fn skills_pane_shows_every_state_as_a_word_with_rate_uses_and_trend() {
    let (_dir, ws) = populated();
    let s = screen(&ws, 80, 24, &[Action::GoSkills]);
    for word in ["healthy", "warning", "deprecated", "degraded", "pinned", "retired", "archived"] {
        assert!(s.contains(word), "{word} missing:\n{s}");
    }
    assert!(s.contains("35%") && s.contains("27%") && s.contains("90%"), "{s}");
    insta::assert_snapshot!("skills_80x24", s);
    insta::assert_snapshot!("skills_120x40", screen(&ws, 120, 40, &[Action::GoSkills]));
    let wide = screen(&ws, 160, 40, &[Action::GoSkills, Action::Down]);
    assert!(wide.contains("deploy-docs healthy · v1 · rate 90%"), "{wide}");
    insta::assert_snapshot!("skills_with_timeline_160x40", wide);
}

#[test]
fn timeline_pane_shows_days_rate_thresholds_and_events() {
    let (_dir, ws) = populated();
    // Skills sort by name: degraded-y, deploy-docs, flaky-sync, ...
    let keys = [Action::GoSkills, Action::Down, Action::Down, Action::GoTimeline];
    let s = screen(&ws, 80, 24, &keys);
    assert!(s.contains("flaky-sync deprecated"), "{s}");
    assert!(s.contains("warning→deprecated"), "{s}");
    insta::assert_snapshot!("timeline_80x24", s);
    insta::assert_snapshot!("timeline_120x40", screen(&ws, 120, 40, &keys));
}

#[test]
fn diff_pane_compares_any_two_versions() {
    let (_dir, ws) = populated();
    let lint = [Action::GoSkills, Action::Down, Action::Down, Action::Down, Action::GoDiff];
    let s = screen(&ws, 80, 24, &lint);
    // The cursor starts on the newest entry (the proposal) against the live v2.
    assert!(s.contains("v2 edit → proposed #3"), "{s}");
    insta::assert_snapshot!("diff_80x24", s);
    let mut older = lint.to_vec();
    older.extend([Action::Top, Action::MarkBase, Action::Down]);
    let s = screen(&ws, 120, 40, &older);
    assert!(s.contains("v1 promote → v2 edit"), "{s}");
    assert!(s.contains("+ 3. Re-run the tests"), "{s}");
    insta::assert_snapshot!("diff_v1_v2_120x40", s);
}

#[test]
fn help_lists_every_key_with_its_command_line_twin() {
    let (_dir, ws) = populated();
    let s = screen(&ws, 120, 40, &[Action::Help]);
    let keys =
        ["p ", "d ", "a ", "r ", "P ", "x ", "R ", "u ", "s / i ", "y / e ", "H / O ", "? / q "];
    for key in keys {
        assert!(s.contains(&format!("│{key}")), "key {key} missing:\n{s}");
    }
    assert!(s.contains("skilldeck …") && s.contains("promote ID"), "{s}");
    insta::assert_snapshot!("help_120x40", s);
    // On a small screen the table scrolls, and says so.
    let small = screen(&ws, 80, 24, &[Action::Help]);
    assert!(small.contains("keys (j/k scroll · Esc closes)"), "{small}");
    insta::assert_snapshot!("help_80x24", small);
    let scrolled = screen(&ws, 80, 24, &[Action::Help, Action::Bottom]);
    assert!(scrolled.contains("│? / q"), "{scrolled}");
}

#[test]
fn empty_workspace_says_what_it_watches_and_how_to_point_elsewhere() {
    let dir = tempdir();
    let ws = workspace(dir.path());
    let s = screen(&ws, 80, 24, &[]);
    assert!(s.contains("Watching transcripts: [TMP]/transcripts"), "{s}");
    assert!(s.contains("absent: defaults in use"), "{s}");
    assert!(s.contains("--skills-dir"), "{s}");
    insta::assert_snapshot!("empty_80x24", s);
}

#[test]
fn filter_narrows_the_skills_list_fuzzily() {
    let (_dir, ws) = populated();
    let keys = [
        Action::GoSkills,
        Action::StartFilter,
        Action::FilterChar('f'),
        Action::FilterChar('s'),
        Action::FilterChar('y'),
    ];
    let s = screen(&ws, 80, 24, &keys);
    assert!(s.contains("flaky-sync") && !s.contains("deploy-docs"), "{s}");
    assert!(s.contains("Skills (1 of 7 · /fsy"), "{s}");
}

#[test]
fn before_the_first_snapshot_the_console_says_it_is_reading() {
    let ui = UiState::new(Rect::new(0, 0, 80, 24), false);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| draw(f, &Snapshot::default(), &ui)).unwrap();
    let s = terminal.backend().to_string();
    assert!(s.contains("Reading the database…") && !s.contains("Watching"), "{s}");
}
