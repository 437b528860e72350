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

/// Runs the binary on `tw` with its whole folder mounted read-only (a private mount namespace).
fn on_read_only_disk(tw: &TestWorkspace, args: &[&str]) -> Option<std::process::Output> {
    if !skilldeck::process::namespaces_available() {
        assert!(std::env::var_os("CI").is_none(), "CI must allow user namespaces (unshare -r)");
        crate::support::skip(
            "user namespaces are not available here; no read-only mount to test on",
        );
        return None;
    }
    let root = tw.root().to_str().unwrap();
    let script = r#"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@""#;
    let out = std::process::Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "--", "sh", "-c", script, "sh", root])
        .arg(env!("CARGO_BIN_EXE_skilldeck"))
        .args(["--db", tw.db().to_str().unwrap(), "--skills-dir"])
        .arg(tw.skills_dir())
        .arg("--config")
        .arg(tw.config())
        .args(args)
        .env_remove("SKILLDECK_DB")
        .env_remove("SKILLDECK_SKILLS_DIR")
        .env_remove("SKILLDECK_CONFIG")
        .output()
        .unwrap();
    Some(out)
}

#[test]
fn commands_that_only_read_work_on_a_read_only_disk() {
    let tw = TestWorkspace::new();
    tw.live_skill("tidy");
    tw.run_ok(&["record", "tidy", "success"]);
    for args in [&["audit"][..], &["stats", "tidy"], &["versions", "tidy"], &["suggest", "tidy"]] {
        let Some(out) = on_read_only_disk(&tw, args) else { return };
        assert!(out.status.success(), "{args:?} on a read-only disk: {}", describe(&out));
        assert!(!out.stdout.is_empty(), "{}", describe(&out));
    }
    // A command that writes says why it cannot, naming the database.
    let Some(out) = on_read_only_disk(&tw, &["record", "tidy", "success"]) else { return };
    assert!(!out.status.success());
}

#[test]
fn the_database_syncs_every_commit() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["audit"]);
    let store = skilldeck::store::Store::open(&tw.db()).unwrap();
    let level: i64 = store.conn().query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
    assert_eq!(level, 2, "synchronous = FULL: a commit survives power loss (docs/durability.md)");
}
