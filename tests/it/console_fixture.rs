//! A populated workspace for the console tests, written straight into a real store with fixed
//! timestamps so screens are stable. Also a test backend the tests can read while the app runs.
#![allow(dead_code)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use rusqlite::params;
use skilldeck::config::{Config, TranscriptRoot};
use skilldeck::workspace::Workspace;

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

/// Two new-skill candidates, one proposed version, and seven skills in every state.
pub fn populate(ws: &Workspace) {
    let staged = ws.paths.staging_dir.join("summarize-pr");
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(staged.join("SKILL.md"), NEW_SKILL_MD).unwrap();
    let c = ws.store.conn();
    let seq = r#"[{"name":"Bash","shape":"{command:string}"},{"name":"Read","shape":"{file_path:string}"},{"name":"Write","shape":"{file_path:string,content:string}"}]"#;
    c.execute(
        "INSERT INTO skill_candidates(id, hash, name, description, tool_sequence, session_keys,
             occurrences, created_at, source, examples, skill_md, staged_path)
         VALUES (1, 'h1', 'summarize-pr', 'Summarize a pull request', ?1,
             '[\"s-101\",\"s-102\",\"s-103\",\"s-104\"]', 4, '2026-01-10T09:00:00Z', 'sequence',
             '[\"summarize PR 12 for the changelog\",\"summarize PR 40\"]', ?2, ?3)",
        params![seq, NEW_SKILL_MD, staged.to_string_lossy()],
    )
    .unwrap();
    c.execute(
        "INSERT INTO skill_candidates(id, hash, name, tool_sequence, session_keys, occurrences,
             created_at, source, signature, examples, skill_md)
         VALUES (2, 'h2', 'triage-issue', '[\"Grep\",\"Read\",\"Edit\"]', '[\"s-7\",\"s-8\",\"s-9\"]',
             3, '2026-01-11T09:00:00Z', 'signature', 'triage issue <n>',
             '[\"triage issue 31\"]', '---\nname: triage-issue\ndescription: Triage an issue\n---\n# Triage\n')",
        [],
    )
    .unwrap();
    let skills = [
        (1, "deploy-docs", "healthy", 0, 1),
        (2, "lint-fix", "warning", 0, 2),
        (3, "flaky-sync", "deprecated", 0, 1),
        (4, "pinned-notes", "healthy", 1, 1),
        (5, "old-report", "archived", 0, 1),
        (6, "retired-x", "retired", 0, 1),
        (7, "degraded-y", "degraded", 0, 1),
    ];
    for (id, name, status, protected, version) in skills {
        let dir = match status {
            "archived" => ws.paths.archive_dir.join("default").join(name),
            "retired" => ws.paths.retired_dir.join("default").join(name),
            _ => ws.paths.skills_dir.join(name),
        };
        std::fs::create_dir_all(&dir).unwrap();
        let content = if name == "lint-fix" {
            LINT_V2.to_string()
        } else {
            format!("---\nname: {name}\ndescription: {name} skill\n---\n# {name}\n")
        };
        std::fs::write(dir.join("SKILL.md"), &content).unwrap();
        c.execute(
            "INSERT INTO skills(id, name, path, status, protected, version, approved_sha256,
                                created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '2026-01-01T08:00:00Z', '2026-01-01T08:00:00Z')",
            params![
                id,
                name,
                dir.to_string_lossy(),
                status,
                protected,
                version,
                sha256_hex(&content)
            ],
        )
        .unwrap();
        let versions: Vec<&str> =
            if name == "lint-fix" { vec![LINT_V1, LINT_V2] } else { vec![&content] };
        for (i, text) in versions.iter().enumerate() {
            c.execute(
                "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    id,
                    i as i64 + 1,
                    text,
                    sha256_hex(text),
                    if i == 0 { "promote" } else { "edit" },
                    format!("2026-01-0{}T08:00:00Z", i + 1)
                ],
            )
            .unwrap();
        }
    }
    // Outcomes over days: deploy-docs 90%, lint-fix 35%, flaky-sync 27%. No run of three
    // failures, so only the rate decides the state (never a failure-streak rule).
    let runs: [(i64, &str, &str); 3] = [
        (1, "deploy-docs", "SSSSFSSSSSSSFSSSSSSS"),
        (2, "lint-fix", "SFFSFFSFFSFFSFFSFFSF"),
        (3, "flaky-sync", "FFSFFSFFSFF"),
    ];
    for (id, name, pattern) in runs {
        for (i, ch) in pattern.chars().enumerate() {
            let outcome = if ch == 'S' { "success" } else { "failure" };
            let at = format!("2026-01-{:02}T10:{:02}:00Z", 2 + i / 3, i);
            c.execute(
                "INSERT INTO skill_invocations(skill_name, skill_id, outcome, source, at)
                 VALUES (?1, ?2, ?3, 'explicit', ?4)",
                params![name, id, outcome, at],
            )
            .unwrap();
        }
    }
    for (skill, at, from, to, reason) in [
        (3, "2026-01-04T12:00:00Z", "healthy", "warning", "success rate 33% over last 9"),
        (3, "2026-01-05T12:00:00Z", "warning", "deprecated", "success rate 27% over last 11"),
        (2, "2026-01-05T12:00:00Z", "healthy", "warning", "success rate 35% over last 20"),
    ] {
        c.execute(
            "INSERT INTO skill_events(skill_id, at, kind, from_status, to_status, reason)
             VALUES (?1, ?2, 'status', ?3, ?4, ?5)",
            params![skill, at, from, to, reason],
        )
        .unwrap();
    }
    c.execute(
        "INSERT INTO skill_candidates(id, hash, name, tool_sequence, session_keys, occurrences,
             created_at, source, skill_md, target_skill_id)
         VALUES (3, 'h3', 'lint-fix', '[\"Bash\",\"Read\",\"Edit\",\"Bash\"]',
             '[\"s-20\",\"s-21\",\"s-22\"]', 3, '2026-01-12T09:00:00Z', 'sequence', ?1, 2)",
        [LINT_V3],
    )
    .unwrap();
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
