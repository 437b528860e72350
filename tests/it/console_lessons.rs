//! The Lessons pane driven by keys, with the real engine: a recurring fix found by an ingest
//! the console runs, approved, pinned and dismissed by keys, with the store and the playbook
//! following.

use super::console_live::Live;
use super::lessons::{claude, release_session};

/// Two release sessions ingested by `i`, and the Lessons pane open on what they taught.
async fn two_lessons_shown(live: &Live) {
    let dir = live.root.join("transcripts/shop");
    claude(&dir, 1, &release_session("feat-cart"));
    claude(&dir, 2, &release_session("fix-tax"));
    live.press("i");
    live.wait_for("5 Lessons (2)").await;
    live.press("5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lessons_are_reviewed_with_keys_and_reach_the_playbook() {
    let live = Live::start().await;
    let screen = live.backend.screen();
    assert!(!screen.contains("Lessons"), "no tab before there is a lesson:\n{screen}");
    two_lessons_shown(&live).await;
    let screen = live.wait_for("Lessons (2 to review)").await;
    assert!(screen.contains("proposed  running `git commit`"), "{screen}");
    let screen = live.wait_for("Do     run `git push --set-upstream origin <branch>`").await;
    assert!(screen.contains("Agent  git push 2>&1"), "the evidence in context:\n{screen}");
    assert!(screen.contains("Then   git push --set-upstream origin fix-tax 2>&1"), "{screen}");

    live.press("a");
    live.wait_for("lesson #").await;
    live.wait_for("5 Lessons (1)").await;
    let id = live.query("SELECT id || '' FROM lessons WHERE trigger_step = 'sh:git push'");
    assert_eq!(live.query(&format!("SELECT status FROM lessons WHERE id = {id}")), "approved");
    // The row is approved before the playbook is rewritten (the job marks it pending first):
    // the file is read once the job says it is done, which it says after writing it.
    live.wait_for("is approved: in the playbook").await;
    let skill_md = live.root.join("skills/lessons-playbook/SKILL.md");
    let want = "- Do: run `git push --set-upstream origin <branch>` instead";
    let text = std::fs::read_to_string(&skill_md).unwrap();
    assert!(text.contains(want), "{text}");
    // Never measured reads "no data", not 0 of 0.
    let screen = live.wait_for("helped: no data yet").await;
    assert!(screen.contains("before approval: 2 of 2 turns, after: no data"), "{screen}");

    live.press("P");
    live.wait_for("is pinned: in the playbook").await;
    assert_eq!(live.query(&format!("SELECT status FROM lessons WHERE id = {id}")), "pinned");
    live.press("d");
    live.wait_for("is dismissed: not in the playbook").await;
    let text = std::fs::read_to_string(&skill_md).unwrap();
    assert!(!text.contains("set-upstream"), "{text}");
    live.press("O");
    live.wait_for("is proposed: not in the playbook").await;
    live.quit().await;
}

/// After `a` the playbook is a skill in the Skills pane at once; `u` takes the decision back;
/// the next sweep and `validate` leave skilldeck's own playbook alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_playbook_shows_at_once_a_lesson_decision_undoes_and_sweep_leaves_it_alone() {
    let live = Live::start().await;
    two_lessons_shown(&live).await;
    live.wait_for("Do     run `git push --set-upstream origin <branch>`").await;
    live.press("a");
    live.wait_for("5 Lessons (1)").await;
    live.press("2");
    live.wait_for("lessons-playbook").await;

    live.press("5");
    live.wait_for("Lessons (1 to review)").await;
    live.press("u");
    live.wait_for("Undo your last change, set lesson #").await;
    live.press("y");
    live.wait_for("undid the decision on lesson #").await;
    live.wait_for("5 Lessons (2)").await;
    let approved = live.query("SELECT count(*) || '' FROM lessons WHERE status = 'approved'");
    assert_eq!(approved, "0");
    let text = std::fs::read_to_string(live.root.join("skills/lessons-playbook/SKILL.md")).unwrap();
    assert!(!text.contains("set-upstream"), "{text}");

    // Approved again, then judged by the command line like any sweep.
    live.press("a");
    live.wait_for("5 Lessons (1)").await;
    let sweep = live.cli(&["sweep", "--full", "--json"]);
    assert!(!sweep.contains("lessons-playbook"), "the playbook is not judged: {sweep}");
    let validate = live.cli(&["validate", live.root.join("skills").to_str().unwrap()]);
    assert!(!validate.contains("lessons-playbook"), "{validate}");
    live.quit().await;
}
