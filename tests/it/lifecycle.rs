//! Lifecycle: outcomes, stats and the health sweep, driven through the binary.

use serde_json::Value;
use skilldeck::catalog::{InvocationSource, VersionSource};
use skilldeck::config::Config;
use skilldeck::lifecycle;
use skilldeck::model::Outcome::{self, Failure, Success};
use skilldeck::workspace::Workspace;

use crate::support::TestWorkspace;
use crate::support::fixture::Fixture;

/// The library view of the same workspace the binary uses (`--db` puts side folders beside it).
pub fn open(tw: &TestWorkspace) -> Workspace {
    let config = Config::load(&tw.config()).unwrap();
    crate::support::library_workspace(config, tw.root())
}

pub fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
}

/// Registers a live skill through the library door the draft promotion also uses.
pub fn add_skill(
    tw: &TestWorkspace,
    agent: &str,
    name: &str,
    auto: bool,
    seq: Option<&str>,
) -> i64 {
    let mut ws = open(tw);
    let text = skill_md(name, &format!("Does {name} things"), "1. step one\n2. step two");
    lifecycle::register_skill(&mut ws, agent, name, &text, VersionSource::Promote, auto, seq)
        .unwrap()
}

pub fn record(tw: &TestWorkspace, name: &str, outcomes: &str) {
    for c in outcomes.chars() {
        let outcome = if c == 'S' { "success" } else { "failure" };
        tw.run_ok(&["record", name, outcome]);
    }
}

fn sweep(tw: &TestWorkspace) -> Value {
    tw.run_json(&["sweep"])
}

/// `from→to reason` of each `status` event of `name`, oldest first.
pub fn status_events(tw: &TestWorkspace, name: &str) -> Vec<String> {
    let t = tw.run_json(&["stats", name, "--timeline"]);
    t["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "status")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            format!("{}→{} {}", s("from_status"), s("to_status"), s("reason"))
        })
        .collect()
}

fn status(tw: &TestWorkspace, name: &str) -> String {
    tw.run_json(&["stats", name])["status"].as_str().unwrap().to_string()
}

#[test]
fn five_successes_and_fifteen_failures_rate_25_percent_and_deprecated() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "fmt-check", false, None);
    record(&tw, "fmt-check", &format!("{}{}", "S".repeat(5), "F".repeat(15)));
    let stats = tw.run_json(&["stats", "fmt-check"]);
    assert_eq!(stats["success_count"], 5);
    assert_eq!(stats["failure_count"], 15);
    assert_eq!(stats["success_rate"], 0.25);
    assert_eq!(stats["rolling_rate"], 0.25);
    assert_eq!(stats["last_outcome"], "failure");
    // Each record is judged at once, one event per change: degraded at the third failure in a
    // row, deprecated at 29% (5/17); no record in between wrote an event.
    assert_eq!(stats["status"], "deprecated", "the state never lags the numbers");
    assert_eq!(
        status_events(&tw, "fmt-check"),
        [
            "healthy→degraded 3 consecutive failures",
            "degraded→deprecated rolling rate 29% (5/17) ≤ 30%"
        ]
    );

    let report = sweep(&tw);
    assert_eq!(report["mode"], "full", "the first sweep reads the whole table");
    assert_eq!(report["changes"].as_array().unwrap().len(), 0, "nothing left to change: {report}");
    assert_eq!(status_events(&tw, "fmt-check").len(), 2);
    assert_eq!(status(&tw, "fmt-check"), "deprecated");
    // The counters on the row were brought in step with the record.
    let ws = open(&tw);
    let (s, f): (i64, i64) = ws
        .store
        .conn()
        .query_row(
            "SELECT success_count, failure_count FROM skills WHERE name = 'fmt-check'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((s, f), (5, 15));
    // A second sweep changes nothing and writes no event; nor does a forced full one.
    let again = sweep(&tw);
    assert_eq!(
        (again["mode"].as_str(), again["changes"].as_array().unwrap().len()),
        (Some("incremental"), 0)
    );
    let full = tw.run_json(&["sweep", "--full"]);
    assert_eq!(
        (full["mode"].as_str(), full["changes"].as_array().unwrap().len()),
        (Some("full"), 0)
    );
    let audit = tw.run_json(&["audit"]);
    assert_eq!(audit[0]["name"], "fmt-check");
    assert_eq!(audit[0]["status"], "deprecated");
    assert_eq!(audit[0]["window_uses"], 20);
    for key in ["id", "agent_id", "protected", "rate", "version", "path", "success_count"] {
        assert!(audit[0].get(key).is_some(), "audit lacks {key}: {audit}");
    }
}

