//! The app loop: one `select!` over key input, engine updates and a tick. Input arrives through a
//! channel, so tests type keys without a terminal; the screen is redrawn only when something
//! changed, and bursts of engine updates are coalesced into one frame.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use ratatui::crossterm::event::{Event, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use ratatui::{Terminal, backend::Backend};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::action::Action;
use super::draw::draw;
use super::input::handle_key;
use super::keys::KeyMap;
use super::state::UiState;
use super::update::update;
use crate::editor;
use crate::engine::{self, Command, EngineHandle, EngineOptions, Snapshot, Update, View};
use crate::text::safe;
use crate::workspace::Workspace;

/// Puts text on the clipboard; returns how, for the status line.
pub type CopyFn = Arc<dyn Fn(&str) -> Result<&'static str> + Send + Sync>;

/// Opens a file in the editor and returns when it exits (the real console hands the terminal
/// over for that time and takes it back).
pub type EditFn = Arc<dyn Fn(&Path) -> Result<()> + Send + Sync>;

/// How the console looks and reaches outside itself.
#[derive(Clone)]
pub struct ConsoleOptions {
    /// False under NO_COLOR.
    pub color: bool,
    pub keymap: KeyMap,
    /// What `y` calls with the selected path.
    pub copy: CopyFn,
    /// What `e` calls with the selected draft or SKILL.md.
    pub edit: EditFn,
    /// Told after every frame: how many frames and engine updates are on screen. Tests block on
    /// it instead of polling the screen on a clock.
    pub drawn: Arc<tokio::sync::watch::Sender<Drawn>>,
}

/// What the last frame drew: the frame's number, how many engine updates it reflects, the
/// store generation of the snapshot it drew (`Snapshot::generation`), and whether that snapshot
/// answers the view the console last asked for (nothing the screen waits on is on its way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Drawn {
    pub frames: u64,
    pub updates: u64,
    pub generation: u64,
    pub settled: bool,
}

impl Default for ConsoleOptions {
    fn default() -> Self {
        ConsoleOptions {
            color: true,
            keymap: KeyMap::default(),
            copy: Arc::new(copy_osc52),
            edit: Arc::new(|file| editor::edit(&editor::from_env(), file)),
            drawn: Arc::new(tokio::sync::watch::channel(Drawn::default()).0),
        }
    }
}

/// Copies through the terminal: an OSC 52 escape, which the terminal (or tmux with
/// `set-clipboard on`) turns into a clipboard write, over SSH too.
pub fn copy_osc52(text: &str) -> Result<&'static str> {
    use std::io::Write;
    let mut out = std::io::stdout();
    ratatui::crossterm::execute!(
        out,
        ratatui::crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
    )?;
    out.flush()?;
    Ok("through the terminal (OSC 52)")
}

