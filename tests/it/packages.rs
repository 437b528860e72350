//! Skill packages through the CLI: import, validation errors, the on-disk folder and
//! the export round trip.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skilldeck::store::Store;

use crate::support::{TestWorkspace, describe};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packages").join(name)
}

pub fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

pub use crate::support::agentskills_validate;

pub fn count(tw: &TestWorkspace, sql: &str) -> i64 {
    let store = Store::open(&tw.db()).unwrap();
    store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn write(tw: &TestWorkspace, name: &str, text: &str) -> PathBuf {
    let path = tw.root().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn consistency_checker_imports_as_an_agent_skills_folder_and_round_trips() {
    let tw = TestWorkspace::new();
    let pkg = fixture("consistency-checker.json");
    let out = tw.run_ok(&["import", path_str(&pkg)]);
    assert!(
        out.contains("imported \"Consistency Checker\" as default/consistency-checker"),
        "{out}"
    );
    assert!(out.contains("4 artifacts"), "{out}");

    let folder = tw.skills_dir().join("consistency-checker");
    let skill_md = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    assert!(skill_md.starts_with("---\nname: consistency-checker\n"), "{skill_md}");
    assert!(
        skill_md.contains("most useful for worldbuilding projects"),
        "body from the description"
    );
    assert!(skill_md.contains("references/check-prompt.md.j2"), "{skill_md}");
    let template = std::fs::read_to_string(folder.join("references/check-prompt.md.j2")).unwrap();
    assert!(template.starts_with("Given the following claims about \"{{ entity_name }}\""));
    let script =
        std::fs::read_to_string(folder.join("scripts/cross-reference-script.py.j2")).unwrap();
    assert!(script.starts_with("import inklings"));
    assert!(folder.join("references/dspy-checker.dspy.json").is_file());
    agentskills_validate(&folder);

    // Export gives the same document back.
    let exported: Value =
        serde_json::from_str(&tw.run_ok(&["export", "Consistency Checker"])).unwrap();
    assert_eq!(exported, fixture_json("consistency-checker.json"));

    // Export to a file, import that into a fresh workspace, export again: byte-identical.
    let file = tw.root().join("exported.json");
    tw.run_ok(&["export", "consistency-checker", "--out", path_str(&file)]);
    let first = std::fs::read_to_string(&file).unwrap();
    let other = TestWorkspace::new();
    other.run_ok(&["import", path_str(&file)]);
    assert_eq!(other.run_ok(&["export", "consistency-checker"]), first);

    let versions = count(&tw, "SELECT COUNT(*) FROM skill_versions WHERE source = 'import'");
    assert_eq!(versions, 1);
}

#[test]
fn a_bad_package_is_rejected_with_every_problem_and_nothing_is_written() {
    let tw = TestWorkspace::new();
    let mut doc = fixture_json("consistency-checker.json");
    doc["id"] = json!("not-a-uuid");
    doc["source"] = json!("marketplace");
    doc["colour"] = json!("blue");
    doc["artifacts"][1]["content"] = json!("{% for x in %}");
    doc["artifacts"][3]["metadata"] = json!({});
    let bad = write(&tw, "bad.json", &serde_json::to_string_pretty(&doc).unwrap());
    let out = tw.run(&["import", path_str(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("rejected, nothing was written (5 problems)"), "{stderr}");
    for expected in [
        "bad.json: $.id: must be a UUID string",
        "bad.json: $.source: must be one of system, community, user",
        "bad.json: $.colour: unknown key",
        "bad.json: $.artifacts[1].content: template does not parse",
        "bad.json: $.artifacts[3].metadata.fallback_artifact: is required",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in:\n{stderr}");
    }
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skills"), 0);
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skill_artifacts"), 0);
    assert!(!tw.skills_dir().join("consistency-checker").exists());

    // The JSON report carries the same list.
    let out = tw.run(&["import", path_str(&bad), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["imported"], Value::Null);
    assert_eq!(report["problems"].as_array().unwrap().len(), 5);
    assert_eq!(report["problems"][0]["path"], "$.id");

    let broken = write(&tw, "broken.json", "{\n  \"name\": \"x\",\n  oops\n}");
    let out = tw.run(&["import", path_str(&broken)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.json: $: not valid JSON") && stderr.contains("line 3"),
        "{stderr}"
    );
}

#[test]
fn importing_an_existing_name_needs_replace_and_makes_a_new_version() {
    let tw = TestWorkspace::new();
    let pkg = fixture("consistency-checker.json");
    tw.run_ok(&["import", path_str(&pkg)]);
    let out = tw.run(&["import", path_str(&pkg)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("$.name: a skill named \"consistency-checker\" already exists")
    );

    // A broken document for an existing name: both kinds of problem are listed together.
    let mut broken = fixture_json("consistency-checker.json");
    broken["version"] = json!(2);
    let broken = write(&tw, "broken.json", &broken.to_string());
    let out = tw.run(&["import", path_str(&broken)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("(2 problems)") && stderr.contains("$.version: must be a string"),
        "{stderr}"
    );
    assert!(
        stderr.contains("$.name: a skill named \"consistency-checker\" already exists"),
        "{stderr}"
    );

    let mut doc = fixture_json("consistency-checker.json");
    doc["artifacts"].as_array_mut().unwrap().truncate(2);
    let smaller = write(&tw, "smaller.json", &doc.to_string());
    let done = tw.run_json(&["import", path_str(&smaller), "--replace"]);
    assert_eq!(done["imported"]["version"], 2);
    assert_eq!(done["imported"]["replaced"], true);
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skill_artifacts"), 2);
    assert!(
        !tw.skills_dir().join("consistency-checker/references/dspy-checker.dspy.json").exists()
    );
    let exported: Value =
        serde_json::from_str(&tw.run_ok(&["export", "consistency-checker"])).unwrap();
    assert_eq!(exported, doc);
}
