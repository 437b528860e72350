//! The usage-based lifecycle beside the outcome-based one, through the binary: stale after
//! `lifecycle.stale_days` unused, auto-created skills archived after `lifecycle.archive_days`,
//! a use makes a skill active again, pinned skills never move, hand-written ones are only flagged.

use serde_json::Value;
use skilldeck::store::rusqlite::Connection;

use crate::lifecycle::{add_skill, record};
use crate::support::TestWorkspace;

/// Makes a skill look as if it went live `days` ago (the only way to age a fixture).
fn went_live_days_ago(tw: &TestWorkspace, id: i64, days: i64) {
    let at = (chrono::Utc::now() - chrono::Duration::days(days))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let db = Connection::open(tw.db()).unwrap();
    skilldeck::catalog::skills::set_live_since(&db, id, &at).unwrap();
}

fn audit_row(tw: &TestWorkspace, name: &str) -> Value {
    let audit = tw.run_json(&["audit"]);
    audit.as_array().unwrap().iter().find(|s| s["name"] == name).cloned().unwrap()
}

fn events(tw: &TestWorkspace, name: &str) -> Vec<(String, String)> {
    let t = tw.run_json(&["stats", name, "--timeline"]);
    t["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["kind"].as_str().unwrap().to_string(), e["reason"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn unused_skills_go_stale_auto_ones_are_archived_pinned_ones_never_move() {
    let tw = TestWorkspace::new();
    let auto_old = add_skill(&tw, "default", "auto-old", true, None);
    let hand_old = add_skill(&tw, "default", "hand-old", false, None);
    let pinned_old = add_skill(&tw, "default", "pinned-old", true, None);
    let auto_mid = add_skill(&tw, "default", "auto-mid", true, None);
    let fresh = add_skill(&tw, "default", "fresh", true, None);
    for id in [auto_old, hand_old, pinned_old] {
        went_live_days_ago(&tw, id, 100);
    }
    went_live_days_ago(&tw, auto_mid, 40);
    went_live_days_ago(&tw, fresh, 3);
    tw.run_ok(&["pin", "pinned-old"]);

    let report = tw.run_json(&["sweep"]);
    let usage = &report["usage"];
    assert_eq!(usage["archived"], serde_json::json!([["default", "auto-old", 100]]), "{report:#}");
    assert_eq!(
        usage["stale"],
        serde_json::json!([["default", "hand-old", 100], ["default", "auto-mid", 40]])
    );

    // Archived: out of the agent's reach, with its reason, and restorable.
    assert!(!tw.skills_dir().join("auto-old").exists());
    assert_eq!(audit_row(&tw, "auto-old")["status"], "archived");
    let (_, reason) = events(&tw, "auto-old").pop().unwrap();
    assert!(reason.contains("unused for 100 days"), "{reason}");
    // Hand-written: flagged, never moved.
    assert!(tw.skills_dir().join("hand-old/SKILL.md").exists());
    let hand = audit_row(&tw, "hand-old");
    assert_eq!(hand["status"], "healthy");
    assert!(hand["stale_since"].is_string(), "{hand:#}");
    assert!(events(&tw, "hand-old").iter().any(|(k, r)| k == "stale" && r.contains("never moved")));
    // Pinned and fresh: untouched.
    for name in ["pinned-old", "fresh"] {
        let row = audit_row(&tw, name);
        assert!(row["stale_since"].is_null() && row["status"] == "healthy", "{row:#}");
    }

    // A use makes a stale skill active again.
    record(&tw, "auto-mid", "S");
    let report = tw.run_json(&["sweep"]);
    assert_eq!(report["usage"]["active_again"], serde_json::json!([["default", "auto-mid"]]));
    assert!(audit_row(&tw, "auto-mid")["stale_since"].is_null());
    assert!(events(&tw, "auto-mid").iter().any(|(k, r)| k == "active" && r.contains("used again")));

    // Restored from the archive: live again, and not archived again by the next sweep.
    tw.run_ok(&["restore", "auto-old"]);
    tw.run_json(&["sweep"]);
    assert_eq!(audit_row(&tw, "auto-old")["status"], "healthy");
    assert!(tw.skills_dir().join("auto-old/SKILL.md").exists());
}
