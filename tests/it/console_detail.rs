//! The skill detail view (Enter in Skills): a package imported through `packages::import`, in
//! both scopes so one shadows the other, with a checked trace, drawn from a real store.

use skilldeck::config::{Config, TranscriptRoot};
use skilldeck::identity::Scope;
use skilldeck::packages::{CheckOptions, ImportOptions, ImportResult, check, import};
use skilldeck::tui::Action;
use skilldeck::workspace::Workspace;

use super::console_fixture::tempdir;

fn fixture(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packages/");
    std::fs::read_to_string(format!("{path}{name}")).unwrap()
}

/// A workspace with an account and a workspace skills folder.
fn workspace(root: &std::path::Path) -> Workspace {
    let config = Config {
        transcripts: vec![TranscriptRoot {
            path: root.join("transcripts"),
            format: "auto".into(),
            agent: None,
        }],
        workspace_skills_dir: Some(root.join("project-skills")),
        ..Config::default()
    };
    crate::support::library_workspace(config, root)
}

fn import_as(ws: &mut Workspace, name: &str, scope: Scope) -> i64 {
    let opts = ImportOptions {
        agent: "default".into(),
        scope,
        namespace: "default".into(),
        is_public: false,
        replace: false,
    };
    match import(ws, &fixture(name), &opts).unwrap() {
        ImportResult::Imported(i) => i.skill_id,
        ImportResult::Rejected(problems) => panic!("{name} rejected: {problems:?}"),
    }
}

/// The screen after `actions` (as the other console tests draw it), with today's date hidden.
fn screen(ws: &Workspace, width: u16, height: u16, actions: &[Action]) -> String {
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    super::console::screen(ws, width, height, actions).replace(&today, "[TODAY]   ")
}

#[test]
fn enter_on_a_skill_shows_scope_shadowing_artifacts_traces_and_versions() {
    let dir = tempdir();
    let mut ws = workspace(dir.path());
    let account = import_as(&mut ws, "variants.json", Scope::Account);
    let project = import_as(&mut ws, "variants.json", Scope::Workspace);
    let checker = import_as(&mut ws, "consistency-checker.json", Scope::Account);
    let good = r#"{"sections": ["Fixes", "Features"]}"#;
    let opts = CheckOptions { model: None, session: Some("s1".into()) };
    check(&mut ws, project, "Draft", good, &opts).unwrap();
    check(&mut ws, project, "Draft", "```\nnot json\n```", &opts).unwrap();

    // Skills sort by agent, namespace, name, scope: consistency-checker, then release-notes in
    // the account scope, then in the workspace scope.
    let order: Vec<i64> = ws
        .store
        .conn()
        .prepare("SELECT id FROM skills ORDER BY agent_id, namespace, name, scope")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(order, [checker, account, project]);

    let s = screen(&ws, 100, 40, &[Action::GoSkills, Action::Down, Action::Down, Action::Enter]);
    assert!(
        s.contains(
            "Release Notes · default/release-notes (private) · Claude Code skill · workspace scope"
        ),
        "{s}"
    );
    assert!(
        s.contains(&format!("Shadows default/release-notes (#{account}, account scope)")),
        "{s}"
    );
    assert!(s.contains("1 prompt_template  Draft                default · 4 assertions"), "{s}");
    assert!(
        s.contains("7 dspy_module      Optimized Draft      default · falls back to Draft"),
        "{s}"
    );
    assert!(s.contains("Draft has model variants: default, anthropic, openai"), "{s}");
    // Rates are the skill's own (by id): the account skill it shadows has none.
    assert!(s.contains("release-notes healthy · v1 · rate 50% over the last 2 uses"), "{s}");
    assert!(s.contains("Recent traces (2)"), "{s}");
    assert!(s.contains("Draft · 1/3 assertions passed"), "{s}");
    assert!(s.contains("Draft · 3/3 assertions passed"), "{s}");
    assert!(s.contains("v1           import"), "{s}");
    insta::assert_snapshot!("detail_workspace_skill_100x40", s);

    let s = screen(&ws, 100, 40, &[Action::GoSkills, Action::Down, Action::Enter]);
    assert!(s.contains("account scope"), "{s}");
    assert!(
        s.contains(&format!("Shadowed by default/release-notes (#{project}, workspace scope)")),
        "{s}"
    );
    assert!(s.contains("Recent traces (0)"), "{s}");
    assert!(s.contains("release-notes healthy · v1 · rate - (no outcomes yet)"), "{s}");
    insta::assert_snapshot!("detail_account_skill_shadowed_100x40", s);

    // Esc goes back to the list; Enter on the list again reopens the detail.
    let s = screen(&ws, 100, 40, &[Action::GoSkills, Action::Enter, Action::Back]);
    assert!(s.contains("Skills (3)") && !s.contains("Artifacts"), "{s}");
}

#[test]
fn a_code_skill_shows_its_script_hash_and_registry_status() {
    use skilldeck::acquire::{AcquireOutcome, AcquireRequest, acquire};
    let dir = tempdir();
    let mut ws = workspace(dir.path());
    let req = AcquireRequest {
        agent: "default".into(),
        name: "add-numbers".into(),
        code: "import json, sys\np = json.loads(sys.argv[1])\nprint(p['a'] + p['b'])\n".into(),
        test_payload: r#"{"a": 2, "b": 3}"#.into(),
        description: None,
    };
    let acquired = match acquire(&mut ws, &req).unwrap() {
        AcquireOutcome::Registered(a) => a,
        rejected => panic!("not registered: {rejected:?}"),
    };
    let s = screen(&ws, 120, 30, &[Action::GoSkills, Action::Enter]);
    assert!(s.contains("Code skill"), "{s}");
    assert!(s.contains("script scripts/add-numbers.py"), "{s}");
    assert!(s.contains(&format!("sha256 {} · registry active", acquired.sha256)), "{s}");

    // Archiving retires it in the registry, and the detail says so.
    skilldeck::lifecycle::archive(&mut ws, "default", "add-numbers").unwrap();
    let s = screen(&ws, 120, 30, &[Action::GoSkills, Action::Enter]);
    assert!(s.contains("registry retired"), "{s}");
}
