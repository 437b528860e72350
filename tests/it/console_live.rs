//! A console running on the populated workspace with the real engine, typed into through its
//! input channel and drawn into a test backend the test reads.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind,
};
use skilldeck::engine::{self, EngineOptions};
use skilldeck::store::Store;
use skilldeck::tui::app::{ConsoleOptions, Drawn};
use skilldeck::tui::keys::KeyMap;
use skilldeck::tui::run_app;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::console_fixture::{SharedBackend, populate, tempdir, workspace};

pub struct Live {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub keys: UnboundedSender<Event>,
    pub backend: SharedBackend,
    app: JoinHandle<anyhow::Result<()>>,
    pub db: Store,
    /// What `y` put on the clipboard.
    pub copied: Arc<Mutex<Vec<String>>>,
    /// Told after every frame the console draws.
    drawn: watch::Receiver<Drawn>,
}

/// How long a wait may take before the test fails. A failure guard only: every wait wakes on
/// the console's "drawn" signal, never on a clock.
const GUARD: Duration = Duration::from_secs(10);

impl Live {
    pub async fn start() -> Live {
        Live::start_with(EngineOptions::quiet()).await
    }

    pub async fn start_with(options: EngineOptions) -> Live {
        Live::start_at(options, KeyMap::default(), 100, 30).await
    }

    /// A console of `width`×`height` on the populated workspace, with `keymap`.
    pub async fn start_at(options: EngineOptions, keymap: KeyMap, width: u16, height: u16) -> Live {
        Live::start_editing(options, keymap, width, height, None).await
    }

    /// `start_at` where `e` runs `editor` (a command, as `$EDITOR` would hold) on the file.
    pub async fn start_editing(
        options: EngineOptions,
        keymap: KeyMap,
        width: u16,
        height: u16,
        editor: Option<String>,
    ) -> Live {
        Live::start_full(options, keymap, (width, height), editor, |_| {}, "summarize-pr", None)
            .await
    }

    /// `start_with` where `prepare` changes the populated workspace's folder before the engine
    /// starts; returns once the screen shows `first`.
    pub async fn start_prepared(
        options: EngineOptions,
        prepare: fn(&std::path::Path),
        first: &str,
    ) -> Live {
        Live::start_full(options, KeyMap::default(), (100, 30), None, prepare, first, None).await
    }

    /// `start_with` on the populated workspace joined to a team (`[team]` as given).
    pub async fn start_team(options: EngineOptions, team: skilldeck::config::TeamConfig) -> Live {
        let keymap = KeyMap::default();
        Live::start_full(options, keymap, (120, 40), None, |_| {}, "summarize-pr", Some(team)).await
    }

    async fn start_full(
        options: EngineOptions,
        keymap: KeyMap,
        (width, height): (u16, u16),
        editor: Option<String>,
        prepare: fn(&std::path::Path),
        first: &str,
        team: Option<skilldeck::config::TeamConfig>,
    ) -> Live {
        let dir = tempdir();
        let root = dir.path().to_path_buf();
        let mut ws = workspace(&root);
        if let Some(team) = team {
            ws.config.team = team;
        }
        populate(&ws);
        prepare(&root);
        let db = Store::open(&ws.paths.db).unwrap();
        let engine = engine::spawn(ws, options).unwrap();
        let backend = SharedBackend::new(width, height);
        let (keys, input) = unbounded_channel();
        let drawn = backend.clone();
        let copied = Arc::new(Mutex::new(Vec::new()));
        let sink = copied.clone();
        let (drawn_tx, frames) = watch::channel(Drawn::default());
        let console = ConsoleOptions {
            color: false,
            keymap,
            copy: Arc::new(move |text: &str| {
                sink.lock().unwrap().push(text.to_owned());
                Ok("to the test clipboard")
            }),
            edit: Arc::new(move |file| match &editor {
                Some(command) => skilldeck::editor::edit(command, file),
                None => anyhow::bail!("no editor in this test"),
            }),
            drawn: Arc::new(drawn_tx),
        };
        let app = tokio::spawn(async move {
            let mut terminal = Terminal::new(drawn).unwrap();
            run_app(&mut terminal, input, engine, console).await
        });
        let live = Live { _dir: dir, root, keys, backend, app, db, copied, drawn: frames };
        live.wait_for(first).await;
        live
    }

