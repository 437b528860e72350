//! Lifecycle: versions, external edits, evolution of proposed versions, rollback, git.

use skilldeck::lifecycle;

use crate::lifecycle::{add_skill, open, skill_md};
use crate::support::TestWorkspace;
use crate::support::fixture::Fixture;

const SEQ: &str = r#"["Read","Grep","Edit","Bash","Write"]"#;

fn add_candidate(tw: &TestWorkspace, agent: &str, hash: &str, seq: &str, text: &str) -> i64 {
    let ws = open(tw);
    Fixture::new(ws.store.conn())
        .candidate(&format!("cand-{hash}"))
        .agent(agent)
        .hash(hash)
        .steps(seq)
        .skill_md(text)
        .build()
}

fn skill_count(tw: &TestWorkspace) -> i64 {
    open(tw).store.conn().query_row("SELECT COUNT(*) FROM skills", [], |r| r.get(0)).unwrap()
}

#[test]
fn candidate_with_80_percent_overlap_becomes_the_next_version_not_a_new_skill() {
    let tw = TestWorkspace::new();
    let id = add_skill(&tw, "default", "deploy", true, Some(SEQ));
    let proposed = skill_md("cand-h1", "Deploy, now with globbing", "1. read\n2. glob first");
    let cid =
        add_candidate(&tw, "default", "h1", r#"["Read","Grep","Edit","Bash","Glob"]"#, &proposed);
    let far = add_candidate(&tw, "default", "h2", r#"["Read","Grep","Glob","Glob","Glob"]"#, "x");
    // The sweep links open candidates to the skills they evolve.
    assert_eq!(tw.run_json(&["sweep"])["proposed_versions"], 1);
    let ws = open(&tw);
    let target = |c: i64| -> Option<i64> {
        ws.store
            .conn()
            .query_row("SELECT target_skill_id FROM skill_candidates WHERE id = ?1", [c], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!(target(cid), Some(id));
    assert_eq!(target(far), None, "40% overlap stays a candidate");

    tw.run_ok(&["approve", &cid.to_string()]);
    assert_eq!(skill_count(&tw), 1, "no new skill");
    let stats = tw.run_json(&["stats", "deploy"]);
    assert_eq!(stats["version"], 2);
    let live = std::fs::read_to_string(tw.skills_dir().join("deploy/SKILL.md")).unwrap();
    assert!(live.starts_with("---\nname: deploy\n"), "named as the skill: {live}");
    assert!(live.contains("glob first"));
    let versions = tw.run_json(&["versions", "deploy"]);
    assert_eq!(versions.as_array().unwrap().len(), 2);
    assert_eq!(versions[1]["source"], "approve");
    let diff = tw.run_ok(&["diff", "deploy"]);
    assert!(diff.contains("-2. step two") && diff.contains("+2. glob first"), "{diff}");
    let status: String = open(&tw)
        .store
        .conn()
        .query_row("SELECT status FROM skill_candidates WHERE id = ?1", [cid], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "promoted");
    // The approval is bound to the new bytes: no review flag, no spurious edit version.
    tw.run_json(&["sweep"]);
    let stats = tw.run_json(&["stats", "deploy"]);
    assert_eq!(
        (stats["version"].as_i64(), stats["needs_review"].as_bool()),
        (Some(2), Some(false))
    );
    let again = tw.run(&["approve", &cid.to_string()]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("already promoted"));
    tw.run_ok(&["reject", &far.to_string()]);
    let out = tw.run(&["approve", &far.to_string()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already dismissed"));
}

#[test]
fn candidates_of_agent_a_are_invisible_to_agent_b() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "bob", "deploy-b", true, Some(SEQ));
    let cid = add_candidate(&tw, "alice", "h1", SEQ, "x");
    let mut ws = open(&tw);
    assert_eq!(
        skilldeck::draft::link_evolutions(&mut ws).unwrap(),
        0,
        "same sequence, other agent"
    );
    let out = tw.run(&["approve", &cid.to_string()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a proposed version"));
    assert_eq!(tw.run_json(&["audit", "--agent", "alice"]).as_array().unwrap().len(), 0);
    assert_eq!(tw.run_json(&["audit", "--agent", "bob"])[0]["name"], "deploy-b");
    let out = tw.run(&["stats", "deploy-b", "--agent", "alice"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no skill named \"deploy-b\" for agent \"alice\"; agent \"bob\" has one"),
        "{err}"
    );
    tw.run_ok(&["stats", "deploy-b", "--agent", "bob"]);
    // Named without --agent, a name only one agent has is that agent's skill.
    assert_eq!(tw.run_json(&["stats", "deploy-b"])["agent_id"], "bob");
}

#[test]
fn an_external_edit_becomes_a_version_with_a_diff_and_sends_an_auto_skill_back_to_review() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-fmt", true, Some(SEQ));
    let file = tw.skills_dir().join("auto-fmt/SKILL.md");
    let edited = std::fs::read_to_string(&file).unwrap().replace("step two", "step two, carefully");
    std::fs::write(&file, edited).unwrap();
    let report = tw.run_json(&["sweep"]);
    assert_eq!(report["edits_recorded"], 1);
    let versions = tw.run_json(&["versions", "auto-fmt"]);
    assert_eq!(versions[1]["source"], "edit");
    let diff = tw.run_ok(&["diff", "auto-fmt", "1", "2"]);
    assert!(diff.contains("-2. step two\n") && diff.contains("+2. step two, carefully"), "{diff}");
    let stats = tw.run_json(&["stats", "auto-fmt"]);
    assert_eq!(stats["needs_review"], true);
    // No change since: nothing more recorded.
    assert_eq!(tw.run_json(&["sweep"])["edits_recorded"], 0);
    tw.run_ok(&["approve", "--skill", "auto-fmt"]);
    assert_eq!(tw.run_json(&["stats", "auto-fmt"])["needs_review"], false);

    // With the switch off, an edit is still kept but does not reopen review.
    std::fs::write(tw.config(), "[lifecycle]\nreview_on_edit = false\n").unwrap();
    std::fs::write(&file, "---\nname: auto-fmt\ndescription: d\n---\nnew\n").unwrap();
    tw.run_json(&["sweep"]);
    let stats = tw.run_json(&["stats", "auto-fmt"]);
    assert_eq!(
        (stats["version"].as_i64(), stats["needs_review"].as_bool()),
        (Some(3), Some(false))
    );
}

#[test]
fn rollback_restores_an_old_text_as_a_new_version_and_keeps_every_version() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "notes", false, None);
    let file = tw.skills_dir().join("notes/SKILL.md");
    let v1 = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, "---\nname: notes\ndescription: v2\n---\nsecond\n").unwrap();
    // An edit not yet scanned is saved before the rollback overwrites the file.
    tw.run_ok(&["rollback", "notes", "1"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), v1);
    let versions = tw.run_json(&["versions", "notes"]);
    let sources: Vec<_> =
        versions.as_array().unwrap().iter().map(|v| v["source"].clone()).collect();
    assert_eq!(sources, ["promote", "edit", "rollback"]);
    assert_eq!(versions[0]["sha256"], versions[2]["sha256"]);
    let ws = open(&tw);
    let all = lifecycle::versions(&ws.store, 1).unwrap();
    assert_eq!(all[1].content, "---\nname: notes\ndescription: v2\n---\nsecond\n");
    let out = tw.run(&["rollback", "notes", "9"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no version 9"));
    assert_eq!(lifecycle::diff_text("a\n", "a\n"), "");
}

#[test]
fn approvals_and_rollbacks_are_committed_when_the_skills_folder_is_a_git_repository() {
    if std::process::Command::new("git").arg("--version").output().is_err() {
        crate::support::skip("git is not installed");
        return;
    }
    let tw = TestWorkspace::new();
    std::fs::create_dir_all(tw.skills_dir()).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(tw.skills_dir())
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q"]);
    add_skill(&tw, "default", "deploy", true, Some(SEQ));
    let cid = add_candidate(&tw, "default", "h1", SEQ, &skill_md("x", "d", "evolved"));
    skilldeck::draft::link_evolutions(&mut open(&tw)).unwrap();
    tw.run_ok(&["approve", &cid.to_string()]);
    tw.run_ok(&["rollback", "deploy", "1"]);
    let log = git(&["log", "--format=%an|%s"]);
    let lines: Vec<_> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].contains("deploy v3 (rollback)"), "{log}");
    assert!(lines[1].contains("deploy v2 (approve)"), "{log}");
    assert!(git(&["status", "--porcelain"]).is_empty());
}

#[test]
fn an_unreadable_skill_file_is_noted_and_does_not_stop_the_sweep() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "bad-bytes", false, None);
    add_skill(&tw, "default", "fine", false, None);
    std::fs::write(tw.skills_dir().join("bad-bytes/SKILL.md"), b"---\nname: x\n\xff\xfe\n")
        .unwrap();
    super::lifecycle::record(&tw, "fine", "FFFF");
    let report = tw.run_json(&["sweep"]);
    assert_eq!(report["skills_judged"], 2, "the sweep went on: {report}");
    let t = tw.run_json(&["stats", "bad-bytes", "--timeline"]);
    let err = t["events"].as_array().unwrap().iter().find(|e| e["kind"] == "scan_error").unwrap();
    assert!(
        err["reason"].as_str().unwrap().contains("bad-bytes/SKILL.md: SKILL.md is not UTF-8"),
        "{err}"
    );
    assert_eq!(tw.run_json(&["versions", "bad-bytes"]).as_array().unwrap().len(), 1);
    tw.run_json(&["sweep"]);
    let t = tw.run_json(&["stats", "bad-bytes", "--timeline"]);
    let errors =
        t["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "scan_error").count();
    assert_eq!(errors, 1, "not repeated while the file is unchanged");
}
