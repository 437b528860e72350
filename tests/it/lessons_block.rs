//! The managed lessons block in a person's CLAUDE.md / AGENTS.md as a careful editor: markers
//! that do not pair are refused, fenced examples and other workspaces' blocks are left alone,
//! links inside the project are written through (never one out of it), only regular files are
//! read, line endings and empty files are kept, and a decision killed half way is completed by
//! the next command.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::lessons::two_release_sessions;
use crate::support::{TestWorkspace, describe};

fn project(ws: &TestWorkspace, name: &str) -> PathBuf {
    let dir = ws.root().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lessons(ws: &TestWorkspace, args: &[&str], dir: &Path) -> std::process::Output {
    let mut all = vec!["lessons"];
    all.extend_from_slice(args);
    all.extend(["--project", dir.to_str().unwrap()]);
    ws.run(&all)
}

fn ok(ws: &TestWorkspace, args: &[&str], dir: &Path) -> String {
    let out = lessons(ws, args, dir);
    assert!(out.status.success(), "lessons {args:?}:\n{}", describe(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn an_unmatched_marker_is_refused_and_the_users_lines_stay() {
    let ws = TestWorkspace::new();
    let dir = project(&ws, "p");
    let claude = dir.join("CLAUDE.md");
    std::fs::write(&claude, "# P\n").unwrap();
    ok(&ws, &["install"], &dir);
    let with = read(&claude);
    let end = with.lines().find(|l| l.contains("skilldeck:lessons:end")).unwrap().to_string();
    let edited = format!("{}mine one\nmine two\n", with.replace(&format!("{end}\n"), ""));
    std::fs::write(&claude, &edited).unwrap();
    for args in [&["install"][..], &["uninstall"]] {
        let out = lessons(&ws, args, &dir);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} accepted an unmatched marker");
        assert!(err.contains("CLAUDE.md") && err.contains("no end marker"), "{err}");
        assert_eq!(read(&claude), edited, "{args:?} changed the file");
    }
}

#[test]
fn fenced_examples_are_not_markers_and_two_workspaces_keep_two_blocks() {
    let (a, b) = (TestWorkspace::new(), TestWorkspace::new());
    let dir = project(&a, "p");
    let claude = dir.join("CLAUDE.md");
    let original = "# P\n\nThe block looks like:\n```md\n<!-- skilldeck:lessons:begin (written by skilldeck; edit outside these markers) -->\n...\n<!-- skilldeck:lessons:end -->\n```\nend of my notes\n";
    std::fs::write(&claude, original).unwrap();
    ok(&a, &["install"], &dir);
    let after_a = read(&claude);
    assert!(
        after_a.starts_with(original),
        "the fenced example was taken for the block:\n{after_a}"
    );
    ok(&b, &["install"], &dir);
    let after_b = read(&claude);
    assert!(after_b.starts_with(&after_a), "workspace b took a's block:\n{after_b}");
    assert_eq!(after_b.matches("skilldeck:lessons:begin ws=").count(), 2, "{after_b}");
    ok(&a, &["uninstall"], &dir);
    let left = read(&claude);
    assert_eq!(left.matches("skilldeck:lessons:begin ws=").count(), 1, "{left}");
    assert!(left.starts_with(original), "{left}");
    ok(&b, &["uninstall"], &dir);
    assert_eq!(read(&claude), original);
}

#[test]
fn links_are_written_through_and_empty_or_crlf_files_are_kept() {
    let ws = TestWorkspace::new();
    // CLAUDE.md → AGENTS.md in the project.
    let dir = project(&ws, "linked");
    std::fs::write(dir.join("AGENTS.md"), "# Agents\n").unwrap();
    symlink("AGENTS.md", dir.join("CLAUDE.md")).unwrap();
    ok(&ws, &["install"], &dir);
    assert!(std::fs::symlink_metadata(dir.join("CLAUDE.md")).unwrap().file_type().is_symlink());
    assert!(read(&dir.join("AGENTS.md")).contains("skilldeck:lessons:begin"));
    ok(&ws, &["uninstall"], &dir);
    assert!(std::fs::symlink_metadata(dir.join("CLAUDE.md")).unwrap().file_type().is_symlink());
    assert_eq!(read(&dir.join("AGENTS.md")), "# Agents\n");
    // A link out of the project is refused (issue 57): its target is never written.
    let shared = ws.root().join("shared-notes.md");
    std::fs::write(&shared, "shared\n").unwrap();
    let out = project(&ws, "outside");
    symlink(&shared, out.join("CLAUDE.md")).unwrap();
    let o = lessons(&ws, &["install"], &out);
    assert!(!o.status.success(), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("CLAUDE.md is a link to") && err.contains("outside the project"), "{err}");
    assert!(std::fs::symlink_metadata(out.join("CLAUDE.md")).unwrap().file_type().is_symlink());
    assert_eq!(read(&shared), "shared\n");
    // A dangling link is refused, not replaced.
    let dangling = project(&ws, "dangling");
    symlink("nowhere.md", dangling.join("CLAUDE.md")).unwrap();
    let o = lessons(&ws, &["install"], &dangling);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("does not exist"));
    assert!(
        std::fs::symlink_metadata(dangling.join("CLAUDE.md")).unwrap().file_type().is_symlink()
    );
    // An empty CLAUDE.md the person had stays; one install created goes.
    let empty = project(&ws, "empty");
    std::fs::write(empty.join("CLAUDE.md"), "").unwrap();
    ok(&ws, &["install"], &empty);
    ok(&ws, &["uninstall"], &empty);
    assert_eq!(read(&empty.join("CLAUDE.md")), "", "an existing empty CLAUDE.md was deleted");
    let fresh = project(&ws, "fresh");
    ok(&ws, &["install"], &fresh);
    ok(&ws, &["uninstall"], &fresh);
    assert!(!fresh.join("CLAUDE.md").exists());
    // CRLF stays CRLF.
    let crlf = project(&ws, "crlf");
    std::fs::write(crlf.join("CLAUDE.md"), "# P\r\nline\r\n").unwrap();
    ok(&ws, &["install"], &crlf);
    let with = read(&crlf.join("CLAUDE.md"));
    assert!(!with.replace("\r\n", "").contains('\n'), "a bare LF in a CRLF file: {with:?}");
    ok(&ws, &["uninstall"], &crlf);
    assert_eq!(read(&crlf.join("CLAUDE.md")), "# P\r\nline\r\n");
    // A file whose lines end in a bare CR keeps its last CR (issue 57).
    let cr = project(&ws, "cr");
    std::fs::write(cr.join("CLAUDE.md"), "# P\rline\r").unwrap();
    ok(&ws, &["install"], &cr);
    ok(&ws, &["install"], &cr);
    ok(&ws, &["uninstall"], &cr);
    assert_eq!(read(&cr.join("CLAUDE.md")), "# P\rline\r");
}

#[test]
fn a_block_in_agents_md_stays_there_when_claude_md_appears() {
    let ws = TestWorkspace::new();
    let (_, push, _) = two_release_sessions(&ws);
    let dir = project(&ws, "p");
    std::fs::write(dir.join("AGENTS.md"), "# Agents\n").unwrap();
    ok(&ws, &["install"], &dir);
    std::fs::write(dir.join("CLAUDE.md"), "# Claude\n").unwrap();
    ws.run_ok(&["lessons", "approve", &push.to_string()]);
    assert_eq!(read(&dir.join("CLAUDE.md")), "# Claude\n", "a second block was added");
    assert!(read(&dir.join("AGENTS.md")).contains("--set-upstream"));
    ok(&ws, &["uninstall"], &dir);
    assert_eq!(read(&dir.join("AGENTS.md")), "# Agents\n");
    assert_eq!(read(&dir.join("CLAUDE.md")), "# Claude\n");
}

#[test]
fn only_regular_files_take_a_block_and_one_bad_project_does_not_stop_the_others() {
    let ws = TestWorkspace::new();
    let (_, push, commit) = two_release_sessions(&ws);
    let fifo = project(&ws, "fifo");
    let path = std::ffi::CString::new(fifo.join("CLAUDE.md").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    let start = Instant::now();
    let out = lessons(&ws, &["install"], &fifo);
    assert!(start.elapsed() < Duration::from_secs(10), "install hung on a FIFO");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("a FIFO"), "{}", describe(&out));

    let good = project(&ws, "good");
    let folder = project(&ws, "folder");
    let gone = project(&ws, "gone");
    for d in [&good, &folder, &gone] {
        ok(&ws, &["install"], d);
    }
    std::fs::remove_file(folder.join("CLAUDE.md")).unwrap();
    std::fs::create_dir(folder.join("CLAUDE.md")).unwrap();
    std::fs::remove_dir_all(&gone).unwrap();
    let start = Instant::now();
    let out = ws.run(&["lessons", "approve", &push.to_string()]);
    assert!(start.elapsed() < Duration::from_secs(20), "approve hung");
    assert!(out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a folder") && err.contains("not a folder any more"), "{err}");
    assert!(read(&good.join("CLAUDE.md")).contains("--set-upstream"));
    assert!(!gone.exists(), "a deleted project folder was re-created");
    ws.run_ok(&["lessons", "approve", &commit.to_string()]);
    assert!(read(&good.join("CLAUDE.md")).contains("mix format"));
}

/// The kill campaign of lesson decisions: `lessons approve` killed after its database change
/// (`lessons-db`), with a temporary file written (`temp`), after the playbook (`lessons-skill`)
/// and after the first block (`lessons-block`); the next command of any kind writes what is
/// missing and clears the temporary files.
#[test]
fn a_decision_killed_at_any_step_is_completed_by_the_next_command() {
    for step in ["lessons-db", "temp", "lessons-skill", "lessons-block"] {
        let ws = TestWorkspace::new();
        let (_, push, _) = two_release_sessions(&ws);
        let (a, b) = (project(&ws, "a"), project(&ws, "b"));
        for d in [&a, &b] {
            std::fs::write(d.join("CLAUDE.md"), "# P\n").unwrap();
            ok(&ws, &["install"], d);
        }
        let skill_md = ws.skills_dir().join("lessons-playbook/SKILL.md");
        let out = ws
            .cmd()
            .args(["lessons", "approve", &push.to_string()])
            .env("SKILLDECK_FAULT", step)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{step}: the fault did not fire:\n{}", describe(&out));
        let temps = |d: &Path| {
            std::fs::read_dir(d)
                .map(|r| {
                    r.flatten()
                        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
                        .count()
                })
                .unwrap_or(0)
        };
        let playbook_dir = skill_md.parent().unwrap().to_path_buf();
        if step == "temp" {
            assert!(temps(&playbook_dir) > 0, "the kill left no temporary file to clear");
        }
        ws.run_ok(&["sweep"]);
        let has = |p: &Path| std::fs::read_to_string(p).is_ok_and(|t| t.contains("--set-upstream"));
        assert!(has(&skill_md), "{step}: the playbook lacks the lesson");
        for d in [&a, &b] {
            assert!(has(&d.join("CLAUDE.md")), "{step}: {} lacks the lesson", d.display());
            assert_eq!(temps(d), 0, "{step}: temporary files were left in {}", d.display());
        }
        assert_eq!(temps(&playbook_dir), 0, "{step}: temporary files were left");
    }
}
