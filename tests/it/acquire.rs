//! Code skills through the CLI: sanitize, test-run, register only on success.

use serde_json::Value;
use skilldeck::store::Store;

use crate::packages::{agentskills_validate, count, path_str};
use crate::support::{TestWorkspace, describe};

const ADD: &str = "import json, sys\np = json.loads(sys.argv[1])\nprint(p['a'] + p['b'])\n";

fn acquire(tw: &TestWorkspace, name: &str, code: &str, payload: &str) -> std::process::Output {
    let file = tw.root().join(format!("{name}.code"));
    std::fs::write(&file, code).unwrap();
    tw.run(&[
        "acquire",
        "--name",
        name,
        "--code",
        path_str(&file),
        "--test-payload",
        payload,
        "--json",
    ])
}

fn registered(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", describe(out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["result"], "registered", "{json}");
    json
}

fn stored_script(tw: &TestWorkspace, name: &str) -> String {
    std::fs::read_to_string(tw.skills_dir().join(name).join(format!("scripts/{name}.py"))).unwrap()
}

#[test]
fn clean_code_is_registered_unchanged_with_its_hash_and_a_test_outcome() {
    let tw = TestWorkspace::new();
    let json = registered(&acquire(&tw, "add-numbers", ADD, r#"{"a": 2, "b": 3}"#));
    assert_eq!(json["repairs"], serde_json::json!([]));
    assert_eq!(json["test_stdout"], "5");
    assert_eq!(json["registry_status"], "active");
    assert_eq!(stored_script(&tw, "add-numbers"), ADD);
    let folder = tw.skills_dir().join("add-numbers");
    agentskills_validate(&folder);
    let skill_md = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    assert!(
        skill_md.contains("python3 scripts/add-numbers.py '{\"a\": 2, \"b\": 3}'"),
        "{skill_md}"
    );

    let store = Store::open(&tw.db()).unwrap();
    let (sha, source): (String, String) = store
        .conn()
        .query_row(
            "SELECT a.sha256, s.source FROM acquired_code a JOIN skills s ON s.id = a.skill_id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(sha, skilldeck::text::hex::sha256_hex(ADD.as_bytes()));
    assert_eq!(json["sha256"], sha);
    assert_eq!(source, "acquired");
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_invocations WHERE source = 'acquire_test' AND outcome = 'success' AND skill_name = 'add-numbers'"
        ),
        1
    );
    let skill_id: i64 = store.conn().query_row("SELECT id FROM skills", [], |r| r.get(0)).unwrap();
    let detail = skilldeck::packages::detail(&store, skill_id).unwrap();
    let code = detail.code.expect("a code skill shows its script");
    assert_eq!(
        (code.script_path.as_str(), code.registry_status),
        ("scripts/add-numbers.py", "active")
    );
    assert_eq!(code.sha256, sha);
    // A lifecycle status maps onto the code-skill registry status: three failures in a row
    // degrade the skill as the third is recorded.
    for _ in 0..2 {
        tw.run_ok(&["record", "add-numbers", "failure"]);
    }
    let said = tw.run_ok(&["record", "add-numbers", "failure"]);
    assert!(said.contains("add-numbers: healthy → degraded"), "{said}");
    let code = skilldeck::packages::detail(&store, skill_id).unwrap().code.unwrap();
    assert_eq!(code.registry_status, "degraded");
    // Nothing is left in the scratch folder's place: only SKILL.md and the script.
    let mut files: Vec<String> = walk(&folder);
    files.sort();
    assert_eq!(files, ["SKILL.md", "scripts/add-numbers.py"]);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let sub = p.file_name().unwrap().to_string_lossy().into_owned();
            out.extend(walk(&p).into_iter().map(|f| format!("{sub}/{f}")));
        } else {
            out.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn clean_code_that_looks_like_markup_is_never_changed() {
    let tw = TestWorkspace::new();
    let code = "s = '&lt;b&gt; ```python\\nx``` <![CDATA[y]]>'\nprint(s)\n";
    let json = registered(&acquire(&tw, "markup", code, "{}"));
    assert_eq!(json["repairs"], serde_json::json!([]));
    assert_eq!(stored_script(&tw, "markup"), code);
    assert_eq!(json["test_stdout"], "&lt;b&gt; ```python\nx``` <![CDATA[y]]>");
}

#[test]
fn fenced_code_is_extracted() {
    let tw = TestWorkspace::new();
    let fenced = format!("Here is the skill:\n\n```python\n{ADD}```\n\nIt adds two numbers.\n");
    let json = registered(&acquire(&tw, "fenced", &fenced, r#"{"a": 1, "b": 1}"#));
    assert_eq!(json["repairs"], serde_json::json!(["fence"]));
    assert_eq!(stored_script(&tw, "fenced"), ADD);
}

#[test]
fn cdata_wrapped_code_with_entities_is_unwrapped_and_decoded() {
    let tw = TestWorkspace::new();
    let code = "<![CDATA[\nimport json, sys\np = json.loads(sys.argv[1])\nprint('big' if p['n'] &gt; 3 and p['n'] &lt; 9 else 'small')\n]]>";
    let json = registered(&acquire(&tw, "size", code, r#"{"n": 5}"#));
    assert_eq!(json["repairs"], serde_json::json!(["cdata", "entities"]));
    assert_eq!(json["test_stdout"], "big");
    assert!(stored_script(&tw, "size").contains("p['n'] > 3 and p['n'] < 9"));
}

#[test]
fn failing_code_is_not_registered_and_the_cause_is_one_line() {
    let tw = TestWorkspace::new();
    let code = "import sys\nprint(int(sys.argv[1]))\n";
    let out = acquire(&tw, "to-int", code, "\"seven\"");
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        "to-int: not registered (test failed): ValueError: invalid literal for int() with base 10: '\"seven\"'"
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["result"], "rejected");
    assert_eq!(json["stage"], "test");
    assert!(!tw.skills_dir().join("to-int").exists());
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skills"), 0);

    let silent = acquire(&tw, "silent", "x = 1\n", "{}");
    assert!(
        String::from_utf8_lossy(&silent.stderr).contains("exited 0 but printed nothing on stdout")
    );

    let exits = acquire(&tw, "exits", "import sys\nsys.exit(3)\n", "{}");
    assert!(
        String::from_utf8_lossy(&exits.stderr).contains("exited with code 3 and no error output")
    );
}

#[test]
fn a_hanging_test_run_is_killed_at_the_timeout() {
    let tw = TestWorkspace::new();
    std::fs::write(tw.config(), "[acquire]\ntimeout_secs = 1\n").unwrap();
    // The script also starts a grandchild that keeps the output pipes open after the kill.
    let code = "import subprocess, time\nsubprocess.Popen(['sleep', '20'])\ntime.sleep(20)\nprint('late')\n";
    let started = std::time::Instant::now();
    let out = acquire(&tw, "sleepy", code, "{}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sleepy: not registered (test failed): timed out after 1s"),
        "{stderr}"
    );
    assert!(started.elapsed().as_secs() < 15, "waited for the grandchild: {:?}", started.elapsed());
}

#[test]
fn unrepairable_code_gets_a_specific_reason() {
    let tw = TestWorkspace::new();
    let out = acquire(&tw, "cut", "```python\nimport sys\nprint(sys.argv[1]\n", "{}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut: not registered (sanitize failed): truncated stream"), "{stderr}");

    let out = acquire(&tw, "escaped", "import sys\\nprint(sys.argv[1])\\n", "{}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("escaped-newline confusion"), "{stderr}");

    let out = acquire(&tw, "wrapped", "<![CDATA[print(]]>", "{}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("CDATA envelope and still does not parse"), "{stderr}");
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skills"), 0);
}

#[test]
fn reacquiring_makes_a_new_version_and_a_failed_retest_counts_against_the_skill() {
    let tw = TestWorkspace::new();
    registered(&acquire(&tw, "adder", ADD, r#"{"a": 1, "b": 2}"#));
    let v2 = "import json, sys\np = json.loads(sys.argv[1])\nprint(p['a'] + p['b'] + 0)\n";
    let json = registered(&acquire(&tw, "adder", v2, r#"{"a": 1, "b": 2}"#));
    assert_eq!(json["version"], 2);
    assert_eq!(stored_script(&tw, "adder"), v2);
    let out = acquire(&tw, "adder", ADD, r#"{"a": 1}"#);
    assert!(String::from_utf8_lossy(&out.stderr).contains("KeyError: 'b'"), "{}", describe(&out));
    assert_eq!(stored_script(&tw, "adder"), v2, "a failed test leaves the registered code alone");
    assert_eq!(
        count(
            &tw,
            "SELECT COUNT(*) FROM skill_invocations WHERE source = 'acquire_test' AND outcome = 'failure' AND note = 'KeyError: ''b'''"
        ),
        1
    );
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skill_versions WHERE source = 'import'"), 2);
}

#[test]
fn bad_names_and_payloads_are_refused_before_anything_runs() {
    let tw = TestWorkspace::new();
    let out = acquire(&tw, "Bad_Name", ADD, "{}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("must be 1-64 characters of a-z, 0-9 and '-'")
    );
    let out = acquire(&tw, "ok-name", ADD, "{not json");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--test-payload is not valid JSON"));
    tw.run_ok(&["import", path_str(&crate::packages::fixture("variants.json"))]);
    let out = acquire(&tw, "release-notes", ADD, r#"{"a": 1, "b": 2}"#);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already exists and is not a code skill"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_failing_code_skill_degrades_then_retires_by_the_lifecycle_rules_and_restores() {
    let tw = TestWorkspace::new();
    registered(&acquire(&tw, "add-numbers", ADD, r#"{"a": 2, "b": 3}"#));
    let status = |tw: &TestWorkspace| -> String {
        let audit = tw.run_json(&["audit"]);
        let skill = audit.as_array().unwrap().iter().find(|s| s["name"] == "add-numbers").unwrap();
        skill["status"].as_str().unwrap().to_string()
    };
    for _ in 0..3 {
        tw.run_ok(&["record", "add-numbers", "failure", "--note", "wrong sum"]);
    }
    tw.run_ok(&["sweep"]);
    assert_eq!(status(&tw), "degraded", "three failures in a row");
    let detail = tw.run_json(&["resolve", "add-numbers", "--detail"]).to_string();
    assert!(detail.contains("\"degraded\""), "registry status follows the lifecycle: {detail}");

    tw.run_ok(&["record", "add-numbers", "failure"]);
    tw.run_ok(&["sweep"]);
    assert_eq!(status(&tw), "retired", "still failing after being flagged");
    assert!(!tw.skills_dir().join("add-numbers").exists(), "retired skills leave the live folder");

    tw.run_ok(&["restore", "add-numbers"]);
    assert_eq!(status(&tw), "healthy");
    assert_eq!(stored_script(&tw, "add-numbers"), ADD, "restored with its code");
}
