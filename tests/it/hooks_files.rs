//! `hooks install|uninstall|status` and the user's files: modes, links, a FIFO, a look-alike
//! hook, an older hook of ours, and the project scope's personal file.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{TestWorkspace, describe};

const USER: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"~/bin/skilldeck-notify ingest --hook\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";

fn hooks(ws: &TestWorkspace, project: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["hooks"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--agent", "claude", "--scope", "project", "--project"]);
    all.push(project.to_str().unwrap());
    ws.run(&all)
}

fn ok(ws: &TestWorkspace, project: &Path, args: &[&str]) -> String {
    let out = hooks(ws, project, args);
    assert!(out.status.success(), "{args:?}:\n{}", describe(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn local(project: &Path) -> std::path::PathBuf {
    project.join(".claude/settings.local.json")
}

#[test]
fn a_private_file_keeps_its_mode_and_so_does_its_backup() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let path = local(project.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, USER).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&ws, project.path(), &["install"]);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&crate::hooks_files::backup(&path)), 0o600);
}

pub fn backup(path: &Path) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap().to_os_string();
    name.push(".skilldeck-backup");
    path.with_file_name(name)
}

#[test]
fn a_linked_settings_file_is_written_through_its_link() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let real = project.path().join("dotfiles/claude.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, USER).unwrap();
    let path = local(project.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &path).unwrap();
    ok(&ws, project.path(), &["install"]);
    assert!(path.symlink_metadata().unwrap().file_type().is_symlink(), "still a link");
    assert!(std::fs::read_to_string(&real).unwrap().contains("SessionEnd"));
    ok(&ws, project.path(), &["uninstall"]);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), USER);
}

#[test]
fn uninstall_leaves_a_look_alike_hook_and_the_shared_file_alone() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let shared = project.path().join(".claude/settings.json");
    std::fs::create_dir_all(shared.parent().unwrap()).unwrap();
    std::fs::write(&shared, "{\"model\": \"opus\"}\n").unwrap();
    std::fs::write(local(project.path()), USER).unwrap();
    ok(&ws, project.path(), &["install"]);
    // The project's shared settings get no personal path.
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "{\"model\": \"opus\"}\n");
    let status = ok(&ws, project.path(), &["status", "--json"]);
    assert!(status.contains("settings.local.json"), "{status}");
    ok(&ws, project.path(), &["uninstall"]);
    assert_eq!(std::fs::read_to_string(local(project.path())).unwrap(), USER);
}

#[test]
fn an_older_hook_of_ours_is_pointed_at_this_command() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let old = "{\"hooks\": {\"SessionEnd\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/old/skilldeck --db /old/db ingest --hook\"}]}]}}\n";
    std::fs::create_dir_all(local(project.path()).parent().unwrap()).unwrap();
    std::fs::write(local(project.path()), old).unwrap();
    ok(&ws, project.path(), &["install"]);
    let v: Value = serde_json::from_slice(&std::fs::read(local(project.path())).unwrap()).unwrap();
    for event in ["SessionEnd", "Stop"] {
        let cmd = v["hooks"][event][0]["hooks"][0]["command"].as_str().unwrap();
        assert!(!cmd.contains("/old/"), "{event} still runs {cmd}");
        assert!(cmd.contains(&ws.db().to_string_lossy().into_owned()), "{event}: {cmd}");
    }
}

#[test]
fn a_fifo_as_settings_is_refused_at_once() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let path = local(project.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for args in [&["install"][..], &["status"], &["uninstall"]] {
        let start = Instant::now();
        let out = hooks(&ws, project.path(), args);
        assert!(start.elapsed() < Duration::from_secs(10), "{args:?} hung");
        assert!(!out.status.success(), "{args:?}:\n{}", describe(&out));
        assert!(String::from_utf8_lossy(&out.stderr).contains("a FIFO"), "{}", describe(&out));
    }
}

/// A writer that keeps the hook's stdin open (`sleep 25 | skilldeck ingest --hook`) holds it no
/// longer than its time limit.
#[test]
fn the_hook_time_limit_covers_reading_stdin() {
    let ws = TestWorkspace::new();
    std::fs::write(ws.config(), "[hooks]\ntime_limit_secs = 1\n").unwrap();
    let mut child =
        ws.cmd().args(["ingest", "--hook"]).stdin(std::process::Stdio::piped()).spawn().unwrap();
    let _stdin = child.stdin.take();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > Duration::from_secs(15) {
            child.kill().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let status = status.expect("the hook still waits on stdin past its limit");
    assert!(status.success());
    assert!(start.elapsed() < Duration::from_secs(8), "took {:?}", start.elapsed());
}

/// A `--db` that is no database file says what it is, at once.
#[test]
fn a_database_path_that_is_no_file_says_what_it_is() {
    let ws = TestWorkspace::new();
    let fifo = ws.root().join("db.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let folder = ws.root().join("db.dir");
    std::fs::create_dir_all(&folder).unwrap();
    let dangling = ws.root().join("db.link");
    std::os::unix::fs::symlink(ws.root().join("gone/x.db"), &dangling).unwrap();
    for (db, says) in [(&fifo, "a FIFO"), (&folder, "a folder"), (&dangling, "does not exist")] {
        for args in [&["audit"][..], &["sweep"]] {
            let start = Instant::now();
            let out = ws.cmd().args(args).arg("--db").arg(db).output().unwrap();
            assert!(start.elapsed() < Duration::from_secs(10), "{args:?} --db {db:?} hung");
            assert!(!out.status.success());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(says) && !err.contains("read-only"), "{args:?} {db:?}: {err}");
        }
    }
}

/// A one-line settings file is edited in place: it stays on one line in its own spacing, a
/// number beyond 64 bits keeps its digits, and uninstall gives back every byte.
#[test]
fn a_compact_file_is_edited_in_place_and_given_back_byte_for_byte() {
    for original in [
        "{\"model\":\"opus\",\"big\":123456789012345678901234567890,\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"say done\"}]}]}}",
        "{\"model\": \"opus\", \"ratio\": 1.50, \"id\": 18446744073709551616}\n",
        "{}",
    ] {
        let ws = TestWorkspace::new();
        let project = tempfile::tempdir().unwrap();
        let path = local(project.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, original).unwrap();
        ok(&ws, project.path(), &["install"]);
        let text = std::fs::read_to_string(&path).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(v["hooks"]["SessionEnd"].is_array() && v["hooks"]["Stop"].is_array(), "{text}");
        if original != "{}" {
            assert_eq!(text.trim_end().lines().count(), 1, "kept on one line: {text}");
            let head = &original[..original.find("\"hooks\"").unwrap_or(original.len() - 1)];
            assert!(text.starts_with(head.trim_end_matches(['}', '\n'])), "{text}");
        }
        for digits in ["123456789012345678901234567890", "18446744073709551616", "1.50"] {
            assert_eq!(original.contains(digits), text.contains(digits), "{digits} in {text}");
        }
        ok(&ws, project.path(), &["uninstall"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    }
}

/// Uninstall without a backup deletes the file only when it is what install created from
/// nothing; a file the user has written to since stays, with their settings.
#[test]
fn uninstall_without_a_backup_keeps_what_the_user_added() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let path = local(project.path());
    ok(&ws, project.path(), &["install"]);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen('{', "{\n  \"model\": \"opus\",", 1);
    std::fs::write(&path, &edited).unwrap();
    ok(&ws, project.path(), &["uninstall"]);
    let left: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(left, serde_json::json!({"model": "opus"}));
}
