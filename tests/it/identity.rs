//! Scopes and identity through the CLI: workspace overrides account, names in
//! several namespaces are ambiguous, saved selections keep what was requested.

use serde_json::Value;
use skilldeck::catalog::skills;
use skilldeck::store::Store;

use crate::packages::{count, fixture, path_str};
use crate::support::{TestWorkspace, describe};

fn with_workspace_scope() -> TestWorkspace {
    let tw = TestWorkspace::new();
    let dir = tw.root().join("project/.claude/skills");
    std::fs::write(tw.config(), format!("workspace_skills_dir = {:?}\n", dir)).unwrap();
    tw
}

#[test]
fn a_workspace_skill_overrides_the_account_skill_of_the_same_name() {
    let tw = with_workspace_scope();
    let pkg = fixture("consistency-checker.json");
    tw.run_ok(&["import", path_str(&pkg)]);
    let before = tw.run_json(&["resolve", "consistency-checker"]);
    assert_eq!(before[0]["result"], "resolved");
    assert_eq!(before[0]["skill"]["scope"], "account");

    tw.run_ok(&["import", path_str(&pkg), "--scope", "workspace"]);
    let folder = tw.root().join("project/.claude/skills/consistency-checker");
    assert!(folder.join("SKILL.md").is_file());
    crate::packages::agentskills_validate(&folder);

    let after = tw.run_json(&["resolve", "Consistency Checker"]);
    assert_eq!(after[0]["result"], "resolved");
    assert_eq!(after[0]["skill"]["scope"], "workspace");
    assert_eq!(after[0]["skill"]["path"], folder.to_str().unwrap());
    assert_eq!(after[0]["shadows"][0]["scope"], "account");
    assert_eq!(after[0]["requested"]["requested"], "Consistency Checker");
    let text = tw.run_ok(&["resolve", "consistency-checker"]);
    assert!(text.contains("-> default/consistency-checker (#2, workspace scope); overrides default/consistency-checker (#1, account scope)"), "{text}");

    let text = tw.run_ok(&["resolve", "consistency-checker", "--detail"]);
    assert!(text.contains("consistency-checker \"Consistency Checker\": #2 default/consistency-checker private, workspace scope, healthy"), "{text}");
    assert!(text.contains("  overrides default/consistency-checker (#1, account scope)"), "{text}");
    assert!(
        text.contains("    3 dspy_module      DSPy Checker [default], falls back to Check Prompt"),
        "{text}"
    );
    let account = tw.run_json(&["resolve", "#1", "--detail"]);
    assert_eq!(account[0]["shadowed_by"]["skill_id"], 2);
    // Everything that takes a name now acts on the workspace copy.
    tw.run_ok(&["dispatch", "consistency-checker", "Overview"]);
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skill_execution_traces WHERE skill_id = 2"), 1);
}

/// Imports the `release-notes` package into the account scope and writes a hand-made skill of
/// the same name into the workspace folder; returns that folder.
fn shadowed_release_notes(tw: &TestWorkspace) -> std::path::PathBuf {
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    let folder = tw.root().join("project/.claude/skills/release-notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: release-notes\ndescription: \"Local notes.\"\n---\nbody\n",
    )
    .unwrap();
    folder
}

