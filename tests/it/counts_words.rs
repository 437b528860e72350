//! One count and one word everywhere: what `ingest` says it found is what `candidates` lists,
//! the demo's summary counts the queue's rows, a workflow's evidence says the numbers its reason
//! gives, and the console's header, lessons and charts read right at any width.

use ratatui::layout::Rect;
use skilldeck::tui::Action;
use skilldeck::tui::state::{Pane, UiState};
use skilldeck::workspace::{Overrides, Workspace};

use crate::console::screen;
use crate::console_fixture::{populate, tempdir, workspace};
use crate::first_day::Demo;
use crate::support::{TestWorkspace, shared_data};

#[test]
fn ingest_counts_the_new_candidates_that_candidates_lists() {
    let Some(corpus) = shared_data("transcripts/bricerising__specify-poker") else { return };
    let tw = TestWorkspace::new();
    let said = tw.run_ok(&["ingest", corpus.to_str().unwrap()]);
    let line = said.lines().find(|l| l.starts_with("detection: ")).expect(&said);
    let listed = tw.run_json(&["candidates", "--all"]);
    let listed = listed.as_array().unwrap();
    let new = listed.iter().filter(|c| c["target_skill_id"].is_null()).count();
    let versions = listed.len() - new;
    let count =
        |n: usize, noun: &str| if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") };
    assert!(line.contains(&format!(", {} (", count(new, "new candidate"))), "{line}");
    assert!(line.ends_with(&count(versions, "proposed version")), "{line}");
}

#[test]
fn the_demo_summary_counts_the_queue_rows_it_shows() {
    let d = Demo::new();
    let open: Vec<serde_json::Value> = d.json(&["candidates"]).as_array().unwrap().clone();
    let open: Vec<&serde_json::Value> =
        open.iter().filter(|c| c["status"] == "candidate").collect();
    let versions = open.iter().filter(|c| !c["target_skill_id"].is_null()).count();
    let summary = d.ok(&["demo", "--no-console", "--dir", d.dir.to_str().unwrap()]);
    let want = format!(
        "detection: {} open candidates in the review queue ({versions} of them proposed versions",
        open.len()
    );
    assert!(summary.contains(&want), "{want}\n{summary}");
}

/// The demo's workspace, opened through the library as the console opens it.
fn demo_workspace(d: &Demo) -> Workspace {
    Workspace::open(&Overrides {
        config: Some(d.dir.join("config.toml")),
        db: Some(d.dir.join("skilldeck.db")),
        skills_dir: Some(d.dir.join("skills")),
    })
    .unwrap()
}

#[test]
fn a_workflow_s_evidence_says_the_numbers_its_reason_gives() {
    let d = Demo::new();
    let ws = demo_workspace(&d);
    let mut keys = Vec::new();
    let shown = loop {
        let s = screen(&ws, 120, 40, &keys);
        if s.contains("candidate #") && s.contains("│backup-database") {
            break s;
        }
        assert!(keys.len() < 8, "no backup-database row:\n{s}");
        keys.push(Action::Down);
    };
    assert!(shown.contains("done 6 times seen in 3 sessions"), "{shown}");
    assert!(shown.contains("Evidence: 6 occurrences in 3 sessions"), "{shown}");
    // The CLI's OCC column says the same.
    let list = d.ok(&["candidates"]);
    let row = list.lines().find(|l| l.ends_with("backup-database")).expect(&list);
    assert!(row.contains(" 6  workflow"), "{row}");
    // Claude Code's work is called so, not by the agent id "default".
    assert!(row.contains("Claude Code"), "{row}");
}

fn header(ws: &Workspace, width: u16, height: u16, keys: &[Action]) -> String {
    screen(ws, width, height, keys).lines().next().unwrap().to_string()
}

