//! A populated workspace for the console tests, written through the library into a real store
//! with fixed timestamps so screens are stable. Also a test backend the tests can read while the
//! app runs.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use skilldeck::config::{Config, TranscriptRoot};
use skilldeck::workspace::Workspace;

use crate::support::fixture::Fixture;

pub const NEW_SKILL_MD: &str = "---\nname: summarize-pr\ndescription: Summarize a pull request for the changelog\n---\n# Summarize a PR\n\n1. gh pr view NUMBER --json title,body,files\n2. Read the changed files\n3. Write a three-line summary\n";
pub const LINT_V1: &str = "---\nname: lint-fix\ndescription: Fix lint errors\n---\n# Lint fix\n\n1. Run cargo clippy\n2. Apply the suggestions\n";
pub const LINT_V2: &str = "---\nname: lint-fix\ndescription: Fix lint errors\n---\n# Lint fix\n\n1. Run cargo clippy --all-targets\n2. Apply the suggestions\n3. Re-run the tests\n";
pub const LINT_V3: &str = "---\nname: lint-fix\ndescription: Fix lint and format errors\n---\n# Lint fix\n\n1. Run cargo fmt\n2. Run cargo clippy --all-targets\n2. Apply the suggestions\n3. Re-run the tests\n";

/// A temp folder whose path has the same length everywhere (`/tmp/sdXXXXXX`), so screens that
/// show paths wrap the same way on every machine.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("sd").tempdir_in("/tmp").unwrap()
}

/// The workspace under `root` (same layout as `TestWorkspace`: `--db root/skilldeck.db`).
pub fn workspace(root: &Path) -> Workspace {
    let transcripts = root.join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    let mut config = Config {
        transcripts: vec![TranscriptRoot { path: transcripts, format: "auto".into(), agent: None }],
        ..Config::default()
    };
    // The console tests feed streaks of tool-less native turns: the earlier proposal rules.
    config.detect.specific_only = false;
    crate::support::library_workspace(config, root)
}

/// The config file the binary reads for the same workspace.
pub fn write_config(root: &Path) {
    let text = format!(
        "[[transcripts]]\npath = \"{}\"\n\n[engine]\ntick_secs = 3600\ndebounce_ms = 200\n\n\
         [detect]\nspecific_only = false\n",
        root.join("transcripts").display()
    );
    std::fs::write(root.join("config.toml"), text).unwrap();
}

/// Two new-skill candidates, one proposed version, and seven skills in every state, written
/// through the library (`support::fixture`).
pub fn populate(ws: &Workspace) {
    use skilldeck::catalog::SkillStatus::{self, *};
    let staged = ws.paths.staging_dir.join("summarize-pr");
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(staged.join("SKILL.md"), NEW_SKILL_MD).unwrap();
    let fx = Fixture::new(ws.store.conn());
    let seq = r#"[{"name":"Bash","shape":"{command:string}"},{"name":"Read","shape":"{file_path:string}"},{"name":"Write","shape":"{file_path:string,content:string}"}]"#;
    fx.candidate("summarize-pr")
        .hash("h1")
        .description("Summarize a pull request")
        .steps(seq)
        .sessions(&["s-101", "s-102", "s-103", "s-104"])
        .at("2026-01-10T09:00:00Z")
        .examples(&["summarize PR 12 for the changelog", "summarize PR 40"])
        .skill_md(NEW_SKILL_MD)
        .staged(&staged)
        .build();
    fx.candidate("triage-issue")
        .hash("h2")
        .steps(r#"["Grep","Read","Edit"]"#)
        .sessions(&["s-7", "s-8", "s-9"])
        .at("2026-01-11T09:00:00Z")
        .signature("triage issue <n>")
        .examples(&["triage issue 31"])
        .skill_md("---\nname: triage-issue\ndescription: Triage an issue\n---\n# Triage\n")
        .build();
    let skills: [(&str, SkillStatus, bool); 7] = [
        ("deploy-docs", Healthy, false),
        ("lint-fix", Warning, false),
        ("flaky-sync", Deprecated, false),
        ("pinned-notes", Healthy, true),
        ("old-report", Archived, false),
        ("retired-x", Retired, false),
        ("degraded-y", Degraded, false),
    ];
    for (name, status, protected) in skills {
        let dir = match status {
            Archived => ws.paths.archive_dir.join("default").join(name),
            Retired => ws.paths.retired_dir.join("default").join(name),
            _ => ws.paths.skills_dir.join(name),
        };
        std::fs::create_dir_all(&dir).unwrap();
        let content = if name == "lint-fix" {
            LINT_V2.to_string()
        } else {
            format!("---\nname: {name}\ndescription: {name} skill\n---\n# {name}\n")
        };
        std::fs::write(dir.join("SKILL.md"), &content).unwrap();
        let versions: Vec<&str> =
            if name == "lint-fix" { vec![LINT_V1, LINT_V2] } else { vec![&content] };
        fx.skill(name).path(&dir).status(status).protected(protected).versions(&versions).build();
    }
    // Outcomes over days: deploy-docs 90%, lint-fix 35%, flaky-sync 27%. No run of three
    // failures, so only the rate decides the state (never a failure-streak rule).
    let runs = [
        ((1, "deploy-docs"), "SSSSFSSSSSSSFSSSSSSS"),
        ((2, "lint-fix"), "SFFSFFSFFSFFSFFSFFSF"),
        ((3, "flaky-sync"), "FFSFFSFFSFF"),
    ];
    for (skill, pattern) in runs {
        fx.uses(skill, pattern, |i| format!("2026-01-{:02}T10:{:02}:00Z", 2 + i / 3, i));
    }
    for (skill, at, from, to, reason) in [
        (3, "2026-01-04T12:00:00Z", Healthy, Warning, "success rate 33% over last 9"),
        (3, "2026-01-05T12:00:00Z", Warning, Deprecated, "success rate 27% over last 11"),
        (2, "2026-01-05T12:00:00Z", Healthy, Warning, "success rate 35% over last 20"),
    ] {
        fx.status_event(skill, at, from, to, reason);
    }
    fx.candidate("lint-fix")
        .hash("h3")
        .steps(r#"["Bash","Read","Edit","Bash"]"#)
        .sessions(&["s-20", "s-21", "s-22"])
        .at("2026-01-12T09:00:00Z")
        .skill_md(LINT_V3)
        .proposes(2)
        .build();
}

/// Hex SHA-256, as the lifecycle stores it to notice edits.
pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A `TestBackend` the test can read while the app draws into it.
#[derive(Clone)]
pub struct SharedBackend(pub Arc<Mutex<TestBackend>>);

impl SharedBackend {
    pub fn new(width: u16, height: u16) -> Self {
        SharedBackend(Arc::new(Mutex::new(TestBackend::new(width, height))))
    }

    pub fn screen(&self) -> String {
        self.0.lock().unwrap().to_string()
    }
}

impl Backend for SharedBackend {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.0.lock().unwrap().draw(content)
    }
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.lock().unwrap().hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.lock().unwrap().show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.0.lock().unwrap().get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.0.lock().unwrap().set_cursor_position(position)
    }
    fn clear(&mut self) -> Result<(), Self::Error> {
        self.0.lock().unwrap().clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.0.lock().unwrap().clear_region(clear_type)
    }
    fn size(&self) -> Result<Size, Self::Error> {
        self.0.lock().unwrap().size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.0.lock().unwrap().window_size()
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.lock().unwrap().flush()
    }
}
