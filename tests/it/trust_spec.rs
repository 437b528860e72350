//! Skills that break the Agent Skills spec are flagged wherever a skill's state shows: `audit`,
//! a full sweep and the console say what `skilldeck validate` says.

use crate::console_live::Live;
use crate::support::TestWorkspace;

fn hand_made(tw: &TestWorkspace, folder: &str, name: &str, description: &str) {
    let dir = tw.skills_dir().join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!("---\nname: {name}\ndescription: {description}\n---\nDo it.\n");
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

#[test]
fn audit_and_a_full_sweep_flag_what_validate_rejects() {
    let tw = TestWorkspace::new();
    let long = format!("Call the API. Use when asked to call it. {}", "More words. ".repeat(100));
    hand_made(&tw, "claude-api", "claude-api", &long);
    hand_made(&tw, "tidy-✨", "tidy-✨", "Tidy. Use when asked to tidy.");
    let long_name = format!("tidy-{}", "x".repeat(100));
    hand_made(&tw, &long_name, &long_name, "Tidy. Use when asked to tidy.");
    hand_made(&tw, "fine", "fine", "Fine. Use when asked.");
    let audit = tw.run_ok(&["audit"]);
    let row =
        |name: &str| audit.lines().find(|l| l.starts_with(name)).unwrap_or_default().to_string();
    assert!(row("claude-api").contains("healthy spec"), "{audit}");
    assert!(row("tidy-✨").contains("healthy spec"), "{audit}");
    assert!(row(&long_name).contains("healthy spec"), "{audit}");
    assert!(!row("fine").contains("spec"), "{audit}");
    assert!(audit.contains("claude-api breaks the spec: description:"), "{audit}");
    let json = tw.run_json(&["audit"]);
    let fine = json.as_array().unwrap().iter().find(|r| r["name"] == "fine").unwrap();
    assert_eq!(fine["spec_errors"], serde_json::json!([]));

    let swept = tw.run_ok(&["sweep", "--full"]);
    assert!(swept.contains("claude-api: breaks the Agent Skills spec: description:"), "{swept}");
    assert!(swept.contains("tidy-✨: breaks the Agent Skills spec: name:"), "{swept}");
    assert!(
        swept.contains(&format!("{long_name}: breaks the Agent Skills spec: name:")),
        "{swept}"
    );
    assert!(!swept.contains("fine: breaks"), "{swept}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_flags_a_skill_that_breaks_the_spec_and_says_why() {
    let live = Live::start().await;
    let file = live.root.join("skills/deploy-docs/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let long = format!("description: {}\n", "Deploy the docs. ".repeat(80));
    let broken: String = text
        .lines()
        .map(|l| if l.starts_with("description:") { long.clone() } else { format!("{l}\n") })
        .collect();
    std::fs::write(&file, broken).unwrap();
    live.press("2j");
    live.wait_for("healthy    spec   deploy-docs").await;
    live.code(ratatui::crossterm::event::KeyCode::Enter);
    live.wait_for("Breaks the Agent Skills spec: description:").await;
    live.quit().await;
}

#[test]
fn a_skills_steps_come_from_shell_code_only() {
    let tw = TestWorkspace::new();
    let dir = tw.skills_dir().join("seeded");
    std::fs::create_dir_all(&dir).unwrap();
    let text = "---\nname: seeded\ndescription: Seed data. Use when asked to seed.\n---\n\n\
                ```javascript\nlet seed = 42\nlet params = make(seed)\nfunction run() {}\n```\n\n\
                ```bash\nmake seed-data\n```\n\n```console\n$ cargo run --bin seed\nseeded 3 rows\n```\n";
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
    let uptake = tw.run_json(&["stats", "seeded", "--uptake"]);
    assert_eq!(uptake["workflow_from"], "body");
    assert_eq!(uptake["workflow"], serde_json::json!(["sh:make seed-data", "sh:cargo run"]));
}
