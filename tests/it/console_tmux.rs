//! End to end: the real binary in a tmux session, keys sent with `send-keys`, the screen read
//! with `capture-pane`, and the database checked afterwards.

use std::process::Command;
use std::time::{Duration, Instant};

use skilldeck::store::Store;

use super::console_fixture::{populate, tempdir, workspace, write_config};

pub(crate) fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("run tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `command` in a new detached tmux session named `name`, `width`×`height`. tmux's server
/// exits when its last session ends: a session started as another test's last one is killed can
/// reach that server as it goes and fail to start, so a start that failed is tried again.
pub(crate) fn start_session(name: &str, width: u16, height: u16, command: &str) -> Session {
    let (w, h) = (width.to_string(), height.to_string());
    let mut said = String::new();
    for _ in 0..5 {
        let out = Command::new("tmux")
            .args(["new-session", "-d", "-s", name, "-x", &w, "-y", &h, command])
            .output()
            .expect("start tmux");
        let started = out.status.success()
            || Command::new("tmux")
                .args(["has-session", "-t", name])
                .status()
                .is_ok_and(|s| s.success());
        if started {
            return Session(name.to_string());
        }
        said = String::from_utf8_lossy(&out.stderr).into_owned();
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("tmux could not start session {name}: {said}");
}

pub(crate) fn tmux_available() -> bool {
    Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success())
}

pub(crate) struct Session(pub String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.0]).output();
    }
}

/// How long a real terminal may take to show something under a loaded test run (a failure guard:
/// the pane is read every 50 ms and the wait ends as soon as it shows).
const PANE_DEADLINE: Duration = Duration::from_secs(45);