/// Runs the console until `q` (or the input ends). Generic over the backend and fed by a
/// channel of terminal events.
pub async fn run_app<B: Backend>(
    terminal: &mut Terminal<B>,
    mut input: UnboundedReceiver<Event>,
    mut engine: EngineHandle,
    options: ConsoleOptions,
) -> Result<()>
where
    B::Error: Send + Sync + 'static,
{
    let size = terminal.size().context("reading the terminal size")?;
    let mut ui = UiState::new(Rect::new(0, 0, size.width, size.height), options.color)
        .with_keymap(options.keymap.clone());
    let mut snap = Arc::new(Snapshot::default());
    let mut sent_view: Option<View> = None;
    let mut engine_alive = true;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    let mut dirty = true;
    let mut drawn = Drawn::default();
    loop {
        if dirty {
            terminal.draw(|f| draw(f, &snap, &ui)).context("drawing the console")?;
            dirty = false;
            drawn.frames += 1;
            drawn.generation = snap.generation;
            drawn.settled = sent_view.as_ref() == Some(&snap.view) && ui.view(&snap) == snap.view;
            options.drawn.send_replace(drawn);
        }
        tokio::select! {
            biased;
            event = input.recv() => {
                let Some(event) = event else { break };
                dirty |= on_event(&mut ui, &snap, &engine, event);
                while let Ok(event) = input.try_recv() {
                    dirty |= on_event(&mut ui, &snap, &engine, event);
                }
                if let Some(request) = ui.edit.take() {
                    let shown =
                        safe::inline(&request.file.to_string_lossy()).into_owned();
                    let result = (options.edit)(&request.file);
                    // The editor had the screen: draw every cell again.
                    terminal.clear().context("redrawing after the editor")?;
                    // The engine reads the file and says so after the snapshot that shows it.
                    match result {
                        Ok(()) => {
                            let (file, skill) = (request.file.clone(), request.skill);
                            let _ = engine.commands.send(Command::Edited { file, skill });
                        }
                        Err(e) => {
                            let _ = engine.commands.send(Command::Refresh);
                            ui.engine.result(format!("{e:#} ({shown})"), true);
                        }
                    }
                }
                if let Some(path) = ui.clipboard.take() {
                    let shown = safe::inline(&path).into_owned();
                    match (options.copy)(&path) {
                        Ok(how) => ui.engine.result(format!("copied {shown} {how}"), false),
                        Err(e) => ui.engine.result(format!("could not copy {shown}: {e:#}"), true),
                    }
                }
            }
            received = engine.updates.recv(), if engine_alive => {
                match received {
                    Some(first) => {
                        on_update(&mut ui, &mut snap, first);
                        drawn.updates += 1;
                        while let Ok(more) = engine.updates.try_recv() {
                            on_update(&mut ui, &mut snap, more);
                            drawn.updates += 1;
                        }
                    }
                    None => {
                        engine_alive = false;
                        ui.engine.message = Some("the engine stopped; restart the console".into());
                        ui.engine.error = true;
                    }
                }
                dirty = true;
            }
            _ = tick.tick() => {
                if ui.engine.busy.is_some() {
                    ui.tick += 1;
                    dirty = true;
                }
            }
        }
        if ui.quit {
            // Nothing could be read: the run failed, whatever key ended it.
            if let Some(why) = ui.load_error.take() {
                anyhow::bail!("{why}");
            }
            break;
        }
        let view = ui.view(&snap);
        if sent_view.as_ref() != Some(&view) {
            let _ = engine.commands.send(Command::View(view.clone()));
            sent_view = Some(view);
        }
    }
    Ok(())
}

/// Applies one terminal event; returns whether the screen must be redrawn.
fn on_event(ui: &mut UiState, snap: &Snapshot, engine: &EngineHandle, event: Event) -> bool {
    match event {
        Event::Key(key) => {
            let Some(action) = handle_key(ui, key) else { return false };
            if let Some(cmd) = update(ui, snap, action) {
                let _ = engine.commands.send(cmd);
            }
            true
        }
        Event::Resize(width, height) => {
            ui.resize(Rect::new(0, 0, width, height));
            true
        }
        Event::Mouse(mouse) => match on_mouse(ui, snap, mouse) {
            Some(action) => {
                if let Some(cmd) = update(ui, snap, action) {
                    let _ = engine.commands.send(cmd);
                }
                true
            }
            None => mouse.kind == MouseEventKind::Down(MouseButton::Left),
        },
        _ => false,
    }
}

/// Mouse: the wheel moves the selection, a click on a tab switches pane, a click on a row
/// selects it (the click is applied here; the wheel returns its action).
fn on_mouse(ui: &mut UiState, snap: &Snapshot, mouse: MouseEvent) -> Option<Action> {
    match mouse.kind {
        MouseEventKind::ScrollDown => Some(Action::Down),
        MouseEventKind::ScrollUp => Some(Action::Up),
        MouseEventKind::Down(MouseButton::Left) => {
            ui.click(snap, mouse.column, mouse.row);
            None
        }
        _ => None,
    }
}

fn on_update(ui: &mut UiState, snap: &mut Arc<Snapshot>, update: Update) {
    match update {
        Update::Snapshot(next) => {
            *snap = next;
            if snap.loaded() {
                ui.load_error = None;
            }
            ui.sync(snap);
        }
        Update::Busy(text) => {
            ui.engine.busy = Some(text);
            ui.engine.progress = None;
        }
        Update::Progress(p) => ui.engine.progress = Some(p),
        // Background work with nothing to report keeps the last message on screen.
        Update::Done(text) => {
            ui.engine.busy = None;
            ui.engine.progress = None;
            ui.engine.result(text, false);
        }
        // Background work with nothing to report keeps the last message on screen.
        Update::Note(text) => {
            ui.engine.busy = None;
            ui.engine.progress = None;
            if !text.is_empty() {
                ui.engine.note(text);
            }
        }
        Update::Failed(text) => {
            ui.engine.busy = None;
            ui.engine.progress = None;
            if !snap.loaded() {
                ui.load_error = Some(text.clone());
            }
            ui.engine.result(text, true);
        }
    }
}

