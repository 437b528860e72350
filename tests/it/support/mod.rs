//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod fixture;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

/// `../shared/data/<rel>` if present; otherwise prints why the caller skips and returns None.
/// Under `CI` (the variable set) a missing folder fails the test instead: CI must provide it.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(rel);
    if path.exists() {
        Some(path)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is absent but CI is set: the shared real-data folder is required under CI",
            path.display()
        );
        skip(&format!(
            "{} is absent (the shared real-data folder is not beside this repo)",
            path.display()
        ));
        None
    }
}

/// A library workspace under `root` with the `TestWorkspace` layout. The workspace skills folder
/// is pinned to `root/.claude/skills` unless `config` names one, so an in-process test never
/// reads the `.claude/skills` of the folder `cargo test` runs in.
pub fn library_workspace(
    mut config: skilldeck::config::Config,
    root: &Path,
) -> skilldeck::workspace::Workspace {
    config.workspace_skills_dir.get_or_insert_with(|| root.join(".claude/skills"));
    let paths = skilldeck::workspace::Paths::under(root);
    skilldeck::workspace::Workspace::with_paths(config, paths).expect("workspace")
}

/// Says why a test skips, as a `SKIP: <reason>` line `cargo test` shows without `--nocapture`:
/// written to the process's stderr directly, which the test harness does not capture (it
/// captures only the `print!` family).
pub fn skip(reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP: {reason}");
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

    /// The home folder the binary sees: inside the temp folder, so nothing of the developer's
    /// own (`~/.claude/skills`, settings, transcripts) is read or written.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// The real binary, pointed at this workspace. HOME, the working directory (and with it the
    /// default workspace skills folder `./.claude/skills`) and every folder variable are pinned
    /// inside the temp folder; a test may override them after.
    pub fn cmd(&self) -> Command {
        std::fs::create_dir_all(self.home()).expect("home folder");
        // An empty config file is every default; a missing one would be warned about.
        if !self.config().exists() {
            std::fs::write(self.config(), "").expect("config file");
        }
        let mut c = Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        c.arg("--db").arg(self.db());
        c.arg("--skills-dir").arg(self.skills_dir());
        c.arg("--config").arg(self.config());
        c.current_dir(self.root());
        c.env("HOME", self.home());
        for var in [
            "SKILLDECK_DB",
            "SKILLDECK_SKILLS_DIR",
            "SKILLDECK_CONFIG",
            "SKILLDECK_INGEST_THREADS",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
        ] {
            c.env_remove(var);
        }
        c.env("NO_COLOR", "1");
        c
    }

    /// Runs the binary with `args`, asserting it exits 0; returns stdout.
    /// A hand-made skill folder `name` in the live skills folder, registered by a sweep;
    /// returns its SKILL.md.
    pub fn live_skill(&self, name: &str) -> PathBuf {
        let folder = self.skills_dir().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let text =
            format!("---\nname: {name}\ndescription: Tidy. Use when asked to tidy.\n---\nTidy.\n");
        std::fs::write(folder.join("SKILL.md"), text).unwrap();
        self.run_ok(&["sweep"]);
        folder.join("SKILL.md")
    }

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

/// The Agent Skills reference validator (`agentskills`, PyPI skills-ref) on PATH. Without it: a
/// failure under CI (whose .ci/run installs it), a printed SKIP elsewhere.
pub fn reference_validator() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths).map(|p| p.join("agentskills")).find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "agentskills (PyPI skills-ref) is not on PATH but CI is set: .ci/run must install it"
        );
        eprintln!("SKIP: agentskills (PyPI skills-ref) is not on PATH; SKILL.md not validated");
    }
    found
}

/// Asserts the reference validator accepts the skill folder `dir` (skips as above without it).
pub fn agentskills_validate(dir: &Path) {
    let Some(agentskills) = reference_validator() else { return };
    let out = Command::new(agentskills).arg("validate").arg(dir).output().expect("run agentskills");
    assert!(
        out.status.success(),
        "agentskills validate {} failed:\n{}",
        dir.display(),
        describe(&out)
    );
}

/// The single integer a counting query returns, naming the query when it fails.
pub fn count(db: &rusqlite::Connection, sql: &str) -> i64 {
    db.query_row(sql, [], |r| r.get(0)).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The first result the engine reports (a start pass reports as a note), within 60 seconds:
/// `Ok(text)` for `Done` or `Note`, `Err(text)` for `Failed` or a stopped engine.
pub async fn first_result(engine: &mut skilldeck::engine::EngineHandle) -> Result<String, String> {
    use skilldeck::engine::Update;
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            match engine.updates.recv().await {
                Some(Update::Done(text) | Update::Note(text)) => return Ok(text),
                Some(Update::Failed(text)) => return Err(text),
                Some(_) => {}
                None => return Err("engine stopped".to_string()),
            }
        }
    })
    .await
    .expect("the engine reported within 60 s")
}

const ANSWER_FILES: [&str; 3] = ["key.json", "key2.json", "ANSWERS.md"];

/// Copies a real corpus `from` to `to` without its answer files, every file dated two days back:
/// finished work, as a person's old sessions are (a file touched within the hour still has its
/// last turn open, and a fresh checkout of `../shared` is dated now).
pub fn copy_old(from: &Path, to: &Path) {
    let old = SystemTime::now() - Duration::from_secs(2 * 86_400);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_old(&src, &dst);
        } else if !ANSWER_FILES.iter().any(|a| entry.file_name() == *a) {
            std::fs::copy(&src, &dst).unwrap();
            let file = std::fs::File::options().write(true).open(&dst).unwrap();
            file.set_modified(old).unwrap();
        }
    }
}

/// The library's `.rs` files, each with its path as in one `src/` tree (`tui/state.rs`): the
/// root's `src/` and each layer crate's `crates/<c>/src/`, without the crates' `lib.rs` and
/// `main.rs` (they only declare and re-export the modules).
pub fn src_files() -> Vec<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![root.join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|d| d.map(|e| e.expect("entry").path().join("src")).collect())
        .unwrap_or_default();
    crates.sort();
    roots.extend(crates);
    let mut out = Vec::new();
    for dir in roots {
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for f in files {
            let rel = f.strip_prefix(&dir).expect("under its src").to_path_buf();
            if rel != Path::new("lib.rs") && rel != Path::new("main.rs") {
                out.push((rel, f));
            }
        }
    }
    out
}

/// The file at `rel` in the one `src/` tree of [`src_files`].
pub fn src_file(rel: &str) -> Option<PathBuf> {
    src_files().into_iter().find(|(r, _)| r == Path::new(rel)).map(|(_, f)| f)
}

/// Every `.rs` file under `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
