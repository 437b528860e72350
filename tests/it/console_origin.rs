//! Changes have an origin: a recorded outcome is judged as it is written (one event, shown by
//! the console at once, with no sweep), and the file events of the engine's own writes are not
//! taken for outside edits.

use std::time::{Duration, Instant};

use skilldeck::engine::{self, CandidateId, Command, EngineOptions, Op, SkillId, Subject, Update};

use super::console_fixture::{populate, tempdir, workspace};
use super::console_live::Live;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_from_the_command_line_shows_its_new_state_at_once_with_one_event() {
    // A quiet engine: no timer, no watcher, so only the record itself can change the state.
    let live = Live::start().await;
    live.press("2");
    live.wait_for("healthy           deploy-docs").await;
    let events = || {
        live.query("SELECT COUNT(*) || '' FROM skill_events WHERE skill_id = 1 AND kind = 'status'")
    };
    assert_eq!(events(), "0");
    for _ in 0..2 {
        let said = live.cli(&["record", "deploy-docs", "failure"]);
        assert!(!said.contains('→'), "{said}");
    }
    let said = live.cli(&["record", "deploy-docs", "failure"]);
    assert!(said.contains("deploy-docs: healthy → degraded"), "{said}");
    live.wait_for("degraded          deploy-docs").await;
    assert_eq!(events(), "1");
    assert_eq!(live.cli(&["audit", "--json"]).matches("\"degraded\"").count(), 2);
    live.quit().await;
}

/// Busy texts and results the engine sends until `until` says stop (or ten seconds pass).
async fn collect(
    handle: &mut engine::EngineHandle,
    seen: &mut Vec<String>,
    until: impl Fn(&str) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Some(update)) = tokio::time::timeout(left, handle.updates.recv()).await else {
            panic!("no update ended the wait; seen: {seen:?}");
        };
        let text = match update {
            Update::Busy(t) => format!("busy {t}"),
            Update::Done(t) | Update::Note(t) | Update::Failed(t) => t,
            Update::Snapshot(_) | Update::Progress(_) => continue,
        };
        let stop = until(&text);
        seen.push(text);
        if stop {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engines_own_writes_are_not_read_back_as_outside_edits() {
    let dir = tempdir();
    let ws = workspace(dir.path());
    populate(&ws);
    let skills = ws.paths.skills_dir.clone();
    let options = EngineOptions {
        watch: true,
        debounce: Duration::from_millis(100),
        ..EngineOptions::quiet()
    };
    let mut handle = engine::spawn(ws, options).unwrap();
    let mut judged = handle.skill_files.subscribe();
    let mut seen = Vec::new();
    collect(&mut handle, &mut seen, |t| t.starts_with("watching")).await;
    fn target<Id>(id: Id, name: &str) -> Subject<Id> {
        Subject { id, agent: "default".into(), name: name.into(), seen: None }
    }
    // Promote writes a new skill folder; archive moves one out of the live folder.
    let promote = Op::Promote(target(CandidateId(1), "summarize-pr"));
    handle.commands.send(Command::Op(promote)).unwrap();
    collect(&mut handle, &mut seen, |t| t.starts_with("promoted")).await;
    handle.commands.send(Command::Op(Op::Archive(target(SkillId(1), "deploy-docs")))).unwrap();
    collect(&mut handle, &mut seen, |t| t.starts_with("archived")).await;
    // The file events of both have come and been judged before the edit below.
    let mut pending = vec![skills.join("summarize-pr"), skills.join("deploy-docs")];
    while !pending.is_empty() {
        let batch = tokio::time::timeout(Duration::from_secs(10), judged.recv())
            .await
            .unwrap_or_else(|_| panic!("no file events for {pending:?}"))
            .unwrap();
        pending.retain(|folder| !batch.iter().any(|p| p.starts_with(folder)));
    }
    // An edit from outside is still read, as the one scan.
    let file = skills.join("flaky-sync/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nEdited by hand.\n")).unwrap();
    collect(&mut handle, &mut seen, |t| t.contains("recorded as new versions")).await;
    let scans = seen.iter().filter(|t| t.as_str() == "busy reading edited skills…").count();
    assert_eq!(scans, 1, "only the outside edit is scanned: {seen:?}");
    // A hand edit of a folder the engine has just written is not taken for its echo.
    handle.commands.send(Command::Op(Op::Promote(target(CandidateId(2), "triage-issue")))).unwrap();
    collect(&mut handle, &mut seen, |t| t.starts_with("promoted")).await;
    let file = skills.join("triage-issue/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nEdited at once.\n")).unwrap();
    collect(&mut handle, &mut seen, |t| t.contains("recorded as new versions")).await;
}
