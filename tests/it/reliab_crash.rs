//! Crash windows: a kill -9 after each write step, kept as a
//! test method. `SKILLDECK_FAULT=<step>` makes the binary abort right after that step (no
//! unwinding, no cleanup: what a kill leaves); each test injects the crash at every step of one
//! operation, runs the next command, and checks that the database and the folders agree, that
//! nothing hidden or partial is left where agents load skills, and that a re-run does the
//! operation exactly once. `cross-device,<step>` takes the copy path of a move between
//! filesystems. The steps are listed in `fsio` (fault injection) and docs/durability.md.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use crate::detect::{CLOSE, EDIT, FLOW, Feed, READ, SHOW};
use crate::lifecycle::{add_skill, skill_md};
use crate::support::fixture::Fixture;
use crate::support::{TestWorkspace, count, describe};

/// Steps of a folder move, on one filesystem and across two.
const MOVE_STEPS: &[&str] = &[
    "intent",
    "move",
    "commit",
    "cross-device,intent",
    "cross-device,copy",
    "cross-device,move",
    "cross-device,discard",
];

/// Runs `args` with a crash injected after `step`; true when the process died there (SIGABRT),
/// false when it never reached that step and succeeded.
fn crash(tw: &TestWorkspace, step: &str, args: &[&str]) -> bool {
    let out = tw.cmd().env("SKILLDECK_FAULT", step).args(args).output().expect("run skilldeck");
    if out.status.signal() == Some(libc::SIGABRT) {
        return true;
    }
    assert!(out.status.success(), "{args:?} with fault {step}:\n{}", describe(&out));
    false
}

fn db(tw: &TestWorkspace) -> Connection {
    Connection::open(tw.db()).unwrap()
}

/// After the next command: no intent pending, nothing hidden in the live skills folder, and no
/// scratch folder anywhere in the workspace holding anything.
fn settled(tw: &TestWorkspace, step: &str) {
    assert_eq!(count(&db(tw), "SELECT COUNT(*) FROM intents"), 0, "{step}: intent left");
    let hidden: Vec<String> = std::fs::read_dir(tw.skills_dir())
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(hidden.iter().all(|n| !n.starts_with('.')), "{step}: hidden in skills: {hidden:?}");
    for skill in &hidden {
        let inside: Vec<String> = std::fs::read_dir(tw.skills_dir().join(skill))
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let temp = inside.iter().find(|n| n.starts_with('.'));
        assert!(temp.is_none(), "{step}: {temp:?} left in skill {skill}");
    }
    let mut left = Vec::new();
    scratch_entries(tw.root(), &mut left);
    assert!(left.is_empty(), "{step}: scratch left: {left:?}");
}

fn scratch_entries(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if e.file_name() == ".skilldeck-work" {
            out.extend(std::fs::read_dir(&path).unwrap().flatten().map(|e| e.path()));
        } else {
            scratch_entries(&path, out);
        }
    }
}

fn text(conn: &Connection, sql: &str, id: i64) -> Option<String> {
    conn.query_row(sql, [id], |r| r.get(0)).ok()
}

/// A workspace with one open workflow candidate (`FLOW`) and its staged draft; returns its id.
fn with_candidate(tw: &TestWorkspace) -> i64 {
    let mut feed = Feed::new(tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    }
    assert_eq!(feed.detect().candidates_created, 1);
    feed.count("SELECT id FROM skill_candidates WHERE evidence_only = 0")
}

