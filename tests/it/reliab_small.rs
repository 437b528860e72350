//! Small but real: a closed pipe, a read-only database, durability settings.

use std::process::Stdio;

use crate::support::{TestWorkspace, describe};

#[test]
fn a_reader_that_closes_the_pipe_ends_the_command_quietly() {
    let tw = TestWorkspace::new();
    let folder = tw.skills_dir().join("big");
    std::fs::create_dir_all(&folder).unwrap();
    let body: String = (0..20_000).map(|i| format!("Step {i}: do the thing.\n")).collect();
    let text = format!("---\nname: big\ndescription: A big skill. Use when testing.\n---\n{body}");
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    tw.run_ok(&["sweep"]);
    // `skilldeck diff big | head -0`: the reader is gone before the first write.
    let mut child = tw
        .cmd()
        .args(["diff", "big"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && stderr.is_empty(), "{}", describe(&out));
}