#[test]
fn a_hand_made_workspace_folder_shadows_an_imported_account_skill() {
    let tw = with_workspace_scope();
    let folder = shadowed_release_notes(&tw);
    let out = tw.run_json(&["resolve", "release-notes"]);
    assert_eq!(out[0]["skill"]["scope"], "workspace");
    assert_eq!(out[0]["skill"]["path"], folder.to_str().unwrap());
    let store = Store::open(&tw.db()).unwrap();
    let description: String = store
        .conn()
        .query_row("SELECT description FROM skills WHERE scope = 'workspace'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(description, "Local notes.");
    // Commands resolve the same way: the plain workspace skill wins over the account package.
    let out = tw.run(&["render", "release-notes", "Draft", "--var", "version=1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a plain SKILL.md skill, not a package"), "{stderr}");
    assert!(tw.run_ok(&["render", "#1", "Draft", "--var", "version=1"]).starts_with("DEFAULT"));
}

#[test]
fn a_name_in_several_namespaces_is_ambiguous_never_guessed() {
    let tw = TestWorkspace::new();
    let pkg = fixture("consistency-checker.json");
    tw.run_ok(&["import", path_str(&pkg), "--namespace", "team-a"]);
    // One scope folder holds one skill per name, whatever the namespace: even --replace must not
    // overwrite another namespace's folder.
    let out = tw.run(&["import", path_str(&pkg), "--namespace", "team-b", "--replace"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && stderr.contains("belongs to skill team-a/consistency-checker (#1)"),
        "{stderr}"
    );
    let dir = tw.root().join("ws");
    std::fs::write(tw.config(), format!("workspace_skills_dir = {:?}\n", dir)).unwrap();
    tw.run_ok(&[
        "import",
        path_str(&pkg),
        "--namespace",
        "team-b",
        "--public",
        "--scope",
        "workspace",
    ]);

    let out = tw.run(&["resolve", "consistency-checker", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["result"], "ambiguous");
    let namespaces: Vec<&str> = json[0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["namespace"].as_str().unwrap())
        .collect();
    assert_eq!(namespaces, ["team-a", "team-b"]);

    let text =
        String::from_utf8_lossy(&tw.run(&["resolve", "consistency-checker"]).stdout).into_owned();
    assert!(text.contains("consistency-checker: ambiguous, candidates: team-a/consistency-checker (#1, account scope); public:team-b/consistency-checker (#2, workspace scope)"), "{text}");

    // Commands that act on one skill refuse to guess and name the candidates.
    let out = tw.run(&["render", "consistency-checker", "Check Prompt"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("is ambiguous") && stderr.contains("team-b/"),
        "{stderr}"
    );

    // A namespace or visibility makes it exact.
    let a = tw.run_json(&["resolve", "team-a/consistency-checker", "public:consistency-checker"]);
    assert_eq!(a[0]["skill"]["skill_id"], 1);
    assert_eq!(a[1]["skill"]["skill_id"], 2);
    assert_eq!(a[1]["skill"]["is_public"], true);
    let out = tw.run(&["resolve", "private:team-b/consistency-checker", "nothing-here"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("private:team-b/consistency-checker: not found"), "{text}");
    assert!(text.contains("nothing-here: not found"), "{text}");
    tw.run_ok(&["export", "team-b/consistency-checker"]);
}

#[test]
fn a_saved_selection_keeps_what_was_requested_and_resolves_again_later() {
    let tw = TestWorkspace::new();
    let pkg = fixture("variants.json");
    tw.run_ok(&["import", path_str(&pkg), "--namespace", "docs"]);
    let out = tw.run_ok(&["resolve", "docs/release-notes", "--save", "weekly"]);
    assert!(out.contains("saved selection \"weekly\" (1 entries, as requested)"), "{out}");
    let store = Store::open(&tw.db()).unwrap();
    let (requested, name, namespace): (String, String, String) = store
        .conn()
        .query_row("SELECT requested, name, namespace FROM skill_selections", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(
        (requested.as_str(), name.as_str(), namespace.as_str()),
        ("docs/release-notes", "release-notes", "docs")
    );
    let columns: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM pragma_table_info('skill_selections')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(!columns.iter().any(|c| c == "skill_id"), "no derived id is stored: {columns:?}");

    // The skill is deleted and imported again: a new id, and the saved selection finds it.
    tw.run_ok(&["import", path_str(&fixture("consistency-checker.json"))]);
    let gone = skills::find(store.conn(), "default", "release-notes").unwrap().unwrap();
    skills::delete(store.conn(), gone.id).unwrap();
    drop(store);
    std::fs::remove_dir_all(tw.skills_dir().join("release-notes")).unwrap();
    tw.run_ok(&["import", path_str(&pkg), "--namespace", "docs"]);
    let again = tw.run_json(&["resolve", "--set", "weekly"]);
    assert_eq!(again[0]["skill"]["skill_id"], 3);
    assert_eq!(again[0]["requested"]["requested"], "docs/release-notes");

    let out = tw.run(&["resolve", "#3", "--save", "ids"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a derived skill id; save names or refs")
    );
    let out = tw.run(&["resolve", "--set", "nope"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no saved selection \"nope\""));
}

#[test]
fn workspace_scope_without_a_folder_is_a_clear_error() {
    let tw = TestWorkspace::new();
    let out = tw
        .cmd()
        .current_dir(tw.root())
        .args(["import", path_str(&fixture("variants.json")), "--scope", "workspace"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no workspace skills folder"),
        "{}",
        describe(&out)
    );
    assert_eq!(count(&tw, "SELECT COUNT(*) FROM skills"), 0);

    // The default: ./.claude/skills of the current folder, when it exists.
    std::fs::create_dir_all(tw.root().join(".claude/skills")).unwrap();
    let out = tw
        .cmd()
        .current_dir(tw.root())
        .args(["import", path_str(&fixture("variants.json")), "--scope", "workspace"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    assert!(tw.root().join(".claude/skills/release-notes/SKILL.md").is_file());
}

#[test]
fn outcomes_and_stats_by_name_go_to_the_workspace_skill_agents_load() {
    let tw = with_workspace_scope();
    shadowed_release_notes(&tw);
    let resolved = tw.run_json(&["resolve", "release-notes"]);
    assert_eq!(resolved[0]["skill"]["scope"], "workspace", "{resolved}");
    let workspace_id = resolved[0]["skill"]["skill_id"].clone();
    tw.run_ok(&["record", "release-notes", "failure"]);
    let stats = tw.run_json(&["stats", "release-notes"]);
    assert_eq!(stats["id"], workspace_id, "{stats}");
    assert_eq!(stats["failure_count"], 1);
}
