//! The Procedures pane driven by keys, with the real engine: a slash command run as the request
//! in five sessions and a skill read in each, ingested by `i`, show as a tab and rows with their
//! health; the detail says where each is defined, what it runs and what the person keeps asking
//! after it, with the transcript's text made safe for the terminal.

use serde_json::json;
use skilldeck::engine::EngineOptions;
use skilldeck::synth::transcripts::{Call, Turn, call, failing};
use skilldeck::tui::keys::KeyMap;

use super::console_live::Live;
use super::lessons::claude;

fn bash(cmd: &str, ok: bool) -> Call {
    let input = json!({"command": cmd});
    if ok { call("Bash", input) } else { failing("Bash", input) }
}

fn read(path: &str) -> Call {
    call("Read", json!({"file_path": path}))
}

/// A skill the agent reads in every session: a procedure too, defined where it was read.
const CHANGELOG_SKILL: &str = "/work/shop/.claude/skills/changelog/SKILL.md";

fn turn(prompt: &str, calls: Vec<Call>) -> Turn {
    Turn { prompt: prompt.to_string(), calls, reply: "Done." }
}

/// A session run by `/release 1.N.0` whose tag push fails unless `ok`, then the changelog asked
/// for (with an escape sequence a terminal would act on) and thanks.
fn release_session(n: i64, ok: bool) -> Vec<Turn> {
    vec![
        turn(
            &format!("/release 1.{n}.0"),
            vec![bash("cargo test", true), bash(&format!("git push origin v1.{n}.0"), ok)],
        ),
        turn(
            "now update the changelog \u{1b}]2;pwned\u{7}",
            vec![read(CHANGELOG_SKILL), bash("git log -5", true)],
        ),
        turn("thanks", vec![]),
    ]
}

/// Five release sessions written where the console watches, and ingested by `i`.
fn five_releases(live: &Live) {
    let dir = live.root.join("transcripts/shop");
    // Three of the five releases fail: 2/5 is 40%, the rate at which a skill is in warning.
    for n in 1..=5 {
        claude(&dir, n, &release_session(n, n % 2 == 0));
    }
    live.press("i");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn procedures_show_as_a_tab_with_their_health_definition_and_follow_ups() {
    let live = Live::start().await;
    let screen = live.backend.screen();
    assert!(!screen.contains("Procedures"), "no tab before there is a procedure:\n{screen}");
    five_releases(&live);
    live.wait_for("7 Procedures (2)").await;
    // The pass ends with lessons: what is asked after `/release` in every session is one.
    live.wait_for("5 Lessons (").await;
    live.press("7");
    // Most runs first, then by name: the skill read in all five sessions, every run ok.
    let screen = live.wait_for("┌ Procedures (2)").await;
    let row = |screen: &str, name: &str| -> String {
        screen.lines().find(|l| l.contains(&format!(" {name} "))).unwrap_or_default().to_string()
    };
    let changelog = row(&screen, "changelog");
    for want in ["healthy", "skill", "   5", "5/5 ok", "2026-03-02"] {
        assert!(changelog.contains(want), "the row shows {want:?}: {changelog}\n{screen}");
    }
    let release = row(&screen, "release");
    for want in ["warning", "slash-command", "   5", "2/5 ok", "2026-03-02"] {
        assert!(release.contains(want), "the row shows {want:?}: {release}\n{screen}");
    }
    // Where it is defined, as the project sees it; `y` copies it.
    let defined = ".claude/skills/changelog/SKILL.md";
    assert!(screen.contains(&format!("Defined {defined}")), "{screen}");
    live.press("y");
    live.wait_for(&format!("copied {defined}")).await;
    assert_eq!(*live.copied.lock().unwrap(), vec![defined.to_string()]);

    live.press("j");
    let screen = live.wait_for("┌ release ").await;
    assert!(screen.contains("Runs    /release"), "{screen}");
    assert!(screen.contains("Health  warning: 2 of 5 runs ended well (40%) ≤ 40%"), "{screen}");
    let asked = "Asked after it in 5 sessions: now update the changelog \\x1b]2;pwned\\x07";
    assert!(screen.contains(asked), "the follow-up, escaped:\n{screen}");
    assert!(!screen.contains('\u{1b}'), "no raw escape reaches the terminal");
    // The status line says what the engine is busy with, which varies: the panes are compared.
    let lines: Vec<&str> = screen.lines().collect();
    let panes = lines[..lines.len() - 1].join("\n");
    insta::assert_snapshot!("procedures_100x30", live.redact(&panes));

    // The keys that change skills do not reach one behind the pane.
    live.press("x");
    live.wait_for("procedures are only read here").await;
    assert_eq!(live.query("SELECT status FROM skills WHERE name = 'deploy-docs'"), "healthy");
    live.quit().await;
}

/// The help overlay lists the key, and the key opens the pane even before there is a
/// procedure, saying what will show there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_procedures_key_is_in_the_help_and_opens_an_empty_pane_that_says_why() {
    let live = Live::start().await;
    live.press("?");
    let screen = live.wait_for("switch pane").await;
    let row = screen.lines().find(|l| l.contains("switch pane")).unwrap_or_default();
    assert!(row.contains("5 6 7"), "{row}");
    live.press("?7");
    let screen = live.wait_for("No procedures seen yet.").await;
    assert!(screen.contains("7 Procedures (0)"), "the open pane's tab:\n{screen}");
    live.quit().await;
}

/// Under 70 columns a row keeps its state, name, runs and health whole; the kind and the last
/// run give way, and the detail still says them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_narrow_console_keeps_the_name_and_health_of_each_procedure() {
    let live = Live::start_at(EngineOptions::quiet(), KeyMap::default(), 60, 24).await;
    // The tab bar is wider than 60 columns: the pane is opened by its key.
    live.press("7");
    live.wait_for("No procedures seen yet.").await;
    five_releases(&live);
    live.wait_for("┌ Procedures (2)").await;
    live.press("j");
    let screen = live.wait_for("┌ release ").await;
    let row = screen.lines().find(|l| l.contains(" release ")).unwrap_or_default();
    assert!(row.contains("│warning    release "), "{row}\n{screen}");
    assert!(row.contains("   5 2/5 ok"), "{row}\n{screen}");
    assert!(!row.contains("slash-command"), "{row}\n{screen}");
    assert!(screen.contains("slash-command · agent default · 5 runs"), "{screen}");
    live.quit().await;
}