    pub fn press(&self, keys: &str) {
        for c in keys.chars() {
            self.code(KeyCode::Char(c));
        }
    }

    pub fn code(&self, code: KeyCode) {
        self.keys.send(Event::Key(KeyEvent::from(code))).unwrap();
    }

    /// The screen with this workspace's temp folder written `[TMP]`, for snapshots.
    pub fn redact(&self, screen: &str) -> String {
        let root = self.root.display().to_string();
        let name = self.root.file_name().unwrap().to_string_lossy().to_string();
        // A narrow header shortens the path from the left, so the folder name also shows alone.
        screen.replace(&root, "[TMP]").replace(&name, "sdXXXXXX")
    }

    pub fn mouse(&self, kind: MouseEventKind, column: u16, row: u16) {
        let event = MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE };
        self.keys.send(Event::Mouse(event)).unwrap();
    }

    /// Waits until the screen stops showing `text`.
    pub async fn wait_gone(&self, text: &str) -> String {
        self.wait_screen(GUARD, |s| !s.contains(text))
            .await
            .unwrap_or_else(|s| panic!("screen kept showing {text:?}:\n{s}"))
    }

    pub async fn wait_for(&self, text: &str) -> String {
        self.wait_for_within(text, GUARD).await
    }

    /// `wait_for` where the work behind `text` may take up to `guard` (a lock's busy timeout).
    /// Returns a screen the engine has caught up with (its snapshot answers the view on screen),
    /// so what is around `text` is settled too.
    pub async fn wait_for_within(&self, text: &str, guard: Duration) -> String {
        self.wait_screen(guard, |s| s.contains(text))
            .await
            .unwrap_or_else(|s| panic!("screen never showed {text:?}:\n{s}"))
    }

    /// What the last frame drew.
    pub fn drawn(&self) -> Drawn {
        *self.drawn.borrow()
    }

    /// Waits for a frame for which `done` holds (e.g. drawn after update N); returns it.
    pub async fn wait_drawn(&self, done: impl Fn(&Drawn) -> bool) -> Drawn {
        let mut drawn = self.drawn.clone();
        let deadline = tokio::time::Instant::now() + GUARD;
        loop {
            let now = *drawn.borrow_and_update();
            if done(&now) {
                return now;
            }
            let woke = tokio::time::timeout_at(deadline, drawn.changed()).await;
            assert!(matches!(woke, Ok(Ok(()))), "no such frame; last {now:?}");
        }
    }

    /// Re-reads the screen after each frame until `done` holds; the last screen as the error
    /// when the console stops or `guard` passes first.
    async fn wait_screen(
        &self,
        guard: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let mut drawn = self.drawn.clone();
        let deadline = tokio::time::Instant::now() + guard;
        loop {
            let settled = drawn.borrow_and_update().settled;
            let screen = self.backend.screen();
            if settled && done(&screen) {
                return Ok(screen);
            }
            match tokio::time::timeout_at(deadline, drawn.changed()).await {
                Ok(Ok(())) => {}
                _ => return Err(screen),
            }
        }
    }

    /// Runs the real binary on this workspace (as another process would, while the console
    /// runs); asserts it succeeds and returns its stdout.
    pub fn cli(&self, args: &[&str]) -> String {
        if !self.root.join("config.toml").exists() {
            super::console_fixture::write_config(&self.root);
        }
        let home = self.root.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"))
            .arg("--db")
            .arg(self.root.join("skilldeck.db"))
            .arg("--skills-dir")
            .arg(self.root.join("skills"))
            .arg("--config")
            .arg(self.root.join("config.toml"))
            .args(args)
            .current_dir(&self.root)
            .env("HOME", &home)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "skilldeck {args:?}: {}", super::support::describe(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn query(&self, sql: &str) -> String {
        self.db.conn().query_row(sql, [], |r| r.get::<_, String>(0)).unwrap()
    }

    pub async fn quit(self) {
        self.press("q");
        tokio::time::timeout(Duration::from_secs(5), self.app).await.unwrap().unwrap().unwrap();
    }

    /// Quits and returns what the console returned (an error makes a non-zero exit).
    pub async fn quit_with(self) -> anyhow::Result<()> {
        self.press("q");
        tokio::time::timeout(Duration::from_secs(5), self.app).await.unwrap().unwrap()
    }
}