#[test]
fn promote_killed_at_any_step_is_undone_and_a_rerun_promotes_once() {
    for step in MOVE_STEPS {
        let tw = TestWorkspace::new();
        let id = with_candidate(&tw);
        let ids = id.to_string();
        let (staged, live) = (tw.root().join("staging").join(FLOW), tw.skills_dir().join(FLOW));
        assert!(crash(&tw, step, &["promote", &ids]), "{step}: the fault was not reached");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let conn = db(&tw);
        let status = text(&conn, "SELECT status FROM skill_candidates WHERE id = ?1", id);
        if status.as_deref() == Some("candidate") {
            // Undone: the draft is back in staging, and the folder was not adopted as hand-made.
            assert!(staged.join("SKILL.md").is_file() && !live.exists(), "{step}");
            assert_eq!(count(&conn, "SELECT COUNT(*) FROM skills"), 0, "{step}: adopted");
            tw.run_ok(&["promote", &ids]);
        } else {
            assert_eq!(*step, "commit", "only a committed promotion stays");
        }
        tw.run_ok(&["sweep"]);
        let conn = db(&tw);
        let (auto, cand): (i64, i64) = conn
            .query_row("SELECT is_auto_created, candidate_id FROM skills", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((auto, cand), (1, id), "{step}: auto flag and candidate link kept");
        let sources = count(&conn, "SELECT COUNT(*) FROM skill_versions WHERE source = 'promote'");
        assert_eq!((sources, count(&conn, "SELECT COUNT(*) FROM skill_versions")), (1, 1));
        assert!(live.join("SKILL.md").is_file() && !staged.exists(), "{step}");
        settled(&tw, step);

        // Taking it back is the same move the other way.
        assert!(crash(&tw, step, &["undo-promote", &ids]), "{step}: undo-promote");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let conn = db(&tw);
        let status = text(&conn, "SELECT status FROM skill_candidates WHERE id = ?1", id);
        if status.as_deref() == Some("promoted") {
            assert!(live.join("SKILL.md").is_file() && !staged.exists(), "{step}");
            assert_eq!(count(&conn, "SELECT COUNT(*) FROM skills WHERE is_auto_created = 1"), 1);
            tw.run_ok(&["undo-promote", &ids]);
        } else {
            assert_eq!(*step, "commit");
        }
        let conn = db(&tw);
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM skills"), 0, "{step}: adopted back");
        assert!(staged.join("SKILL.md").is_file() && !live.exists(), "{step}");
    }
}

/// A candidate proposing version 2 of the auto-created skill `deploy`.
fn with_proposal(tw: &TestWorkspace) -> i64 {
    add_skill(tw, "default", "deploy", true, Some(r#"["Read","Grep","Edit","Bash","Write"]"#));
    let proposed = skill_md("cand-h1", "Deploy, now with globbing", "1. read\n2. glob first");
    let conn = db(tw);
    let id = Fixture::new(&conn)
        .candidate("cand-h1")
        .hash("h1")
        .steps(r#"["Read","Grep","Edit","Bash","Glob"]"#)
        .skill_md(&proposed)
        .build();
    assert_eq!(tw.run_json(&["sweep"])["proposed_versions"], 1);
    id
}

/// The sources of `deploy`'s versions, oldest first; asserts the live file holds the newest
/// version's text and the skill is not flagged for review.
fn deploy_history(tw: &TestWorkspace, step: &str) -> Vec<String> {
    tw.run_ok(&["sweep"]);
    let versions = tw.run_json(&["versions", "deploy"]);
    let versions = versions.as_array().unwrap();
    let live = std::fs::read_to_string(tw.skills_dir().join("deploy/SKILL.md")).unwrap();
    let sha = crate::draft::sha256_hex(live.as_bytes());
    assert_eq!(versions.last().unwrap()["sha256"].as_str(), Some(sha.as_str()), "{step}");
    let stats = tw.run_json(&["stats", "deploy"]);
    assert_eq!(stats["needs_review"], Value::Bool(false), "{step}: review flag set");
    versions.iter().map(|v| v["source"].as_str().unwrap().to_string()).collect()
}

#[test]
fn approve_undo_and_rollback_killed_at_any_step_record_no_edit_and_one_version() {
    for step in ["intent", "temp", "write", "commit"] {
        let tw = TestWorkspace::new();
        let cid = with_proposal(&tw);
        let cids = cid.to_string();
        assert!(crash(&tw, step, &["approve", &cids]), "{step}: the fault was not reached");
        let history = deploy_history(&tw, step);
        if step == "commit" {
            assert_eq!(history, ["promote", "approve"], "{step}");
        } else {
            assert_eq!(history, ["promote"], "{step}: undone, no spurious edit");
            tw.run_ok(&["approve", &cids]);
        }
        assert_eq!(deploy_history(&tw, step), ["promote", "approve"], "{step}");
        settled(&tw, step);

        assert!(crash(&tw, step, &["undo-approve", &cids]), "{step}: undo-approve");
        let history = deploy_history(&tw, step);
        if step != "commit" {
            assert_eq!(history, ["promote", "approve"], "{step}: undo-approve undone");
            tw.run_ok(&["undo-approve", &cids]);
        }
        let undone = ["promote", "approve", "rollback"];
        assert_eq!(deploy_history(&tw, step), undone, "{step}");
        settled(&tw, step);

        assert!(crash(&tw, step, &["rollback", "deploy", "2"]), "{step}: rollback");
        let history = deploy_history(&tw, step);
        if step != "commit" {
            assert_eq!(history, undone, "{step}: rollback undone");
            tw.run_ok(&["rollback", "deploy", "2"]);
        }
        let rolled = ["promote", "approve", "rollback", "rollback"];
        assert_eq!(deploy_history(&tw, step), rolled, "{step}");
        settled(&tw, step);
    }
}

fn package() -> PathBuf {
    crate::packages::fixture("consistency-checker.json")
}

/// The package's skill: (versions, live SKILL.md equals the newest version).
fn imported(tw: &TestWorkspace) -> Option<(i64, bool)> {
    let conn = db(tw);
    let id: i64 = conn
        .query_row("SELECT id FROM skills WHERE name = 'consistency-checker'", [], |r| r.get(0))
        .ok()?;
    let newest = text(
        &conn,
        "SELECT content FROM skill_versions WHERE skill_id = ?1 ORDER BY version DESC LIMIT 1",
        id,
    );
    let live = std::fs::read_to_string(tw.skills_dir().join("consistency-checker/SKILL.md")).ok();
    let versions =
        count(&conn, &format!("SELECT COUNT(*) FROM skill_versions WHERE skill_id = {id}"));
    Some((versions, live.is_some() && live == newest))
}

#[test]
fn import_killed_at_any_step_leaves_no_hidden_folder_and_a_rerun_imports_once() {
    let pkg = package();
    let pkg = pkg.to_str().unwrap();
    for step in ["stage", "intent", "install", "commit"] {
        let tw = TestWorkspace::new();
        assert!(crash(&tw, step, &["import", pkg]), "{step}: the fault was not reached");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        match imported(&tw) {
            Some(found) => assert_eq!((step, found), ("commit", (1, true))),
            None => {
                let folder = tw.skills_dir().join("consistency-checker");
                assert!(!folder.exists(), "{step}: a folder without its rows");
                tw.run_ok(&["import", pkg]);
            }
        }
        assert_eq!(imported(&tw), Some((1, true)), "{step}");
    }
    // Replacing: the old folder waits aside (in scratch, not in the skills folder) until the
    // commit, and comes back when the process dies first.
    let clean = TestWorkspace::new();
    clean.run_ok(&["import", pkg]);
    clean.run_ok(&["import", pkg, "--replace"]);
    let expected = imported(&clean).unwrap();
    for step in ["intent", "aside", "install", "commit"] {
        let tw = TestWorkspace::new();
        tw.run_ok(&["import", pkg]);
        assert!(crash(&tw, step, &["import", pkg, "--replace"]), "{step}");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let found = imported(&tw).unwrap();
        if step != "commit" {
            assert_eq!(found, (1, true), "{step}: the old folder is back with its rows");
            tw.run_ok(&["import", pkg, "--replace"]);
        }
        assert_eq!(imported(&tw).unwrap(), expected, "{step}");
    }
}

/// Where the row of `tidy` says its folder is, and its status; asserts the folder is there
/// whole (SKILL.md and the link kept as a link) and nowhere else.
fn tidy_place(tw: &TestWorkspace, step: &str) -> String {
    let conn = db(tw);
    let (status, path): (String, String) = conn
        .query_row("SELECT status, path FROM skills WHERE name = 'tidy'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    let path = PathBuf::from(path);
    assert!(path.join("SKILL.md").is_file(), "{step}: the row points at {}", path.display());
    let link = std::fs::read_link(path.join("notes.md"));
    assert_eq!(link.ok(), Some(PathBuf::from("SKILL.md")), "{step}: a link stays a link");
    let places = [tw.skills_dir().join("tidy"), tw.root().join("archive/default/tidy")];
    for other in places.iter().filter(|p| **p != path) {
        assert!(!other.exists(), "{step}: {} is left too", other.display());
    }
    status
}

#[test]
fn archive_and_restore_killed_at_any_step_agree_with_the_row_and_rerun() {
    for step in MOVE_STEPS {
        let tw = TestWorkspace::new();
        let file = tw.live_skill("tidy");
        std::os::unix::fs::symlink("SKILL.md", file.with_file_name("notes.md")).unwrap();
        assert!(crash(&tw, step, &["archive", "tidy"]), "{step}: the fault was not reached");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        if tidy_place(&tw, step) == "archived" {
            assert_eq!(*step, "commit");
        } else {
            tw.run_ok(&["archive", "tidy"]);
        }
        assert_eq!(tidy_place(&tw, step), "archived");

        assert!(crash(&tw, step, &["restore", "tidy"]), "{step}: restore");
        tw.run_ok(&["audit"]);
        settled(&tw, step);
        if tidy_place(&tw, step) == "archived" {
            tw.run_ok(&["restore", "tidy"]);
        } else {
            assert_eq!(*step, "commit");
        }
        assert_eq!(tidy_place(&tw, step), "healthy");
        let conn = db(&tw);
        let versions = "SELECT COUNT(*) FROM skill_versions";
        assert_eq!(count(&conn, versions), 1, "{step}: no version from a move");
        settled(&tw, step);
    }
}

#[test]
fn dismiss_killed_at_any_step_agrees_with_the_row_and_reruns() {
    for step in ["intent", "move", "commit"] {
        let tw = TestWorkspace::new();
        let id = with_candidate(&tw);
        let ids = id.to_string();
        assert!(crash(&tw, step, &["dismiss", &ids]), "{step}: the fault was not reached");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let staged = tw.root().join("staging").join(FLOW);
        let parked = tw.root().join("staging/.dismissed").join(FLOW);
        let conn = db(&tw);
        let status = text(&conn, "SELECT status FROM skill_candidates WHERE id = ?1", id);
        if status.as_deref() == Some("candidate") {
            assert!(staged.join("SKILL.md").is_file() && !parked.exists(), "{step}");
            tw.run_ok(&["dismiss", &ids]);
        } else {
            assert_eq!(step, "commit");
        }
        let conn = db(&tw);
        let path = text(&conn, "SELECT staged_path FROM skill_candidates WHERE id = ?1", id);
        assert_eq!(path.map(PathBuf::from), Some(parked.clone()), "{step}");
        assert!(parked.join("SKILL.md").is_file() && !staged.exists(), "{step}");

        assert!(crash(&tw, step, &["undo-dismiss", &ids]), "{step}: undo-dismiss");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let conn = db(&tw);
        let status = text(&conn, "SELECT status FROM skill_candidates WHERE id = ?1", id);
        if status.as_deref() == Some("dismissed") {
            assert!(parked.join("SKILL.md").is_file() && !staged.exists(), "{step}");
            tw.run_ok(&["undo-dismiss", &ids]);
        } else {
            assert_eq!(step, "commit");
        }
        let conn = db(&tw);
        let path = text(&conn, "SELECT staged_path FROM skill_candidates WHERE id = ?1", id);
        assert_eq!(path.map(PathBuf::from), Some(staged.clone()), "{step}");
        assert!(staged.join("SKILL.md").is_file() && !parked.exists(), "{step}");
    }
}

#[test]
fn detection_killed_before_writing_drafts_has_them_written_by_the_next_command() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    feed.turn("default", "s1", "refactor the code", true, &[SHOW, EDIT, CLOSE]);
    feed.turn("default", "s1", "code refactor please", true, &[SHOW, EDIT, CLOSE]);
    feed.turn("default", "s2", "please refactor the code", true, &[SHOW, READ, CLOSE]);
    drop(feed);
    let feed_dir = tw.root().join("feed");
    assert!(crash(&tw, "drafts", &["ingest", feed_dir.to_str().unwrap()]), "fault not reached");
    let folder = tw.root().join("staging/auto-code-refactor");
    assert!(!folder.join("manifest.json").exists(), "the kill came before the drafts");
    let conn = db(&tw);
    assert!(count(&conn, "SELECT COUNT(*) FROM skill_candidates WHERE status = 'candidate'") > 0);
    // A read-only command sees the pending intent and recovers first.
    tw.run_ok(&["candidates"]);
    settled(&tw, "drafts");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["signature"], "code-refactor");
    assert!(folder.join("SKILL.md").is_file());
    let conn = db(&tw);
    let staged: Vec<String> = conn
        .prepare("SELECT staged_path FROM skill_candidates WHERE status = 'candidate' AND staged_path IS NOT NULL AND evidence_only = 0")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for path in staged {
        assert!(Path::new(&path).join("SKILL.md").is_file(), "{path}: draft not written");
    }
}

#[test]
fn acquire_killed_at_any_step_leaves_no_hidden_folder_and_a_rerun_registers_once() {
    const ADD: &str = "import json, sys\np = json.loads(sys.argv[1])\nprint(p['a'] + p['b'])\n";
    for step in ["stage", "intent", "install", "commit"] {
        let tw = TestWorkspace::new();
        let code = tw.root().join("add.code");
        std::fs::write(&code, ADD).unwrap();
        let args = [
            "acquire",
            "--name",
            "add-numbers",
            "--code",
            code.to_str().unwrap(),
            "--test-payload",
            r#"{"a": 2, "b": 3}"#,
        ];
        assert!(crash(&tw, step, &args), "{step}: the fault was not reached");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        let folder = tw.skills_dir().join("add-numbers");
        let conn = db(&tw);
        if count(&conn, "SELECT COUNT(*) FROM skills") == 0 {
            assert!(!folder.exists(), "{step}: a folder without its rows");
            tw.run_ok(&args);
        } else {
            assert_eq!(step, "commit");
        }
        let conn = db(&tw);
        let rows = "SELECT COUNT(*) FROM skills s JOIN acquired_code a ON a.skill_id = s.id
                    WHERE s.is_auto_created = 1";
        assert_eq!(count(&conn, rows), 1, "{step}");
        assert_eq!(count(&conn, "SELECT COUNT(*) FROM skill_versions"), 1, "{step}");
        assert!(folder.join("scripts/add-numbers.py").is_file(), "{step}");
        settled(&tw, step);
    }
}

/// Where each of `names` is (`live` or `archived`), asserting its row and its folder agree and
/// the folder is whole in one place only.
fn places(tw: &TestWorkspace, step: &str, names: &[&str]) -> Vec<String> {
    let conn = db(tw);
    names
        .iter()
        .map(|name| {
            let (status, path): (String, String) = conn
                .query_row("SELECT status, path FROM skills WHERE name = ?1", [name], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            let path = PathBuf::from(path);
            assert!(path.join("SKILL.md").is_file(), "{step}: {name} row at {}", path.display());
            let live = tw.skills_dir().join(name);
            let parked = tw.root().join("archive/default").join(name);
            let other = if path == live { parked } else { live };
            assert!(!other.exists(), "{step}: {} is left too", other.display());
            if status == "archived" { "archived" } else { "live" }.to_string()
        })
        .collect()
}

#[test]
fn the_staleness_archive_killed_at_any_step_moves_the_whole_batch_or_none() {
    let names = ["old-a", "old-b", "old-c"];
    for step in MOVE_STEPS {
        let tw = TestWorkspace::new();
        let aged = (chrono::Utc::now() - chrono::Duration::days(100))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        for name in names {
            let id = add_skill(&tw, "default", name, true, None);
            skilldeck::catalog::skills::set_live_since(&db(&tw), id, &aged).unwrap();
        }
        assert!(crash(&tw, step, &["sweep"]), "{step}: the fault was not reached");
        tw.run_ok(&["audit"]);
        settled(&tw, step);
        let after = places(&tw, step, &names);
        let expect = if *step == "commit" { "archived" } else { "live" };
        assert!(after.iter().all(|p| p == expect), "{step}: {after:?}");
        tw.run_ok(&["sweep"]);
        settled(&tw, step);
        assert!(places(&tw, step, &names).iter().all(|p| p == "archived"), "{step}");
        let events =
            "SELECT COUNT(*) FROM skill_events WHERE kind = 'status' AND to_status = 'archived'";
        assert_eq!(count(&db(&tw), events), 3, "{step}: each archived once");
    }
}
