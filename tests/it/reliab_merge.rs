//! A merge's approval and its undo are all or nothing under a kill at any step: the survivor's
//! new text and the absorbed skill's archive (with its `absorbed_into` mark) land together, or
//! neither does. A kill between the two is completed by the next command, read-only ones
//! included. `SKILLDECK_FAULT` as in `reliab_crash`.

use std::os::unix::process::ExitStatusExt;

use rusqlite::Connection;

use crate::support::{TestWorkspace, count, describe};

const RELEASE: &str = "---\nname: release-flow\ndescription: Release the crate.\n---\n# Release\n\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n";
const SHIP: &str = "---\nname: ship-it\ndescription: Ship a version.\n---\n# Ship\n\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\n";

/// Steps of approving or undoing a merge: its intent, the SKILL.md write, the folder move.
const STEPS: &[&str] = &["intent", "temp", "write", "commit", "move"];

/// Two overlapping skills and the merge the sweep proposes (`ship-it` pinned survives).
fn with_merge(tw: &TestWorkspace) -> String {
    for (name, text) in [("release-flow", RELEASE), ("ship-it", SHIP)] {
        let folder = tw.skills_dir().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), text).unwrap();
    }
    tw.run_ok(&["pin", "ship-it"]);
    tw.run_ok(&["sweep"]);
    let list = tw.run_json(&["candidates"]);
    let m = list.as_array().unwrap().iter().find(|c| c["source"] == "merge").expect("a merge");
    m["id"].to_string()
}

fn crash(tw: &TestWorkspace, step: &str, args: &[&str]) -> bool {
    let out = tw.cmd().env("SKILLDECK_FAULT", step).args(args).output().unwrap();
    if out.status.signal() == Some(libc::SIGABRT) {
        return true;
    }
    assert!(out.status.success(), "{args:?} with fault {step}:\n{}", describe(&out));
    false
}

/// (candidate status, survivor's SKILL.md has the merged text, absorbed status, absorbed_into
/// set, absorbed folder live).
fn state(tw: &TestWorkspace, id: &str) -> (String, bool, String, bool, bool) {
    let db = Connection::open(tw.db()).unwrap();
    assert_eq!(count(&db, "SELECT COUNT(*) FROM intents"), 0, "an intent was left");
    let status: String = db
        .query_row("SELECT status FROM skill_candidates WHERE id = ?1", [id], |r| r.get(0))
        .unwrap();
    let (absorbed, mark): (String, Option<i64>) = db
        .query_row(
            "SELECT status, absorbed_into FROM skills WHERE name = 'release-flow'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let survivor = std::fs::read_to_string(tw.skills_dir().join("ship-it/SKILL.md")).unwrap();
    let live = tw.skills_dir().join("release-flow/SKILL.md").exists();
    (status, survivor.contains("release-flow"), absorbed, mark.is_some(), live)
}

fn approved(s: &(String, bool, String, bool, bool)) -> bool {
    *s == ("promoted".into(), true, "archived".into(), true, false)
}

fn open(s: &(String, bool, String, bool, bool)) -> bool {
    s.0 == "candidate" && !s.1 && s.2 != "archived" && !s.3 && s.4
}

#[test]
fn a_merge_approval_killed_at_any_step_lands_whole_or_not_at_all() {
    for step in STEPS {
        let tw = TestWorkspace::new();
        let id = with_merge(&tw);
        let died = crash(&tw, step, &["approve", &id]);
        tw.run_ok(&["candidates"]);
        let s = state(&tw, &id);
        assert!(approved(&s) || open(&s), "{step} (died: {died}): half a merge: {s:?}");
        if open(&s) {
            tw.run_ok(&["approve", &id]);
            let s = state(&tw, &id);
            assert!(approved(&s), "{step}: the re-run approves: {s:?}");
        }
    }
}

#[test]
fn a_merge_undo_killed_at_any_step_lands_whole_or_not_at_all() {
    for step in STEPS {
        let tw = TestWorkspace::new();
        let id = with_merge(&tw);
        tw.run_ok(&["approve", &id]);
        assert!(approved(&state(&tw, &id)));
        let died = crash(&tw, step, &["undo-approve", &id]);
        tw.run_ok(&["candidates"]);
        let s = state(&tw, &id);
        assert!(approved(&s) || open(&s), "{step} (died: {died}): half an undo: {s:?}");
        if approved(&s) {
            tw.run_ok(&["undo-approve", &id]);
            let s = state(&tw, &id);
            assert!(open(&s), "{step}: the re-run undoes: {s:?}");
        }
    }
}

/// A `record` whose failure retires an auto-created skill, killed after its commit or after the
/// folder's move: the failure is kept, and the folder ends where the row says (the retired
/// folder), so `restore` brings it back.
#[test]
fn a_record_that_retires_a_skill_killed_at_any_step_keeps_the_failure_and_the_folder() {
    for step in ["commit", "move", "intent"] {
        let tw = TestWorkspace::new();
        crate::lifecycle::add_skill(&tw, "default", "auto-x", true, None);
        for _ in 0..3 {
            tw.run_ok(&["record", "auto-x", "failure"]);
        }
        tw.run_ok(&["sweep"]);
        let died = crash(&tw, step, &["record", "auto-x", "failure"]);
        tw.run_ok(&["candidates"]);
        let db = Connection::open(tw.db()).unwrap();
        assert_eq!(count(&db, "SELECT COUNT(*) FROM intents"), 0, "{step}: an intent was left");
        let failures =
            count(&db, "SELECT COUNT(*) FROM skill_invocations WHERE outcome = 'failure'");
        let (status, path): (String, String) = db
            .query_row("SELECT status, path FROM skills WHERE name = 'auto-x'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert!(std::path::Path::new(&path).join("SKILL.md").exists(), "{step}: {path} is empty");
        if died {
            assert_eq!(failures, 4, "{step}: the failure that retired it is kept");
            assert_eq!(status, "retired", "{step}");
            assert!(!tw.skills_dir().join("auto-x").exists(), "{step}: still live");
            tw.run_ok(&["restore", "auto-x"]);
            assert!(tw.skills_dir().join("auto-x/SKILL.md").exists(), "{step}: restored");
        }
    }
}

/// Approving a proposal made before a hand edit of its skill: refused once, with the proposal
/// shown against the edited text and the edit kept; approving again replaces what was shown.
#[test]
fn approving_a_stale_proposal_shows_the_edit_it_would_replace_first() {
    let tw = TestWorkspace::new();
    let id = with_merge(&tw);
    let live = tw.skills_dir().join("ship-it/SKILL.md");
    let edited = std::fs::read_to_string(&live).unwrap() + "5. Announce it in #releases.\n";
    std::fs::write(&live, &edited).unwrap();
    tw.run_ok(&["sweep"]);
    let out = tw.run(&["approve", &id]);
    assert!(!out.status.success(), "a stale proposal was approved:\n{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ship-it changed since candidate"), "{err}");
    assert!(err.contains("-5. Announce it in #releases."), "the diff shows the edit: {err}");
    assert_eq!(std::fs::read_to_string(&live).unwrap(), edited, "the edit is kept");
    tw.run_ok(&["approve", &id]);
    assert!(approved(&state(&tw, &id)));
}