#[test]
fn every_tab_and_the_help_stay_on_a_narrow_header_and_clicks_follow_them() {
    let dir = tempdir();
    let ws = workspace(dir.path());
    populate(&ws);
    for (width, height) in [(120, 40), (80, 24), (60, 20), (40, 12)] {
        let top = header(&ws, width, height, &[]);
        for n in ["1 Queue", " 2", " 3", " 4"] {
            assert!(top.contains(n), "{width}x{height}: tab {n:?} lost: {top}");
        }
        assert!(top.contains(" ?"), "{width}x{height}: no help: {top}");
        if width >= 80 {
            assert!(top.contains("? help"), "{width}x{height}: {top}");
        }
    }
    // At 60 columns the Timeline tab is where it is drawn: a click there opens it.
    let top = header(&ws, 60, 20, &[]);
    let x = top.find(" 3").unwrap() + 2;
    let x = top[..x].chars().count() as u16 - 1;
    let mut ui = UiState::new(Rect::new(0, 0, 60, 20), false);
    let mut snap = skilldeck::engine::snapshot::Snapshot::for_workspace(&ws);
    skilldeck::engine::snapshot::refresh(&ws.store, &mut snap, &Default::default(), true).unwrap();
    ui.sync(&snap);
    ui.click(&snap, x, 0);
    assert_eq!(ui.pane, Pane::Timeline, "{top}");
}

#[test]
fn the_demo_s_six_tabs_stay_on_a_60_column_header() {
    let d = Demo::new();
    let ws = demo_workspace(&d);
    let top = header(&ws, 60, 20, &[]);
    for n in [" 2", " 3", " 4", " 5"] {
        assert!(top.contains(n), "tab {n:?} lost: {top}");
    }
    assert!(top.contains(" ?"), "{top}");
}

#[test]
fn a_skill_never_used_has_no_axis_of_uses() {
    let dir = tempdir();
    let ws = workspace(dir.path());
    populate(&ws);
    let mut keys = vec![Action::GoSkills];
    let shown = loop {
        let mut at = keys.clone();
        at.push(Action::GoTimeline);
        let s = screen(&ws, 100, 30, &at);
        if s.contains("pinned-notes") && s.contains("rolling success rate") {
            break s;
        }
        assert!(keys.len() < 9, "no timeline of pinned-notes:\n{s}");
        keys.push(Action::Down);
    };
    assert!(shown.contains("no uses yet"), "{shown}");
    assert!(!shown.contains("#0"), "{shown}");
}

/// The demo's two proposals for `db-backup` (a new version from its workflow, a trigger rewrite)
/// compose: whichever is approved first, approving the other keeps what the first added.
#[test]
fn two_proposals_for_one_skill_both_survive_either_order() {
    for first_trigger in [false, true] {
        let d = Demo::new();
        let open = d.json(&["candidates"]);
        let for_backup = |source: &str| {
            open.as_array()
                .unwrap()
                .iter()
                .find(|c| c["target_skill_name"] == "db-backup" && c["source"] == source)
                .map(|c| c["id"].as_i64().unwrap().to_string())
                .unwrap_or_else(|| panic!("no {source} proposal for db-backup: {open:#}"))
        };
        let (workflow, trigger) = (for_backup("workflow"), for_backup("trigger"));
        let order = if first_trigger { [&trigger, &workflow] } else { [&workflow, &trigger] };
        d.ok(&["approve", order[0]]);
        let diff = d.ok(&["diff", "--candidate", order[1]]);
        if first_trigger {
            // The new version keeps the approved rewrite's quotes in its description.
            let added = diff.lines().find(|l| l.starts_with("+description:")).expect(&diff);
            assert!(added.contains("Use it for requests like:"), "{diff}");
        } else {
            // The rewrite now changes only the description of the text the version made live.
            let removed: Vec<&str> =
                diff.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
            assert!(removed.iter().all(|l| l.starts_with("-description:")), "{diff}");
        }
        d.ok(&["approve", order[1]]);
        let live = std::fs::read_to_string(d.dir.join("skills/db-backup/SKILL.md")).unwrap();
        assert!(live.contains("pg_dump"), "the workflow's steps stay:\n{live}");
        assert!(live.contains("Use it for requests like:"), "the quoted requests stay:\n{live}");
    }
}
