//! Every console key that changes something has a command-line twin that exists, is documented,
//! and does the same thing; `undo-promote` and `undo-dismiss` are driven through the binary.

use clap::Parser;
use rusqlite::Connection;
use skilldeck::cli::Cli;
use skilldeck::tui::Action;
use skilldeck::tui::keys::KeyMap;

use super::console_fixture::{populate, workspace, write_config};
use super::support::{TestWorkspace, describe};

/// Whether an action changes skills, candidates or the store. A `match` without a catch-all:
/// a new action does not compile here until someone decides, and every one that changes
/// something must then have a command-line twin.
fn changes_something(action: Action) -> bool {
    match action {
        Action::Promote
        | Action::Dismiss
        | Action::Approve
        | Action::Reject
        | Action::ToggleProtected
        | Action::Archive
        | Action::Restore
        | Action::Undo
        | Action::Sweep
        | Action::Ingest
        | Action::Edit
        | Action::Reopen
        | Action::Rollback => true,
        Action::Up
        | Action::Down
        | Action::Top
        | Action::Bottom
        | Action::PageUp
        | Action::PageDown
        | Action::ScrollLeft
        | Action::ScrollRight
        | Action::NextHunk
        | Action::PrevHunk
        | Action::NextPane
        | Action::PrevPane
        | Action::GoQueue
        | Action::GoSkills
        | Action::GoTimeline
        | Action::GoDiff
        | Action::GoLessons
        | Action::GoTeam
        | Action::GoProcedures
        | Action::Enter
        | Action::Back
        | Action::StartFilter
        | Action::FilterChar(_)
        | Action::FilterBackspace
        | Action::CycleStateFilter
        | Action::CycleSort
        | Action::MarkBase
        | Action::CopyPath
        | Action::History
        | Action::Confirm
        | Action::Cancel
        | Action::Help
        | Action::Quit => false,
    }
}

/// The changes some key triggers (the confirmations `y` answers are changes too, but the key
/// that asked is the one with the twin).
fn changes() -> Vec<Action> {
    KeyMap::default().actions().into_iter().filter(|a| changes_something(*a)).collect()
}

#[test]
fn every_change_key_has_a_twin_the_cli_accepts() {
    for action in changes() {
        let commands = action.cli_twin_commands(3, "lint-fix");
        assert!(!commands.is_empty(), "{action:?} has no command-line twin");
        for args in commands {
            let argv = std::iter::once("skilldeck".to_string()).chain(args.iter().cloned());
            if let Err(e) = Cli::try_parse_from(argv) {
                panic!("twin of {action:?} `skilldeck {}` is not a command:\n{e}", args.join(" "));
            }
        }
    }
}

#[test]
fn the_console_guide_quotes_every_twin_and_every_bound_action() {
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/console.md")).unwrap();
    for action in changes() {
        let twin = action.cli_twin().unwrap();
        let (verbs, args) = twin.split_once(' ').unwrap_or((twin, ""));
        for verb in verbs.split('|') {
            let quoted =
                format!("`skilldeck {verb}{}{args}`", if args.is_empty() { "" } else { " " });
            assert!(guide.contains(&quoted), "docs/console.md lacks {quoted}");
        }
    }
    // The [keys] section names every action a key can be bound to.
    for action in KeyMap::default().actions() {
        let name = serde_json::to_value(action).unwrap();
        let name = name.as_str().unwrap();
        assert!(guide.contains(&format!("`{name}`")), "docs/console.md lacks the action `{name}`");
    }
}

/// A populated workspace the binary opens (same layout as the console tests).
fn populated() -> TestWorkspace {
    let tw = TestWorkspace::new();
    populate(&workspace(tw.root()));
    write_config(tw.root());
    tw
}

fn candidate_status(tw: &TestWorkspace, id: i64) -> String {
    let db = Connection::open(tw.db()).unwrap();
    db.query_row("SELECT status FROM skill_candidates WHERE id = ?1", [id], |r| r.get(0)).unwrap()
}

#[test]
fn undo_promote_takes_the_skill_back_to_staging() {
    let tw = populated();
    tw.run_ok(&["promote", "1"]);
    assert!(tw.skills_dir().join("summarize-pr/SKILL.md").is_file());
    let out = tw.run_ok(&["undo-promote", "1"]);
    assert!(out.contains("candidate 1 (summarize-pr) is open again"), "{out}");
    assert_eq!(candidate_status(&tw, 1), "candidate");
    assert!(!tw.skills_dir().join("summarize-pr").exists());
    assert!(tw.root().join("staging/summarize-pr/SKILL.md").is_file());
    let db = Connection::open(tw.db()).unwrap();
    let rows: i64 = db
        .query_row("SELECT COUNT(*) FROM skills WHERE name = 'summarize-pr'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
    // It can be promoted again, as in the console after `u`.
    tw.run_ok(&["promote", "1"]);
    assert_eq!(candidate_status(&tw, 1), "promoted");
}

#[test]
fn undo_dismiss_reopens_the_candidate_with_its_draft() {
    let tw = populated();
    tw.run_ok(&["dismiss", "1"]);
    assert!(tw.root().join("staging/.dismissed/summarize-pr/SKILL.md").is_file());
    let out = tw.run_ok(&["undo-dismiss", "1"]);
    assert!(out.contains("candidate 1 (summarize-pr) is open again"), "{out}");
    assert_eq!(candidate_status(&tw, 1), "candidate");
    assert!(tw.root().join("staging/summarize-pr/SKILL.md").is_file());
    assert!(!tw.root().join("staging/.dismissed/summarize-pr").exists());
}

#[test]
fn undo_of_something_that_did_not_happen_fails_and_changes_nothing() {
    let tw = populated();
    let out = tw.run(&["undo-dismiss", "1"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("candidate 1 (summarize-pr) is candidate, not dismissed"), "{err}");
    let out = tw.run(&["undo-promote", "2"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not promoted"), "{}", describe(&out));
    assert_eq!(candidate_status(&tw, 1), "candidate");
    assert_eq!(candidate_status(&tw, 2), "candidate");
    assert!(tw.root().join("staging/summarize-pr/SKILL.md").is_file());
}
