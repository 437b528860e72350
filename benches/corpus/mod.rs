//! The benchmark trees shared by `ingest` and `versus`: real Claude Code transcripts replicated by
//! `../shared/tools/make-bench-corpus` to a size, and the transcript files under a tree.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Makes a tree of about `mb` MB under `projects` from the real transcripts in ../shared/data.
pub fn generate(projects: &Path, mb: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("../shared/tools/make-bench-corpus");
    let src = root.join("../shared/data/transcripts/handgemacht-ai__claude-code-log/real_projects");
    println!("generating {mb} MB corpus in {} ...", projects.display());
    let status = Command::new(&script)
        .arg(&src)
        .arg(projects)
        .args(["--mb", mb])
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
    assert!(status.success(), "{} failed", script.display());
}

/// Every `.jsonl` file under `dir`, sorted.
pub fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("list corpus").flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