#[test]
fn rolling_window_forgets_old_failures_and_thresholds_are_inclusive() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "w", false, None);
    // 6 failures then 20 successes: the window of 20 holds only successes.
    record(&tw, "w", &format!("{}{}", "F".repeat(6), "S".repeat(20)));
    sweep(&tw);
    assert_eq!(status(&tw, "w"), "healthy");
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "edge", false, None);
    // 2 of 5 = 40%: warning is "at or below".
    record(&tw, "edge", "SFSFF");
    // streak 2 stays below degraded (3)
    sweep(&tw);
    assert_eq!(status(&tw, "edge"), "warning");
    record(&tw, "edge", "SSSSS");
    sweep(&tw);
    assert_eq!(status(&tw, "edge"), "healthy");
    let timeline = tw.run_json(&["stats", "edge", "--timeline"]);
    let kinds: Vec<_> = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "status")
        .map(|e| e["to_status"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["warning", "healthy"]);
    assert_eq!(timeline["rate_points"].as_array().unwrap().len(), 10);
    let text = tw.run_ok(&["stats", "edge", "--timeline"]);
    assert!(
        text.contains("status       healthy -> warning: rolling rate 40% (2/5) ≤ 40%"),
        "{text}"
    );
}

#[test]
fn too_few_invocations_are_not_judged_by_rate() {
    let tw = TestWorkspace::new();
    std::fs::write(tw.config(), "[lifecycle]\nmin_invocations = 6\n").unwrap();
    add_skill(&tw, "default", "young", false, None);
    record(&tw, "young", "SFSFF");
    sweep(&tw);
    assert_eq!(status(&tw, "young"), "healthy");
    record(&tw, "young", "S");
    sweep(&tw);
    // 3 of 6 = 50%: still fine; one more failure makes 3 of 7 = 43%, then 3 of 8 = 37.5%
    record(&tw, "young", "F");
    sweep(&tw);
    assert_eq!(status(&tw, "young"), "healthy");
    record(&tw, "young", "F");
    sweep(&tw);
    assert_eq!(status(&tw, "young"), "warning");
}

#[test]
fn protected_skill_survives_a_sweep_that_would_deprecate_it() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "keeper", true, None);
    tw.run_ok(&["pin", "keeper"]);
    record(&tw, "keeper", &format!("{}{}", "S".repeat(5), "F".repeat(15)));
    sweep(&tw);
    sweep(&tw);
    let stats = tw.run_json(&["stats", "keeper"]);
    assert_eq!(stats["protected"], true);
    assert_eq!(stats["status"], "warning", "protected: at worst a warning");
    assert_eq!(stats["rolling_rate"], 0.25, "a protected skill still shows its rate");
    assert!(tw.skills_dir().join("keeper/SKILL.md").exists());
    // Unpinning lets the next sweep judge it (deprecated beats the failure streak).
    tw.run_ok(&["unpin", "keeper"]);
    sweep(&tw);
    assert_eq!(status(&tw, "keeper"), "deprecated");
    // Pinning a deprecated skill re-judges it at once under the pinned rules: at 25% it is at
    // worst a warning, with no sweep in between.
    tw.run_ok(&["pin", "keeper"]);
    assert_eq!(status(&tw, "keeper"), "warning");
}

