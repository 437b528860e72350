//! Proposals that fix skills, through the binary: a trigger rewrite for a skill whose workflow
//! recurs without it, a restore for a parked skill whose workflow recurs; each listed, shown
//! with its diff, approved and undone through the review doors.

use serde_json::Value;

use crate::support::TestWorkspace;
use crate::uptake::{RELEASE_FLOW, session};

/// Writes sessions `ns` at `at` as transcripts under `dir` (`used`: which use the skill) and
/// ingests them.
fn ingest_sessions(ws: &TestWorkspace, dir: &str, ns: &[usize], used: &[usize], at: &str) {
    let dir = ws.root().join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for &n in ns {
        let text: String =
            session(n, at, used.contains(&n)).iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(format!("s{n}.jsonl")), text).unwrap();
    }
    ws.run_json(&["ingest", "--no-detect", dir.to_str().unwrap()]);
}

fn live_release_flow(ws: &TestWorkspace) {
    let folder = ws.skills_dir().join("release-flow");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), RELEASE_FLOW).unwrap();
    ws.run_json(&["audit"]);
}

fn stamp(offset: chrono::Duration) -> String {
    (chrono::Utc::now() + offset).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn candidate(ws: &TestWorkspace, source: &str) -> Value {
    let all = ws.run_json(&["candidates"]);
    let list = all.as_array().cloned().unwrap_or_default();
    list.into_iter()
        .find(|c| c["source"] == source)
        .unwrap_or_else(|| panic!("no {source} candidate in {all:#}"))
}

#[test]
fn missed_triggers_propose_a_description_quoting_them_and_uptake_shows_before_and_after() {
    let ws = TestWorkspace::new();
    live_release_flow(&ws);
    ingest_sessions(&ws, "t1", &[1, 2, 3, 4], &[4], &stamp(chrono::Duration::zero()));

    let sweep = ws.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_fixes"]["trigger_rewrites"], 1, "{sweep:#}");
    let c = candidate(&ws, "trigger");
    assert_eq!(c["target_skill_name"], "release-flow");
    assert_eq!(c["status"], "candidate");
    let id = c["id"].as_i64().unwrap().to_string();
    let md = c["skill_md"].as_str().unwrap();
    let desc =
        "description: \"Release the crate. Use when cutting a release. Use it for requests like: “";
    assert!(md.contains(desc), "{md}");
    for n in 1..=3 {
        assert!(md.contains(&format!("“cut release 1.{n} of the crate”")), "{md}");
    }
    assert!(!md.contains("1.4 of"), "a request that used the skill is not quoted: {md}");
    assert!(md.contains("1. Run `cargo test`."), "the body stays: {md}");
    // A second sweep proposes nothing new for the same version.
    let again = ws.run_json(&["sweep", "--full"]);
    assert_eq!(again["proposed_fixes"]["trigger_rewrites"], 0, "{again:#}");

    let diff = ws.run_ok(&["diff", "--candidate", &id]);
    assert!(
        diff.contains("-description: Release the crate. Use when cutting a release."),
        "{diff}"
    );
    assert!(diff.contains("+description: \"Release the crate."), "{diff}");

    // Approved a moment after the first sessions, so they count as before.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    ws.run_ok(&["approve", &id]);
    let live = std::fs::read_to_string(ws.skills_dir().join("release-flow/SKILL.md")).unwrap();
    assert!(live.contains("Use it for requests like: “cut release 1."), "{live}");
    ingest_sessions(&ws, "t2", &[5, 6], &[5, 6], &stamp(chrono::Duration::days(1)));
    let u = ws.run_json(&["stats", "release-flow", "--uptake"]);
    let r = &u["trigger_rewrite"];
    assert_eq!(r["candidate_id"].to_string(), id, "{u:#}");
    assert_eq!(
        (r["uses_before"].as_u64(), r["missed_before"].as_u64()),
        (Some(1), Some(3)),
        "{u:#}"
    );
    assert_eq!((r["uses_after"].as_u64(), r["missed_after"].as_u64()), (Some(2), Some(0)), "{u:#}");
    let text = ws.run_ok(&["stats", "release-flow", "--uptake"]);
    assert!(text.contains("before 1 uses vs 3 missed; after 2 uses vs 0 missed"), "{text}");

    ws.run_ok(&["undo-approve", &id]);
    let back = std::fs::read_to_string(ws.skills_dir().join("release-flow/SKILL.md")).unwrap();
    assert_eq!(back, RELEASE_FLOW);
    assert_eq!(candidate(&ws, "trigger")["status"], "candidate");
}

#[test]
fn a_parked_skill_whose_workflow_recurs_is_proposed_for_restore_with_the_sessions() {
    let ws = TestWorkspace::new();
    live_release_flow(&ws);
    ws.run_ok(&["archive", "release-flow"]);
    // Two sessions are not enough; a third makes it recur.
    ingest_sessions(&ws, "t1", &[1, 2], &[], &stamp(chrono::Duration::days(1)));
    let sweep = ws.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_fixes"]["restores"], 0, "{sweep:#}");
    ingest_sessions(&ws, "t2", &[3], &[], &stamp(chrono::Duration::days(1)));
    let sweep = ws.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_fixes"]["restores"], 1, "{sweep:#}");

    let c = candidate(&ws, "restore");
    assert_eq!(c["target_skill_name"], "release-flow");
    assert_eq!(c["session_keys"].as_array().unwrap().len(), 3, "{c:#}");
    assert!(c["examples"].to_string().contains("cut release 1.3 of the crate"), "{c:#}");
    let id = c["id"].as_i64().unwrap().to_string();
    let diff = ws.run_ok(&["diff", "--candidate", &id]);
    assert!(
        diff.contains("restores release-flow (archived): its text comes back as it was"),
        "{diff}"
    );
    assert!(diff.contains("its workflow recurs in 3 sessions"), "{diff}");

    ws.run_ok(&["approve", &id]);
    let s = ws.run_json(&["stats", "release-flow"]);
    assert_eq!(s["status"], "healthy", "{s:#}");
    assert_eq!(
        std::fs::read_to_string(ws.skills_dir().join("release-flow/SKILL.md")).unwrap(),
        RELEASE_FLOW
    );
    ws.run_ok(&["undo-approve", &id]);
    let s = ws.run_json(&["stats", "release-flow"]);
    assert_eq!(s["status"], "archived", "{s:#}");
    assert!(!ws.skills_dir().join("release-flow").exists());
    assert_eq!(candidate(&ws, "restore")["status"], "candidate");
}