/// Whether to use colour: not when NO_COLOR is set to anything non-empty, nor on a terminal
/// that says it has none (`TERM=dumb`).
pub fn color_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// A panic in a background job must not tear the console down (the engine reports it in the
/// status line); only a panic on this, the drawing thread, restores the terminal and prints.
fn keep_terminal_on_background_panics() {
    let ui_thread = std::thread::current().id();
    let restore_and_report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui_thread {
            restore_and_report(info);
        }
    }));
}

/// Lets the input thread be paused while another program (the editor) owns the terminal: a
/// paused thread reads no key, so every key goes to that program.
#[derive(Default)]
struct InputGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    pause: bool,
    /// The thread has seen the pause and waits (it is not inside a read).
    parked: bool,
}

impl InputGate {
    /// Asks the input thread to stop reading and waits (a few seconds at most) until it has.
    fn pause(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.pause = true;
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while !state.parked && std::time::Instant::now() < deadline {
            state = match self.changed.wait_timeout(state, Duration::from_millis(50)) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        }
    }

    fn resume(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.pause = false;
        self.changed.notify_all();
    }

    /// Blocks while paused; returns whether reading may go on.
    fn wait_open(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if !state.pause {
            return;
        }
        state.parked = true;
        self.changed.notify_all();
        while state.pause {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.parked = false;
    }

    fn paused(&self) -> bool {
        self.state.lock().map(|s| s.pause).unwrap_or(false)
    }
}

/// The input thread: reads terminal events into the channel. It polls in short steps so a
/// pause takes effect between two reads, and a key that arrives as the pause starts is left
/// for the program that takes the terminal.
fn read_input(gate: &InputGate, tx: &tokio::sync::mpsc::UnboundedSender<Event>) {
    use ratatui::crossterm::event;
    loop {
        gate.wait_open();
        match event::poll(Duration::from_millis(50)) {
            Ok(true) if !gate.paused() => match event::read() {
                Ok(e) => {
                    if tx.send(e).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

/// Runs `f` with the terminal given back (main screen, cooked mode, no mouse capture), then
/// takes it again; the app loop redraws every cell after.
fn suspended<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    use ratatui::crossterm::{event, execute, terminal};
    let mut out = std::io::stdout();
    let _ = execute!(out, event::DisableMouseCapture);
    ratatui::restore();
    let result = f();
    terminal::enable_raw_mode().context("taking the terminal back after the editor")?;
    execute!(out, terminal::EnterAlternateScreen, event::EnableMouseCapture)
        .context("taking the terminal back after the editor")?;
    result
}

/// Opens the console on a workspace in this terminal, with the engine running in the
/// background. The terminal is restored on return, on error and on panic.
pub fn run_console(ws: Workspace) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let result = runtime.block_on(async {
        let keymap = KeyMap::from_config(&ws.config.keys)
            .with_context(|| format!("config {}", ws.paths.config_file.display()))?;
        let options = EngineOptions::from_config(&ws.config.engine);
        let engine = engine::spawn(ws, options)?;
        let (tx, rx) = unbounded_channel();
        let gate = Arc::new(InputGate::default());
        let input_gate = gate.clone();
        std::thread::spawn(move || read_input(&input_gate, &tx));
        // `init` enters raw mode and the alternate screen and installs the panic hook that
        // restores them; frames go through a backend that writes each one atomically.
        drop(ratatui::init());
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::EnableMouseCapture
        );
        keep_terminal_on_background_panics();
        let mut terminal = match Terminal::new(super::terminal::SyncedBackend::stdout()) {
            Ok(t) => t,
            Err(e) => {
                ratatui::restore();
                return Err(e).context("opening the terminal");
            }
        };
        let editor = editor::from_env();
        let edit: EditFn = Arc::new(move |file| {
            gate.pause();
            let result = suspended(|| editor::edit(&editor, file));
            gate.resume();
            result
        });
        let console =
            ConsoleOptions { color: color_enabled(), keymap, edit, ..ConsoleOptions::default() };
        let result = run_app(&mut terminal, rx, engine, console).await;
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        ratatui::restore();
        result
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    result
}