pub(crate) fn wait_for_pane(session: &str, text: &str) -> String {
    let deadline = Instant::now() + PANE_DEADLINE;
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        if screen.contains(text) {
            return screen;
        }
        assert!(Instant::now() < deadline, "pane never showed {text:?}:\n{screen}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A populated workspace with its config for a console run in tmux; `None` (after saying why)
/// where tmux is missing, which fails under CI.
fn tmux_workspace() -> Option<tempfile::TempDir> {
    if !tmux_available() {
        assert!(std::env::var_os("CI").is_none(), "tmux is required in CI (.ci/run installs it)");
        crate::support::skip("tmux is not installed");
        return None;
    }
    let dir = tempdir();
    populate(&workspace(dir.path()));
    write_config(dir.path());
    Some(dir)
}

#[test]
fn console_in_tmux_promotes_by_keypress() {
    let Some(dir) = tmux_workspace() else { return };
    let root = dir.path();
    // A transcript for the start-up pass: the same task succeeding three times (a streak).
    let transcript = root.join("transcripts/agent/trajectory.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let lines: String = (1..=3)
        .map(|n| {
            format!(
                "{{\"user_input\": \"rotate the logs on host {n}\", \"outcome\": \"success\", \
                 \"timestamp\": \"2026-01-20T10:0{n}:00Z\"}}\n"
            )
        })
        .collect();
    std::fs::write(&transcript, lines).unwrap();
    let name = format!("skilldeck-test-{}", uuid::Uuid::new_v4().simple());
    let command = format!(
        "NO_COLOR=1 {} --db {} --skills-dir {} --config {}",
        env!("CARGO_BIN_EXE_skilldeck"),
        root.join("skilldeck.db").display(),
        root.join("skills").display(),
        root.join("config.toml").display(),
    );
    let session = start_session(&name, 100, 30, &command);

    wait_for_pane(&session.0, "summarize-pr");
    // The start-up pass (ingest, detect, sweep) must finish before the person's keys queue up.
    wait_for_pane(&session.0, "read 1 file, 3 new turns; 1 new candidate");
    wait_for_pane(&session.0, "Review queue (4)");
    tmux(&["send-keys", "-t", &session.0, "p"]);
    wait_for_pane(&session.0, "promoted summarize-pr");
    tmux(&["send-keys", "-t", &session.0, "2"]);
    let skills = wait_for_pane(&session.0, "Skills (8)");
    assert!(skills.contains("summarize-pr"), "{skills}");
    // Enter opens the selected skill's detail (packages::detail and its versions).
    tmux(&["send-keys", "-t", &session.0, "Enter"]);
    let detail = wait_for_pane(&session.0, "Artifacts (0)");
    assert!(detail.contains("account scope") && detail.contains("Versions"), "{detail}");
    tmux(&["send-keys", "-t", &session.0, "Escape"]);
    wait_for_pane(&session.0, "Enter open · / f filter");
    tmux(&["send-keys", "-t", &session.0, "?"]);
    wait_for_pane(&session.0, "keys (Esc closes)");
    tmux(&["send-keys", "-t", &session.0, "Escape"]);
    // Escape read together with the q after it is Alt-q: q goes once the help has closed.
    let deadline = Instant::now() + PANE_DEADLINE;
    while tmux(&["capture-pane", "-p", "-t", &session.0]).contains("keys (Esc closes)") {
        assert!(Instant::now() < deadline, "Escape did not close the help");
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux(&["send-keys", "-t", &session.0, "q"]);
    let deadline = Instant::now() + PANE_DEADLINE;
    while tmux(&["list-sessions", "-F", "#{session_name}"]).contains(&session.0) {
        assert!(Instant::now() < deadline, "the console did not quit on q");
        std::thread::sleep(Duration::from_millis(50));
    }

    let store = Store::open(&root.join("skilldeck.db")).unwrap();
    let status: String = store
        .conn()
        .query_row("SELECT status FROM skill_candidates WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "promoted");
    assert!(root.join("skills/summarize-pr/SKILL.md").is_file());
    let detected: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM turns t WHERE complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(detected, 3, "the start-up pass ingested and detected the transcript");
}

#[test]
fn without_a_terminal_the_console_says_so_and_bare_skilldeck_prints_help() {
    let tw = super::support::TestWorkspace::new();
    let out = tw.run(&["console"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the console needs a terminal"), "{err}");
    let help = tw.run_ok(&[]);
    assert!(help.contains("console"), "{help}");
}

#[test]
fn e_hands_the_terminal_to_the_editor_and_takes_it_back() {
    let Some(dir) = tmux_workspace() else { return };
    let root = dir.path();
    // An editor that reads a line typed at the terminal and appends it: keys the console read
    // instead would act on the queue (p promotes, d dismisses).
    let editor = root.join("line-editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'EDITOR OPEN\\n'\nIFS= read -r line\nprintf '%s\\n' \"$line\" >> \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let name = format!("skilldeck-test-{}", uuid::Uuid::new_v4().simple());
    let command = format!(
        "NO_COLOR=1 VISUAL={} {} --db {} --skills-dir {} --config {}",
        editor.display(),
        env!("CARGO_BIN_EXE_skilldeck"),
        root.join("skilldeck.db").display(),
        root.join("skills").display(),
        root.join("config.toml").display(),
    );
    let session = start_session(&name, 100, 30, &command);
    wait_for_pane(&session.0, "summarize-pr");
    wait_for_pane(&session.0, "Review queue (3)");
    tmux(&["send-keys", "-t", &session.0, "e"]);
    let editor_screen = wait_for_pane(&session.0, "EDITOR OPEN");
    assert!(
        !editor_screen.contains("Review queue"),
        "the console kept the screen:\n{editor_screen}"
    );
    tmux(&["send-keys", "-t", &session.0, "-l", "pd Post it in the channel"]);
    tmux(&["send-keys", "-t", &session.0, "Enter"]);
    // Back in the console, redrawn whole, with the draft as saved.
    wait_for_pane(&session.0, "back from the editor");
    wait_for_pane(&session.0, "Review queue (3)");
    let staged = std::fs::read_to_string(root.join("staging/summarize-pr/SKILL.md")).unwrap();
    assert!(staged.ends_with("pd Post it in the channel\n"), "{staged}");
    // Keys go to the console again.
    tmux(&["send-keys", "-t", &session.0, "p"]);
    wait_for_pane(&session.0, "promoted summarize-pr");
    let live = std::fs::read_to_string(root.join("skills/summarize-pr/SKILL.md")).unwrap();
    assert!(live.ends_with("pd Post it in the channel\n"), "{live}");
    let store = Store::open(&root.join("skilldeck.db")).unwrap();
    let dismissed: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM skill_candidates WHERE status = 'dismissed'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(dismissed, 0, "no key typed into the editor reached the console");
    tmux(&["send-keys", "-t", &session.0, "q"]);
}

#[test]
fn a_locked_database_at_start_is_said_at_once_and_the_console_opens_once_it_is_free() {
    let Some(dir) = tmux_workspace() else { return };
    let root = dir.path();
    let db = root.join("skilldeck.db");
    // Raw SQL: a foreign process's write lock, which no library door takes and holds.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE; UPDATE skills SET updated_at = updated_at;").unwrap();
    let name = format!("skilldeck-test-{}", uuid::Uuid::new_v4().simple());
    let command = format!(
        "NO_COLOR=1 {} --db {} --skills-dir {} --config {}; sleep 30",
        env!("CARGO_BIN_EXE_skilldeck"),
        db.display(),
        root.join("skills").display(),
        root.join("config.toml").display(),
    );
    let session = start_session(&name, 120, 30, &command);
    let started = Instant::now();
    let screen = wait_for_pane(&session.0, "is locked by another process");
    assert!(started.elapsed() < Duration::from_secs(5), "said late:\n{screen}");
    assert!(screen.contains(&db.display().to_string()), "{screen}");
    other.execute_batch("ROLLBACK").unwrap();
    wait_for_pane(&session.0, "summarize-pr");
    tmux(&["send-keys", "-t", &session.0, "q"]);
}
