//! Consolidation: live skills that overlap strongly are proposed as a merge in the review queue
//! by the sweep; approving it makes the merged text the survivor's next version and archives the
//! absorbed skill; a dismissed pair or an absorbed skill is never proposed again. Through the
//! binary and the console's keys.

use serde_json::Value;

use super::console_live::Live;
use crate::support::TestWorkspace;

const RELEASE: &str = "---\nname: release-flow\ndescription: Release the crate.\n---\n# Release\n\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n\n## Example requests\n\n> cut release 1.2 of the crate\n";
const SHIP: &str = "---\nname: ship-it\ndescription: Ship a version.\nlicense: MIT\n---\n# Ship\n\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\n\n```sh\ncargo publish --dry-run\n```\n\n## Example requests\n\n> ship 0.3.1\n";
const PDF: &str = "---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\nRun `pdftk form.pdf fill_form data.fdf output out.pdf`.\n";

fn write_skill(skills: &std::path::Path, name: &str, text: &str) {
    let folder = skills.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
}

/// Three hand-written skills, two of them doing the same steps; `ship-it` pinned, so it survives.
fn three_skills(ws: &TestWorkspace) {
    for (name, text) in [("release-flow", RELEASE), ("ship-it", SHIP), ("pdf-forms", PDF)] {
        write_skill(&ws.skills_dir(), name, text);
    }
    ws.run_ok(&["pin", "ship-it"]);
}

fn merges(ws: &TestWorkspace, all: bool) -> Vec<Value> {
    let args: &[&str] = if all { &["candidates", "--all"] } else { &["candidates"] };
    let list = ws.run_json(args);
    list.as_array().unwrap().iter().filter(|c| c["source"] == "merge").cloned().collect()
}

/// `agentskills validate` (skills-ref) on a SKILL.md text, in a folder of its name.
fn agentskills_validate(ws: &TestWorkspace, name: &str, text: &str) {
    let folder = ws.root().join("validate").join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    crate::support::agentskills_validate(&folder);
}

