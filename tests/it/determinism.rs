//! The same input gives byte-identical drafts and names, run after run: the demo, and the real
//! transcripts in ../shared/data ingested with several parser threads.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{TestWorkspace, shared_data};

/// Every SKILL.md under `dir`, by its path relative to `dir`.
fn skill_files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn two_demo_runs_write_the_same_skills() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let dir = tmp.path().join(name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .args(["demo", "--no-console", "--dir"])
            .arg(&dir)
            .env("HOME", tmp.path().join(format!("home-{name}")))
            .env_remove("SKILLDECK_INGEST_THREADS")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", crate::support::describe(&out));
        skill_files(&dir)
    };
    let (a, b) = (run("a"), run("b"));
    assert!(!a.is_empty());
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, text) in &a {
        assert_eq!(text, &b[path], "{path} differs between two demo runs");
    }
}

#[test]
fn the_real_transcripts_give_the_same_drafts_on_every_run() {
    let Some(root) = shared_data("transcripts") else { return };
    let run = || {
        let tw = TestWorkspace::new();
        let out = tw.cmd().args(["ingest", "--threads", "4"]).arg(&root).output().unwrap();
        assert!(out.status.success(), "{}", crate::support::describe(&out));
        let list = tw.run_json(&["candidates", "--all"]);
        let names: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{} {}", c["name"], c["skill_md"]))
            .collect();
        names
    };
    let (a, b) = (run(), run());
    assert!(!a.is_empty(), "the real transcripts make drafts");
    assert_eq!(a, b, "two runs over the same transcripts differ");
}
