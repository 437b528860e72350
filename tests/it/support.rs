//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `../shared/data/<rel>` if present; otherwise prints why the caller skips and returns None.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "SKIP: {} is absent (the shared real-data folder is not beside this repo)",
            path.display()
        );
        None
    }
}

/// A throw-away workspace: database, live skills, staging and config under one temp folder.
pub struct TestWorkspace {
    pub dir: tempfile::TempDir,
}

impl TestWorkspace {
    pub fn new() -> Self {
        TestWorkspace { dir: tempfile::tempdir().expect("tempdir") }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn db(&self) -> PathBuf {
        self.root().join("skilldeck.db")
    }

    pub fn skills_dir(&self) -> PathBuf {
        self.root().join("skills")
    }

    pub fn config(&self) -> PathBuf {
        self.root().join("config.toml")
    }

    /// The real binary, pointed at this workspace.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        c.arg("--db").arg(self.db());
        c.arg("--skills-dir").arg(self.skills_dir());
        c.arg("--config").arg(self.config());
        c.env_remove("SKILLDECK_DB")
            .env_remove("SKILLDECK_SKILLS_DIR")
            .env_remove("SKILLDECK_CONFIG");
        c.env("NO_COLOR", "1");
        c
    }

    /// Runs the binary with `args`, asserting it exits 0; returns stdout.
    pub fn run_ok(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("run skilldeck");
        assert!(out.status.success(), "skilldeck {args:?} failed:\n{}", describe(&out));
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// Runs the binary with `args` and `--json`, parsing stdout.
    pub fn run_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        let text = self.run_ok(&all);
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{all:?} printed non-JSON ({e}):\n{text}"))
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run skilldeck")
    }
}

pub fn describe(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
