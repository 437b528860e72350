//! The longer fault campaign, not part of the quick suite: commands killed (SIGKILL) at random
//! moments, round after round in one workspace, each followed by a read-only command; after
//! every round the database and the folders must agree. Run it with
//! `cargo test --test it campaign -- --ignored` (`SKILLDECK_CAMPAIGN_ROUNDS`, default 60).

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use crate::support::{TestWorkspace, count};

const RELEASE: &str = "---\nname: release-flow\ndescription: Release the crate.\n---\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n";
const SHIP: &str = "---\nname: ship-it\ndescription: Ship a version.\n---\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\n";

/// Every skill row's folder is where the row says, with its SKILL.md; no intent is pending.
fn agree(tw: &TestWorkspace, round: usize, what: &str) {
    let db = Connection::open(tw.db()).unwrap();
    assert_eq!(count(&db, "SELECT COUNT(*) FROM intents"), 0, "round {round} ({what}): intent");
    let mut stmt = db.prepare("SELECT name, status, path FROM skills").unwrap();
    let rows: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (name, status, path) in rows {
        assert!(
            Path::new(&path).join("SKILL.md").is_file(),
            "round {round} ({what}): {name} is {status} at {path}, which has no SKILL.md"
        );
        let live = tw.skills_dir().join(&name).exists();
        let says_live = !matches!(status.as_str(), "archived" | "retired");
        assert_eq!(live, says_live, "round {round} ({what}): {name} is {status}, live: {live}");
    }
    let (promoted, absorbed): (i64, i64) = db
        .query_row(
            "SELECT (SELECT COUNT(*) FROM skill_candidates WHERE source = 'merge' AND status = 'promoted'),
                    (SELECT COUNT(*) FROM skills WHERE absorbed_into IS NOT NULL AND status = 'archived')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(promoted, absorbed, "round {round} ({what}): half a merge");
}

#[test]
#[ignore = "a long campaign: cargo test --test it campaign -- --ignored"]
fn commands_killed_at_random_moments_leave_rows_and_folders_agreeing() {
    let rounds: usize =
        std::env::var("SKILLDECK_CAMPAIGN_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let tw = TestWorkspace::new();
    for (name, text) in [("release-flow", RELEASE), ("ship-it", SHIP)] {
        let folder = tw.skills_dir().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), text).unwrap();
    }
    crate::lifecycle::add_skill(&tw, "default", "auto-x", true, None);
    tw.run_ok(&["pin", "ship-it"]);
    tw.run_ok(&["sweep"]);
    let list = tw.run_json(&["candidates"]);
    let merge =
        list.as_array().unwrap().iter().find(|c| c["source"] == "merge").unwrap()["id"].to_string();
    let ops: Vec<Vec<&str>> = vec![
        vec!["approve", &merge],
        vec!["undo-approve", &merge],
        vec!["record", "auto-x", "failure"],
        vec!["restore", "auto-x"],
        vec!["archive", "ship-it"],
        vec!["restore", "ship-it"],
        vec!["sweep", "--full"],
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..rounds {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let op = &ops[(seed % ops.len() as u64) as usize];
        let delay = Duration::from_micros(seed / 7 % 40_000);
        let mut child = tw
            .cmd()
            .args(op)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        tw.run_ok(&["candidates"]);
        agree(&tw, round, &format!("{op:?} killed after {delay:?}"));
    }
}
