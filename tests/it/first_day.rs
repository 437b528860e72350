//! What the CLI says is true on the first day and the hundredth (issue 30), through the binary
//! over the demo workspace: proposals that change the text once, figures never measured shown
//! as such, and the demo's own first impression.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::describe;

/// A demo workspace built with `demo --no-console` under a temp folder.
pub struct Demo {
    _tmp: tempfile::TempDir,
    pub dir: PathBuf,
}

impl Demo {
    pub fn new() -> Demo {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        let out = Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .args(["demo", "--no-console", "--dir"])
            .arg(&dir)
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", describe(&out));
        Demo { _tmp: tmp, dir }
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .arg("--db")
            .arg(self.dir.join("skilldeck.db"))
            .arg("--skills-dir")
            .arg(self.dir.join("skills"))
            .arg("--config")
            .arg(self.dir.join("config.toml"))
            .args(args)
            .env("HOME", self.dir.parent().unwrap())
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", describe(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let text = self.ok(&[args, &["--json"]].concat());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
    }
}

fn open_proposals(d: &Demo, source: &str, skill: &str) -> Vec<Value> {
    let all = d.json(&["candidates"]);
    all.as_array()
        .unwrap()
        .iter()
        .filter(|c| c["source"] == source && c["target_skill_name"] == skill)
        .filter(|c| c["status"] == "candidate")
        .cloned()
        .collect()
}

#[test]
fn an_approved_trigger_rewrite_is_not_proposed_again_and_its_undo_leaves_one_row() {
    let d = Demo::new();
    let open = open_proposals(&d, "trigger", "db-backup");
    assert_eq!(open.len(), 1, "{open:#?}");
    let c = &open[0];
    let keys: Vec<&str> =
        c["session_keys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    let distinct: std::collections::HashSet<&&str> = keys.iter().collect();
    assert_eq!(keys.len(), distinct.len(), "each session once: {keys:?}");
    let id = c["id"].as_i64().unwrap().to_string();

    d.ok(&["approve", &id]);
    let sweep = d.json(&["sweep", "--full"]);
    assert_eq!(sweep["proposed_fixes"]["trigger_rewrites"], 0, "{sweep:#}");
    assert!(open_proposals(&d, "trigger", "db-backup").is_empty());

    d.ok(&["undo-approve", &id]);
    let open = open_proposals(&d, "trigger", "db-backup");
    assert_eq!(open.len(), 1, "one version row for db-backup after the undo: {open:#?}");
    // And the reopened proposal still changes the text.
    let diff = d.ok(&["diff", "--candidate", &id]);
    assert!(diff.contains("+description:"), "{diff}");
}

#[test]
fn lessons_text_shows_the_fix_and_says_no_data_for_what_was_never_measured() {
    use crate::lessons::{claude, release_session};
    let ws = crate::support::TestWorkspace::new();
    let dir = ws.root().join("transcripts");
    claude(&dir, 1, &release_session("feat-cart"));
    claude(&dir, 2, &release_session("fix-tax"));
    ws.run_ok(&["ingest", dir.to_str().unwrap()]);
    let text = ws.run_ok(&["lessons"]);
    assert!(text.contains("     fix:  mix format"), "the fix is in the text output:\n{text}");
    assert!(
        text.contains("     then: ran the same command again, and it passed"),
        "no did/then pair that reads the same:\n{text}"
    );
    let list = ws.run_json(&["lessons"]);
    let id = list.as_array().unwrap()[0]["id"].to_string();
    ws.run_ok(&["lessons", "approve", &id]);
    let text = ws.run_ok(&["lessons"]);
    assert!(text.contains("helped: no data yet"), "{text}");
    assert!(!text.contains("0 of 0"), "{text}");
    assert!(!text.contains("hit rate 0.00"), "{text}");
}

#[test]
fn skilldecks_own_playbook_is_not_judged_by_the_sweep_nor_warned_by_validate() {
    let d = Demo::new();
    d.ok(&["lessons", "approve", "1"]);
    let sweep = d.ok(&["sweep", "--full"]);
    assert!(!sweep.contains("lessons-playbook"), "{sweep}");
    let validate = d.ok(&["validate", d.dir.join("skills").to_str().unwrap()]);
    assert!(!validate.contains("lessons-playbook"), "{validate}");
}

#[test]
fn an_effect_side_never_measured_reads_no_data_not_zero() {
    let d = Demo::new();
    let e = d.json(&["stats", "release-notes", "--effect"]);
    assert_eq!(e["runs_without"], 0, "{e:#}");
    for m in e["metrics"].as_array().unwrap() {
        assert!(m["without"].is_null(), "never measured is null, not 0: {m:#}");
    }
    let text = d.ok(&["stats", "release-notes", "--effect"]);
    assert!(text.contains("no data"), "{text}");
    for never in ["(n=0)", "-0.0", "0% (n=0)"] {
        assert!(!text.contains(never), "{never} in:\n{text}");
    }
}