#[test]
fn the_sweep_proposes_a_merge_and_approving_it_archives_the_absorbed_skill() {
    let ws = TestWorkspace::new();
    three_skills(&ws);
    let sweep = ws.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_merges"], 1, "{sweep:#}");
    let list = merges(&ws, false);
    assert_eq!(list.len(), 1, "{list:#?}");
    let m = &list[0];
    assert_eq!(m["name"], "ship-it", "the pinned skill survives: {m:#}");
    assert_eq!(m["target_skill_name"], "ship-it");
    assert_eq!(m["drafted_by"], "mechanical");
    assert!(m["reason"]["summary"].as_str().unwrap().contains("release-flow overlaps ship-it"));
    let text = m["skill_md"].as_str().unwrap();
    assert!(text.contains("## Also (from release-flow)"), "{text}");
    assert!(text.contains("description: \"Ship a version. Also: Release the crate.\""), "{text}");
    assert!(text.contains("license: MIT"), "{text}");
    // Requests from transcripts stay block-quoted; code stays fenced.
    for line in text.lines().filter(|l| l.contains("cut release") || l.contains("ship 0.3.1")) {
        assert!(line.starts_with("> "), "unquoted request line {line:?} in\n{text}");
    }
    assert_eq!(text.matches("```").count(), 2, "{text}");
    agentskills_validate(&ws, "ship-it", text);
    let id = m["id"].as_i64().unwrap().to_string();

    // The listing says what approving does, and diff shows the text against each skill.
    let listed = ws.run_ok(&["candidates"]);
    assert!(listed.contains(&format!("merges release-flow into ship-it: skilldeck approve {id}")));
    let diff = ws.run_ok(&["diff", "--candidate", &id]);
    let (against_ship, against_release) = diff
        .split_once("# candidate ")
        .map(|(_, r)| r.split_once("# candidate ").unwrap())
        .unwrap();
    assert!(against_ship.starts_with(&format!("{id} against ship-it (v1)")), "{diff}");
    assert!(against_ship.contains("+## Also (from release-flow)"), "{diff}");
    assert!(against_release.starts_with(&format!("{id} against release-flow (v1)")), "{diff}");
    assert!(against_release.contains("+4. Run `cargo publish`."), "{diff}");

    ws.run_ok(&["approve", &id]);
    let audit = ws.run_json(&["audit"]);
    let skill = |name: &str| -> Value {
        audit.as_array().unwrap().iter().find(|s| s["name"] == name).cloned().unwrap()
    };
    assert_eq!(skill("ship-it")["version"], 2);
    assert_eq!(skill("release-flow")["status"], "archived");
    assert_eq!(skill("pdf-forms")["status"], "healthy");
    let live = std::fs::read_to_string(ws.skills_dir().join("ship-it/SKILL.md")).unwrap();
    assert_eq!(live, text);
    assert!(!ws.skills_dir().join("release-flow").exists());
    // Every version is kept: the survivor's first text, and the absorbed skill's.
    let versions = ws.run_json(&["versions", "ship-it"]);
    assert_eq!(versions.as_array().unwrap().len(), 2, "{versions:#}");
    assert_eq!(ws.run_json(&["versions", "release-flow"]).as_array().unwrap().len(), 1);
    let timeline = ws.run_json(&["stats", "ship-it", "--timeline"]);
    let kinds: Vec<&str> =
        timeline["events"].as_array().unwrap().iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(kinds.contains(&"absorbed"), "{timeline:#}");
    let db = rusqlite::Connection::open(ws.db()).unwrap();
    let into: i64 = db
        .query_row(
            "SELECT s.absorbed_into = t.id FROM skills s, skills t
             WHERE s.name = 'release-flow' AND t.name = 'ship-it'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(into, 1, "absorbed_into names the survivor");

    // Never proposed again, even restored next to the skill it overlaps.
    ws.run_ok(&["restore", "release-flow"]);
    let again = ws.run_json(&["sweep"]);
    assert_eq!(again["proposed_merges"], 0, "{again:#}");
    assert_eq!(merges(&ws, true).len(), 1);
}

#[test]
fn a_dismissed_merge_is_never_proposed_again() {
    let ws = TestWorkspace::new();
    three_skills(&ws);
    ws.run_ok(&["sweep"]);
    let id = merges(&ws, false)[0]["id"].as_i64().unwrap().to_string();
    ws.run_ok(&["dismiss", &id]);
    assert!(merges(&ws, false).is_empty());
    let again = ws.run_json(&["sweep", "--full"]);
    assert_eq!(again["proposed_merges"], 0, "{again:#}");
    let all = merges(&ws, true);
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["status"], "dismissed");
    // Both skills stay live and untouched.
    let audit = ws.run_json(&["audit"]);
    assert!(
        audit.as_array().unwrap().iter().all(|s| s["version"] == 1 && s["status"] != "archived")
    );
}

/// The three skills swept with `draft.command` = `sh -c SCRIPT`: the workspace and the merge.
fn merge_by_command(script: &str) -> (TestWorkspace, Value) {
    let ws = TestWorkspace::new();
    let path = ws.root().join("merge.sh");
    std::fs::write(&path, script).unwrap();
    std::fs::write(ws.config(), format!("[draft]\ncommand = [\"sh\", {path:?}]\n")).unwrap();
    three_skills(&ws);
    ws.run_ok(&["sweep"]);
    let m = merges(&ws, false).remove(0);
    (ws, m)
}

#[test]
fn draft_command_writes_the_merge_when_configured_and_its_text_is_checked() {
    let (ws, m) = merge_by_command(
        "cat > packet.json\ncat <<'EOF'\n---\nname: ship-it\ndescription: Ship or release the crate, with tests, a tag, a push and a publish.\n---\n# Ship\n\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\nEOF\n",
    );
    assert_eq!(m["drafted_by"], "draft.command", "{m:#}");
    assert!(m["skill_md"].as_str().unwrap().contains("Ship or release the crate,"));
    let packet: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.root().join("staging/.drafting/packet.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(packet["name"], "ship-it");
    assert_eq!(packet["absorbed"]["name"], "release-flow");
    assert!(packet["mechanical_draft"].as_str().unwrap().contains("## Also (from release-flow)"));

    // A command that renames the skill is refused: the mechanical merge stays, with why.
    let (_ws, m) = merge_by_command(
        "cat <<'EOF'\n---\nname: other\ndescription: Something else entirely.\n---\nBody.\nEOF\n",
    );
    assert_eq!(m["drafted_by"], "mechanical", "{m:#}");
    assert!(m["draft_note"].as_str().unwrap().contains("renamed"), "{m:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_a_merge_with_both_diffs_and_approves_it() {
    let live = Live::start().await;
    let skills = live.root.join("skills");
    write_skill(&skills, "release-flow", RELEASE);
    write_skill(&skills, "ship-it", SHIP);
    live.press("s");
    live.wait_for("1 proposed merge").await;
    live.press("G");
    let screen = live.wait_for("Merge ship-it into release-flow").await;
    assert!(screen.contains("│merge   release-flow  "), "{screen}");
    assert!(screen.contains("Against release-flow (live v1):"), "{screen}");
    // The second diff is further down the detail: full width, scrolled.
    live.code(ratatui::crossterm::event::KeyCode::Enter);
    live.code(ratatui::crossterm::event::KeyCode::PageDown);
    live.wait_for("Against ship-it (live v1):").await;
    live.code(ratatui::crossterm::event::KeyCode::Esc);
    live.press("a");
    live.wait_for("Approve").await;
    live.press("y");
    live.wait_for("approved release-flow version 2").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE name = 'ship-it'"), "archived");
    assert_eq!(
        live.query(
            "SELECT t.name FROM skills s JOIN skills t ON t.id = s.absorbed_into
             WHERE s.name = 'ship-it'"
        ),
        "release-flow"
    );
    assert!(live.root.join("archive/default/ship-it/SKILL.md").is_file());
    live.quit().await;
}

#[test]
fn undoing_a_merge_restores_the_absorbed_skill() {
    let ws = TestWorkspace::new();
    three_skills(&ws);
    ws.run_ok(&["sweep"]);
    let id = merges(&ws, false)[0]["id"].as_i64().unwrap().to_string();
    ws.run_ok(&["approve", &id]);
    ws.run_ok(&["undo-approve", &id]);
    let audit = ws.run_json(&["audit"]);
    let skill = |name: &str| -> Value {
        audit.as_array().unwrap().iter().find(|s| s["name"] == name).cloned().unwrap()
    };
    assert_eq!(skill("release-flow")["status"], "healthy");
    assert_eq!(skill("ship-it")["version"], 3, "the rollback is a version too");
    let back = std::fs::read_to_string(ws.skills_dir().join("ship-it/SKILL.md")).unwrap();
    assert_eq!(back, SHIP);
    assert!(ws.skills_dir().join("release-flow/SKILL.md").is_file());
    assert_eq!(merges(&ws, false).len(), 1, "the merge is open for review again");
}

#[test]
fn a_merge_lists_every_step_command_and_check_of_both_and_flags_what_it_drops() {
    // The mechanical merge keeps everything.
    let ws = TestWorkspace::new();
    three_skills(&ws);
    ws.run_ok(&["sweep"]);
    let m = merges(&ws, false).remove(0);
    let summary = m["reason"]["summary"].as_str().unwrap();
    assert!(summary.contains("keeps all 15 steps, commands and checks of both"), "{summary}");
    let diff = ws.run_ok(&["diff", "--candidate", &m["id"].to_string()]);
    assert!(
        diff.contains("# merge check: 15 steps, commands and checks of both skills, 0 dropped"),
        "{diff}"
    );
    assert!(diff.contains("  kept    command (release-flow) git tag v<version>"), "{diff}");
    assert!(diff.contains("  kept    step    (ship-it) Run `cargo publish`."), "{diff}");

    // A command's text that leaves some out is flagged, item by item.
    let (ws, m) = merge_by_command(
        "cat <<'EOF'\n---\nname: ship-it\ndescription: Ship or release the crate.\n---\n# Ship\n\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\nEOF\n",
    );
    let summary = m["reason"]["summary"].as_str().unwrap();
    assert!(summary.contains("DROPS 2 of 15 steps, commands and checks"), "{summary}");
    let diff = ws.run_ok(&["diff", "--candidate", &m["id"].to_string()]);
    assert!(
        diff.contains("  DROPPED step    (release-flow) Tag it: `git tag v<version>`."),
        "{diff}"
    );
    assert!(diff.contains("  DROPPED command (ship-it) cargo publish --dry-run"), "{diff}");
}

#[test]
fn an_archived_skill_takes_part_in_a_merge_and_stays_archived() {
    let ws = TestWorkspace::new();
    three_skills(&ws);
    ws.run_ok(&["archive", "release-flow"]);
    let sweep = ws.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_merges"], 1, "{sweep:#}");
    let m = merges(&ws, false).remove(0);
    assert_eq!(m["name"], "ship-it", "the live skill survives: {m:#}");
    let text = m["skill_md"].as_str().unwrap().to_string();
    assert!(text.contains("## Also (from release-flow)"), "{text}");
    let id = m["id"].to_string();
    ws.run_ok(&["approve", &id]);
    let status = |name: &str| ws.run_json(&["stats", name])["status"].clone();
    assert_eq!(status("release-flow"), "archived");
    assert_eq!(std::fs::read_to_string(ws.skills_dir().join("ship-it/SKILL.md")).unwrap(), text);
    // The absorbed guard: a full sweep proposes nothing more for it.
    let again = ws.run_json(&["sweep", "--full"]);
    assert_eq!(again["proposed_merges"], 0, "{again:#}");
    ws.run_ok(&["undo-approve", &id]);
    assert_eq!(status("release-flow"), "archived", "undoing leaves it where it was");
    assert_eq!(std::fs::read_to_string(ws.skills_dir().join("ship-it/SKILL.md")).unwrap(), SHIP);
}
