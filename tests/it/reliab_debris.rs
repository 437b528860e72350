//! What killed or finished processes leave behind is cleared, by read-only commands too; paths
//! a hook is handed are checked; folder names with control characters are handled whole.

use crate::support::TestWorkspace;

/// The pid of a process that has ended.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn scratch_of_a_killed_process_goes_with_the_next_read_only_command() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["sweep"]);
    let scratch = tw.root().join(".skilldeck-work");
    let entry = scratch.join(format!("{}-0f0f-tidy", dead_pid()));
    std::fs::create_dir_all(&entry).unwrap();
    std::fs::write(entry.join("SKILL.md"), "half").unwrap();
    tw.run_ok(&["candidates"]);
    assert!(!entry.exists(), "scratch left after a read-only command");
}

#[test]
fn drafting_a_merge_leaves_no_scratch_in_staging() {
    let tw = TestWorkspace::new();
    for (name, text) in [
        (
            "release-flow",
            "---\nname: release-flow\ndescription: Release the crate.\n---\n1. Run `cargo test`.\n2. Tag it: `git tag v<version>`.\n3. `git push --tags`.\n",
        ),
        (
            "ship-it",
            "---\nname: ship-it\ndescription: Ship a version.\n---\n1. Run `cargo test`.\n2. Run `git tag v<version>`.\n3. Run `git push --tags`.\n4. Run `cargo publish`.\n",
        ),
    ] {
        let folder = tw.skills_dir().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("SKILL.md"), text).unwrap();
    }
    let sweep = tw.run_json(&["sweep"]);
    assert_eq!(sweep["proposed_merges"], 1, "{sweep:#}");
    assert!(!tw.root().join("staging/.drafting").exists(), "an empty .drafting was left");
}

/// A hook payload naming a file outside the transcript roots and the agents' folders (say,
/// `/etc/shadow`) is refused: nothing is read or recorded, the hook still exits 0.
#[test]
fn a_hook_reads_only_transcripts_under_the_roots() {
    use std::io::Write;
    let tw = TestWorkspace::new();
    let outside = tw.root().join("elsewhere/secret.jsonl");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(
        &outside,
        "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"content\":\"x\"}}\n",
    )
    .unwrap();
    for path in [outside.to_str().unwrap(), "/etc/hostname"] {
        let payload = serde_json::json!({"session_id": "s", "transcript_path": path,
            "hook_event_name": "SessionEnd"});
        let mut child = tw
            .cmd()
            .args(["ingest", "--hook"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    }
    let db = rusqlite::Connection::open(tw.db()).unwrap();
    assert_eq!(crate::support::count(&db, "SELECT COUNT(*) FROM ingested_files"), 0);
    let log = std::fs::read_to_string(tw.root().join("hooks/hooks.log")).unwrap();
    assert!(log.contains("not a transcript under the transcript roots"), "{log}");
}

/// A skill folder whose name holds control characters is adopted as it is named, and archived,
/// restored and retired like any other (its name printed escaped).
#[test]
fn a_folder_named_with_control_characters_moves_whole() {
    let tw = TestWorkspace::new();
    let name = "tidy\x1b[2Jx";
    let folder = tw.skills_dir().join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: tidy\ndescription: Tidy. Use when asked to tidy.\n---\nTidy.\n",
    )
    .unwrap();
    tw.run_ok(&["sweep"]);
    let archived = tw.run_ok(&["archive", name]);
    assert!(archived.contains("tidy\\x1b[2Jx") && !archived.contains('\x1b'), "{archived}");
    assert!(!folder.exists());
    tw.run_ok(&["restore", name]);
    assert!(folder.join("SKILL.md").exists());
}