#[test]
fn ghost_streak_degrades_then_retires_an_auto_skill_that_keeps_failing() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-x", true, None);
    record(&tw, "auto-x", "FF");
    assert_eq!(status(&tw, "auto-x"), "healthy", "streak 2 < 3");
    // The third failure in a row is judged as it is recorded: degraded first.
    assert!(tw.run_ok(&["record", "auto-x", "failure"]).contains("auto-x: healthy → degraded"));
    assert_eq!(status(&tw, "auto-x"), "degraded", "streak 3: degraded first");
    sweep(&tw);
    assert_eq!(status(&tw, "auto-x"), "degraded", "no new failure: not retired yet");
    // Something in the way in the retired folder: the record goes on, the skill stays.
    let blocker = tw.root().join("retired/default/auto-x");
    std::fs::create_dir_all(&blocker).unwrap();
    record(&tw, "auto-x", "F");
    assert_eq!(sweep(&tw)["changes"].as_array().unwrap().len(), 0);
    assert_eq!(status(&tw, "auto-x"), "degraded");
    let t = tw.run_json(&["stats", "auto-x", "--timeline"]);
    let blocked = t["events"].as_array().unwrap().iter().find(|e| e["kind"] == "retire_blocked");
    assert!(blocked.unwrap()["reason"].as_str().unwrap().contains("already exists"), "{t}");
    std::fs::remove_dir(&blocker).unwrap();
    let report = tw.run_json(&["sweep", "--full"]);
    assert_eq!(report["changes"][0]["to"], "retired");
    assert!(!tw.skills_dir().join("auto-x").exists(), "agents no longer load it");
    let retired = tw.root().join("retired/default/auto-x/SKILL.md");
    assert!(retired.exists());
    assert_eq!(
        tw.run_json(&["audit"])[0]["path"],
        tw.root().join("retired/default/auto-x").to_str().unwrap()
    );

    // restore brings it back with its history; Ghost's streak counts afresh.
    tw.run_ok(&["restore", "auto-x"]);
    assert!(tw.skills_dir().join("auto-x/SKILL.md").exists());
    let stats = tw.run_json(&["stats", "auto-x"]);
    assert_eq!(
        (stats["status"].as_str(), stats["failure_count"].as_i64()),
        (Some("healthy"), Some(4))
    );
    sweep(&tw);
    assert_eq!(status(&tw, "auto-x"), "healthy");
    let timeline = lifecycle::timeline(&open(&tw).store, 1).unwrap();
    let path: Vec<_> =
        timeline.events.iter().filter_map(|e| e.to_status.map(|s| s.as_str())).collect();
    assert_eq!(path, ["healthy", "degraded", "retired", "healthy"]);
    assert!(timeline.events.iter().any(|e| e.reason == "restored from retired"));
}

#[test]
fn ghost_young_rule_at_its_edges() {
    // 5 failures in 9 uses (no streak of 3): degraded; a 10th use ends the young rule.
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-y", true, None);
    // No rate rule trips on the way (every prefix of five or more uses is above 40%).
    record(&tw, "auto-y", "SSFSFFSF");
    assert_eq!(status(&tw, "auto-y"), "healthy", "4 failures in 8 uses");
    let said = tw.run_ok(&["record", "auto-y", "failure"]);
    assert!(said.contains("healthy → degraded (5 failures in 9 uses"), "{said}");
    record(&tw, "auto-y", "S");
    assert_eq!(status(&tw, "auto-y"), "healthy", "5 of 10 = 50%, 10 uses");
    assert_eq!(sweep(&tw)["changes"].as_array().unwrap().len(), 0, "judged already");

    // 5 failures in 8 uses, then a failure at use 9 (< 10): retired.
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-z", true, None);
    record(&tw, "auto-z", "SFSFFSFF");
    assert_eq!(status(&tw, "auto-z"), "degraded");
    record(&tw, "auto-z", "F");
    assert_eq!(status(&tw, "auto-z"), "retired");

    // 4 failures in 9 uses is below the rule.
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "auto-w", true, None);
    record(&tw, "auto-w", "FFSFSSFSS");
    sweep(&tw);
    assert_eq!(status(&tw, "auto-w"), "healthy");
}

#[test]
fn hand_written_skills_degrade_but_are_never_retired() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "mine", false, None);
    record(&tw, "mine", "SSSSSSSSSSFFF");
    sweep(&tw);
    assert_eq!(status(&tw, "mine"), "degraded");
    record(&tw, "mine", "FF");
    sweep(&tw);
    sweep(&tw);
    assert_eq!(status(&tw, "mine"), "degraded");
    assert!(tw.skills_dir().join("mine/SKILL.md").exists());
    record(&tw, "mine", "S");
    sweep(&tw);
    assert_eq!(status(&tw, "mine"), "healthy", "a success ends the streak; 11 of 16");
}

