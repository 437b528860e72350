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

#[test]
fn eight_connections_opening_a_new_database_at_once_all_succeed() {
    use std::sync::{Arc, Barrier};
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("new-{round}.db"));
        let barrier = Arc::new(Barrier::new(8));
        let opens: Vec<_> = (0..8)
            .map(|_| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    skilldeck::store::Store::open(&path).map(|s| s.schema_version().unwrap())
                })
            })
            .collect();
        let versions: Vec<i64> = opens
            .into_iter()
            .map(|t| t.join().unwrap().unwrap_or_else(|e| panic!("round {round}: {e:#}")))
            .collect();
        assert!(versions.windows(2).all(|w| w[0] == w[1] && w[0] > 0), "{versions:?}");
    }
}

#[test]
fn eight_processes_opening_a_new_database_at_once_all_succeed() {
    let tw = TestWorkspace::new();
    let children: Vec<_> = (0..8)
        .map(|_| {
            tw.cmd().arg("audit").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", describe(&out));
    }
}
