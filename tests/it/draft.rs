//! Staged drafts under review: promote, dismiss, and their undo, through the CLI and the library.

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use skilldeck::draft;

use crate::detect::{BASH, CLOSE, EDIT, FLOW, Feed, READ, SHOW};
use crate::support::{TestWorkspace, describe};

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A workspace with one open workflow candidate (`FLOW`); returns its id.
fn with_candidate(tw: &TestWorkspace) -> (Feed, i64) {
    let mut feed = Feed::new(tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    }
    assert_eq!(feed.detect().candidates_created, 1);
    let id = feed.count("SELECT id FROM skill_candidates WHERE evidence_only = 0");
    (feed, id)
}

#[test]
fn promote_moves_the_draft_live_and_records_version_one() {
    let tw = TestWorkspace::new();
    let (feed, id) = with_candidate(&tw);
    let staged = tw.root().join("staging").join(FLOW);
    let draft_text = std::fs::read_to_string(staged.join("SKILL.md")).unwrap();

    let out = tw.run_json(&["promote", &id.to_string()]);
    let live = tw.skills_dir().join(FLOW);
    assert_eq!(out["name"], FLOW);
    assert_eq!(PathBuf::from(out["path"].as_str().unwrap()), live);
    assert!(!staged.exists(), "the draft moved, it was not copied");
    // What goes live is the draft without its review notice and draft metadata.
    let live_text = std::fs::read_to_string(live.join("SKILL.md")).unwrap();
    assert!(draft_text.contains("Draft awaiting review"), "{draft_text}");
    assert!(!live_text.contains("Draft awaiting review"), "{live_text}");
    assert!(!live_text.contains("skilldeck-needs-review"), "{live_text}");
    assert_eq!(live_text, draft::live::live_text(&draft_text, FLOW));
    let draft_text = live_text;

    let skill_id = out["skill_id"].as_i64().unwrap();
    let conn = feed.ws.store.conn();
    let (auto, approved, cand, seq): (i64, String, i64, String) = conn
        .query_row(
            "SELECT is_auto_created, approved_sha256, candidate_id, tool_sequence FROM skills WHERE id = ?1",
            [skill_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((auto, cand), (1, id));
    assert_eq!(approved, sha256_hex(draft_text.as_bytes()));
    assert!(seq.contains("mcp__tracker__show"), "{seq}");
    let (version, content, source): (i64, String, String) = conn
        .query_row(
            "SELECT version, content, source FROM skill_versions WHERE skill_id = ?1",
            [skill_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((version, content.as_str(), source.as_str()), (1, draft_text.as_str(), "promote"));
    assert_eq!(feed.count("SELECT COUNT(*) FROM skill_events WHERE kind = 'promoted'"), 1);
    let all = tw.run_json(&["candidates", "--all"]);
    assert_eq!(all[0]["status"], "promoted");
    assert!(all[0]["promoted_at"].is_string());
    assert_eq!(tw.run_json(&["candidates"]), serde_json::json!([]), "promoted ones are not open");

    let again = tw.run(&["promote", &id.to_string()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is promoted"), "{}", describe(&again));
}

#[test]
fn promote_refuses_to_overwrite_a_live_skill() {
    let tw = TestWorkspace::new();
    let (feed, id) = with_candidate(&tw);
    let live = tw.skills_dir().join(FLOW);
    std::fs::create_dir_all(&live).unwrap();
    std::fs::write(live.join("SKILL.md"), "hand written").unwrap();

    let out = tw.run(&["promote", &id.to_string()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already exists") && err.contains(&live.display().to_string()), "{err}");
    assert_eq!(std::fs::read_to_string(live.join("SKILL.md")).unwrap(), "hand written");
    assert!(tw.root().join("staging").join(FLOW).join("SKILL.md").exists());
    assert_eq!(feed.count("SELECT COUNT(*) FROM skills"), 0);
    assert_eq!(tw.run_json(&["candidates"])[0]["status"], "candidate");

    // A draft edited into breaking the spec is refused, naming the file and line.
    std::fs::remove_dir_all(&live).unwrap();
    let md = tw.root().join("staging").join(FLOW).join("SKILL.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, text.replace(&format!("name: {FLOW}"), "name: Seq_Read")).unwrap();
    let out = tw.run(&["promote", &id.to_string()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&format!("{}:2: error: name", md.display())), "{err}");
    assert!(!live.exists());
    assert_eq!(feed.count("SELECT COUNT(*) FROM skills"), 0);

    let missing = tw.run(&["promote", "999"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no candidate with id 999"));
}

#[test]
fn dismissed_candidates_stay_dismissed_but_keep_counting() {
    let tw = TestWorkspace::new();
    let (mut feed, id) = with_candidate(&tw);
    let out = tw.run_ok(&["dismiss", &id.to_string()]);
    assert!(out.contains("dismissed candidate"), "{out}");
    let staged = tw.root().join("staging").join(FLOW);
    assert!(!staged.exists());
    assert_eq!(tw.run_json(&["candidates"]), serde_json::json!([]));

    feed.turn("default", "s4", "chore s4", true, &[SHOW, EDIT, CLOSE]);
    feed.detect();
    let all = tw.run_json(&["candidates", "--all"]);
    assert_eq!(all[0]["status"], "dismissed");
    assert_eq!(all[0]["occurrences"], 4);
    assert!(!staged.exists(), "the same evidence does not re-propose it");
    assert!(!tw.run(&["promote", &id.to_string()]).status.success());

    draft::undo_dismiss(&mut feed.ws, id).unwrap();
    assert!(staged.join("SKILL.md").exists());
    assert_eq!(tw.run_json(&["candidates"])[0]["status"], "candidate");
}

#[test]
fn undo_promote_returns_the_draft_to_review() {
    let tw = TestWorkspace::new();
    let (mut feed, id) = with_candidate(&tw);
    let promoted = draft::promote(&mut feed.ws, id).unwrap();
    assert!(promoted.path.join("SKILL.md").exists());
    // An edit made while live travels back with the draft.
    let md = promoted.path.join("SKILL.md");
    let edited = std::fs::read_to_string(&md).unwrap() + "\nEdited by hand.\n";
    std::fs::write(&md, &edited).unwrap();

    draft::undo_promote(&mut feed.ws, id).unwrap();
    let staged = tw.root().join("staging").join(FLOW);
    assert!(!promoted.path.exists());
    assert_eq!(std::fs::read_to_string(staged.join("SKILL.md")).unwrap(), edited);
    assert_eq!(feed.count("SELECT COUNT(*) FROM skills"), 0);
    assert_eq!(feed.count("SELECT COUNT(*) FROM skill_versions"), 0);
    let c = draft::get_candidate(feed.ws.store.conn(), id).unwrap();
    assert_eq!((c.status.as_str(), c.promoted_at), ("candidate", None));
    assert_eq!(c.skill_md.as_deref(), Some(edited.as_str()));

    // And it can be promoted again.
    assert!(draft::promote(&mut feed.ws, id).is_ok());
}

#[test]
fn drafts_pass_the_reference_validator() {
    let Some(agentskills) = crate::validate::reference_validator() else { return };
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    let mcp = ("mcp__notion__notion-search", r#"{"query":"Q3 roadmap"}"#);
    for s in ["s1", "s2", "s3"] {
        feed.turn(
            "default",
            s,
            "Summarise the Q3 --- roadmap: \"risks\"\n---\nthen file it",
            true,
            &[mcp, SHOW, READ, BASH, CLOSE],
        );
    }
    let report = feed.detect();
    // The workflow; the streak and the tool sequence of the same turns stay evidence.
    assert_eq!(report.candidates_created, 1, "{report:?}");
    for c in draft::list_candidates(&feed.ws.store, None).unwrap() {
        let folder = PathBuf::from(c.staged_path.unwrap());
        let out =
            std::process::Command::new(&agentskills).arg("validate").arg(&folder).output().unwrap();
        assert!(out.status.success(), "{}: {}", folder.display(), describe(&out));
        let ours = skilldeck::spec::validate_dir(&folder).unwrap();
        assert!(ours.is_empty(), "{ours:?}");
    }
}