#[test]
fn archive_and_restore_by_hand() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "old", false, None);
    record(&tw, "old", "SS");
    tw.run_ok(&["archive", "old"]);
    assert!(!tw.skills_dir().join("old").exists());
    assert!(tw.root().join("archive/default/old/SKILL.md").exists());
    assert_eq!(status(&tw, "old"), "archived");
    sweep(&tw);
    assert_eq!(status(&tw, "old"), "archived", "the sweep leaves parked skills alone");
    let out = tw.run(&["archive", "old"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already archived"));
    // An edit made while parked is kept as a version when the skill comes back.
    let parked = tw.root().join("archive/default/old/SKILL.md");
    std::fs::write(&parked, skill_md("old", "Edited while archived", "new body")).unwrap();
    tw.run_ok(&["restore", "old"]);
    assert_eq!(tw.run_json(&["stats", "old"])["success_count"], 2);
    let versions = tw.run_json(&["versions", "old"]);
    assert_eq!(versions[1]["source"], "edit", "{versions}");
    assert!(tw.skills_dir().join("old/SKILL.md").exists());
    let out = tw.run(&["restore", "old"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not archived, retired or missing"));
}

#[test]
fn record_rejects_bad_input_and_imports_unseen_live_skills() {
    let tw = TestWorkspace::new();
    let out = tw.run(&["record", "ghost", "success"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no skill named \"ghost\""));
    add_skill(&tw, "default", "x", false, None);
    let out = tw.run(&["record", "x", "maybe"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected `success` or `failure`"));
    // A hand-made folder in the live dir is adopted on first record, like every unknown folder.
    let dir = tw.skills_dir().join("handmade");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), skill_md("handmade", "By hand", "body")).unwrap();
    tw.run_ok(&["record", "handmade", "success", "--note", "worked"]);
    let v = tw.run_json(&["versions", "handmade"]);
    assert_eq!(v[0]["source"], "adopt");
    assert_eq!(tw.run_json(&["stats", "handmade"])["success_count"], 1);
}

#[test]
fn transcript_invocations_count_after_a_sweep_links_them() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "pdf", false, None);
    let ws = open(&tw);
    // What ingestion writes: skill name, no skill id.
    let fx = Fixture::new(ws.store.conn());
    for (i, outcome) in [Success, Failure, Failure].into_iter().enumerate() {
        transcript_use(&fx, outcome, i);
    }
    let report = sweep(&tw);
    assert_eq!(report["invocations_linked"], 3);
    assert_eq!(report["counters_synced"], 1);
    let stats = tw.run_json(&["stats", "pdf"]);
    assert_eq!(
        (stats["success_count"].as_i64(), stats["failure_count"].as_i64()),
        (Some(1), Some(2))
    );
    assert_eq!(stats["last_used_at"], "2026-01-03T00:00:00Z");
    // Rows arriving after a sweep are picked up by the next, incremental, one.
    for i in 3..6 {
        transcript_use(&fx, Failure, i);
    }
    let report = sweep(&tw);
    assert_eq!(report["mode"], "incremental");
    assert_eq!(report["invocations_linked"], 3);
    assert_eq!(report["changes"][0]["to"], "deprecated", "1 of 6 = 17%");
    let counted: (i64, i64) = ws
        .store
        .conn()
        .query_row("SELECT success_count, failure_count FROM skills WHERE name = 'pdf'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(counted, (1, 5));
}

/// What ingestion writes for the i-th use of `pdf`: skill name, no skill id.
fn transcript_use(fx: &Fixture, outcome: Outcome, i: usize) {
    let (call, at) = (format!("toolu_{i}"), format!("2026-01-0{}T00:00:00Z", i + 1));
    fx.use_of("pdf", None, outcome, InvocationSource::Transcript, Some(&call), &at);
}

#[test]
fn a_record_that_changes_the_state_is_judged_at_once_with_one_event() {
    let tw = TestWorkspace::new();
    add_skill(&tw, "default", "lint", false, None);
    record(&tw, "lint", "SSSSS");
    let audit_status = || tw.run_json(&["audit"])[0]["status"].as_str().unwrap().to_string();
    let mut failures = 0;
    let said = loop {
        let said = tw.run_ok(&["record", "lint", "failure"]);
        failures += 1;
        assert!(failures <= 5, "five failures never changed the state");
        if audit_status() != "healthy" {
            break said;
        }
        assert!(!said.contains('→'), "a record that changes nothing says nothing more: {said}");
    };
    assert_eq!(failures, 3, "the third failure in a row degrades");
    assert!(said.contains("lint: healthy → degraded (3 consecutive failures)"), "{said}");
    assert_eq!(audit_status(), "degraded");
    assert_eq!(status_events(&tw, "lint"), ["healthy→degraded 3 consecutive failures"]);
    // The sweep finds it judged: no second event, by the incremental or the full sweep.
    assert_eq!(sweep(&tw)["changes"].as_array().unwrap().len(), 0);
    assert_eq!(tw.run_json(&["sweep", "--full"])["changes"].as_array().unwrap().len(), 0);
    assert_eq!(status_events(&tw, "lint").len(), 1);
    // A success is judged at once too: the streak is over, 6 of 8 is healthy.
    assert!(tw.run_ok(&["record", "lint", "success"]).contains("lint: degraded → healthy"));
    assert_eq!(audit_status(), "healthy");
    assert_eq!(status_events(&tw, "lint").len(), 2);
}
