//! The console's background engine: a tokio task that owns the workspace (the writing database
//! connection) and every piece of I/O. It applies the person's actions, runs ingest, detection
//! and sweeps on file events and on a timer, notices writes by other processes through
//! `PRAGMA data_version`, and sends immutable [`Snapshot`]s and status updates back.
//!
//! Blocking work runs on tokio's blocking pool: at most one writing job at a time, later ones
//! queue (a pass already queued is not queued twice). Reads use a second connection. The team
//! sync (push, then pull, with `[team]`) runs beside the jobs on its own connection, at most one
//! at a time, so a key press never waits on the network.

mod jobs;
pub mod snapshot;
mod watch;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tokio::sync::broadcast;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

pub use crate::ingest::Progress;
pub use jobs::plan;
pub use snapshot::{Snapshot, View};

use crate::config;
use crate::lessons;
use crate::store::Store;
use crate::store::trouble;
use crate::team;
use crate::text::count;
use crate::workspace;
use crate::workspace::Workspace;
use jobs::{Entry, JobDone, OwnWrite, Work, describe, past, run_job};
pub use snapshot::UndoOffer;

/// What the console asks of the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Op(Op),
    /// Take back the person's last change, the one [`Snapshot::undo`] offered under this
    /// number; refused when another change came after it or it cannot be undone.
    Undo(u64),
    Refresh,
    IngestNow,
    SweepNow,
    /// The skills on screen (for rates) and the selected one (for its timeline and versions).
    View(View),
    /// The person's editor exited on `file`: a live skill's SKILL.md (`skill`: a saved edit is
    /// recorded as its next version) or a draft (shown as saved). The result comes after the
    /// snapshot that shows the file as saved.
    Edited {
        file: PathBuf,
        skill: bool,
    },
    /// A decision in the team scope: runs on its own connection beside the jobs, never behind
    /// them, and reads the team's state again after it.
    Team(team::TeamOp),
}

/// A change to skills, candidates or lessons, by what it acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Promote(Subject<CandidateId>),
    Dismiss(Subject<CandidateId>),
    Approve(Subject<CandidateId>),
    Reject(Subject<CandidateId>),
    SetProtected(Subject<SkillId>, bool),
    Archive(Subject<SkillId>),
    Restore(Subject<SkillId>),
    /// A skill edited since its approval: approve the text on disk.
    ApproveEdit(Subject<SkillId>),
    /// Return a skill to one of its versions (the approved one, for a hand edit).
    Rollback(Subject<SkillId>, i64),
    /// Put a dismissed or rejected candidate back in the queue.
    Reopen(Subject<CandidateId>),
    /// A person's decision on a lesson: approve, pin, dismiss, or back to proposed.
    Lesson(Subject<LessonId>, lessons::LessonStatus),
}

impl Op {
    /// The name of what the op acts on, for messages.
    pub fn name(&self) -> &str {
        self.named().1
    }

    /// (agent, name) of what the op acts on.
    fn named(&self) -> (&str, &str) {
        match self {
            Op::Promote(t) | Op::Dismiss(t) | Op::Approve(t) | Op::Reject(t) | Op::Reopen(t) => {
                (&t.agent, &t.name)
            }
            Op::SetProtected(t, _)
            | Op::Archive(t)
            | Op::Restore(t)
            | Op::ApproveEdit(t)
            | Op::Rollback(t, _) => (&t.agent, &t.name),
            Op::Lesson(t, _) => (&t.agent, &t.name),
        }
    }
}

/// A review candidate's row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CandidateId(pub i64);

/// A skill's row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SkillId(pub i64);

/// A lesson's row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LessonId(pub i64);

/// What an op acts on: its row `id`, typed by what it is, and its `agent` and `name` (a skill
/// is found by those; every op names it in its messages).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Subject<Id> {
    pub id: Id,
    pub agent: String,
    pub name: String,
    /// For promote and approvals: the sha256 of the text the person reviewed. The decision is
    /// refused when what it would write is no longer that text (edited since, re-drafted).
    pub seen: Option<String>,
}

/// What the engine tells the console.
#[derive(Debug, Clone)]
pub enum Update {
    Snapshot(Arc<Snapshot>),
    /// Long work started (shown until `Done`, `Note` or `Failed`).
    Busy(String),
    Progress(Progress),
    /// The result of something the person asked for.
    Done(String),
    /// What background work (a timed pass, a file event) found; empty when nothing.
    Note(String),
    Failed(String),
}

/// How the engine behaves; [`EngineOptions::from_config`] for the real console.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Run ingest + detect + sweep right after the first snapshot.
    pub pass_on_start: bool,
    /// Time between timed passes; `None` for no timer.
    pub pass_every: Option<Duration>,
    /// Watch the transcript roots and the skills folder.
    pub watch: bool,
    pub debounce: Duration,
    /// How often to look for writes by other processes.
    pub poll: Duration,
}

impl EngineOptions {
    pub fn from_config(c: &config::EngineConfig) -> Self {
        EngineOptions {
            pass_on_start: true,
            pass_every: (c.tick_secs > 0).then(|| Duration::from_secs(c.tick_secs)),
            watch: true,
            debounce: Duration::from_millis(c.debounce_ms),
            poll: Duration::from_millis(250),
        }
    }

    /// No timer, no watcher, no initial pass: only what is asked (tests, benchmarks).
    pub fn quiet() -> Self {
        EngineOptions {
            pass_on_start: false,
            pass_every: None,
            watch: false,
            debounce: Duration::from_millis(200),
            poll: Duration::from_millis(100),
        }
    }
}

/// The console's two channel ends.
pub struct EngineHandle {
    pub commands: UnboundedSender<Command>,
    pub updates: UnboundedReceiver<Update>,
    /// Each batch of skills-folder paths the engine has judged (its own writes' echoes and
    /// edits alike), to whoever subscribes: tests wait on it instead of a clock.
    pub skill_files: broadcast::Sender<Arc<Vec<PathBuf>>>,
}

/// Starts the engine on the current tokio runtime. It stops when `commands` is dropped.
pub fn spawn(ws: Workspace, options: EngineOptions) -> Result<EngineHandle> {
    let db = ws.store.path().context("the console needs a database file")?.to_path_buf();
    let reader = Store::open(&db)?;
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    let (upd_tx, upd_rx) = mpsc::unbounded_channel();
    let base = Snapshot::for_workspace(&ws);
    let (files_tx, _) = broadcast::channel(64);
    let engine = Engine {
        skill_files: files_tx.clone(),
        reopen: (ws.config.clone(), ws.paths.clone()),
        ws: Some(ws),
        reader: Some(reader),
        updates: upd_tx,
        snap: base,
        view: View::default(),
        queue: VecDeque::new(),
        undo: Vec::new(),
        next_seq: 1,
        asked: false,
        data_version: None,
        held_edits: None,
        own_writes: Vec::new(),
        echo: options.debounce * 4 + Duration::from_secs(5),
    };
    tokio::spawn(engine.run(cmd_rx, options));
    Ok(EngineHandle { commands: cmd_tx, updates: upd_rx, skill_files: files_tx })
}

/// A running job: gives back the workspace, what the job did, and whether the person asked
/// for it.
type Running = JoinHandle<(Workspace, JobDone, bool)>;

/// What a team task (a sync or a decision) reports: its line, whether it was the person's, and
/// the team's state read after it.
struct TeamDone {
    said: Option<String>,
    failed: bool,
    personal: bool,
    sync: bool,
    view: Option<team::TeamView>,
}

struct Engine {
    skill_files: broadcast::Sender<Arc<Vec<PathBuf>>>,
    ws: Option<Workspace>,
    /// To reopen the workspace if a job panicked while holding it.
    reopen: (config::Config, workspace::Paths),
    reader: Option<Store>,
    updates: UnboundedSender<Update>,
    snap: Snapshot,
    view: View,
    queue: VecDeque<Work>,
    /// The person's changes that succeeded, newest last.
    undo: Vec<Entry>,
    next_seq: u64,
    /// The person asked for a pass (`i`, `s`): its result is theirs, not a background note.
    asked: bool,
    data_version: Option<i64>,
    /// Where changes come from: paths under the skills folder that changed while one of the
    /// person's ops was running wait here until the op says which folders it wrote.
    held_edits: Option<Vec<PathBuf>>,
    /// Folders the engine's own ops wrote (with what they left there), and until when their
    /// file events may still come.
    own_writes: Vec<(OwnWrite, Instant)>,
    /// How long after an op its file events may still arrive (generous: a folder is only taken
    /// for an echo while it still holds what the op left, so a hand edit is never missed).
    echo: Duration,
}

impl Engine {
    async fn run(mut self, mut commands: UnboundedReceiver<Command>, options: EngineOptions) {
        let (watch_tx, mut watch_rx) = mpsc::unbounded_channel();
        let mut watcher =
            if options.watch { self.start_watching(&options, watch_tx.clone()) } else { None };
        let mut running: Option<Running> = None;
        // At most one team sync at a time; team tasks report on their own channel.
        let mut syncing = false;
        let (team_tx, mut team_rx) = mpsc::unbounded_channel::<TeamDone>();
        let mut poll = tokio::time::interval(options.poll);
        // Without a timer the interval still exists but its branch is disabled.
        let period = options.pass_every.unwrap_or(Duration::from_secs(24 * 3600));
        let mut timer = tokio::time::interval(period);
        timer.tick().await;
        self.reload(true).await;
        // A team sync follows each full pass (what it pushes is what the pass read).
        let mut sync_due = false;
        if options.pass_on_start {
            self.enqueue(Work::Pass { ingest: true, sweep: true });
            sync_due = true;
        }
        loop {
            if running.is_none() {
                running = self.start_next();
            }
            tokio::select! {
                biased;
                cmd = commands.recv() => match cmd {
                    None => break,
                    Some(Command::Team(op)) => {
                        self.start_team(Some(op), &team_tx);
                    }
                    Some(Command::View(view)) => {
                        let view = latest_view(view, &mut commands, &mut self);
                        self.view = view;
                        self.reload(false).await;
                    }
                    Some(cmd) => self.command(cmd),
                },
                done = async { running.as_mut().expect("guarded").await }, if running.is_some() => {
                    running = None;
                    self.finish(done).await;
                    let pass_queued = self.queue.contains(&Work::Pass { ingest: true, sweep: true });
                    if sync_due && !pass_queued && !syncing {
                        sync_due = false;
                        syncing = self.start_team(None, &team_tx);
                    }
                }
                Some(done) = team_rx.recv() => {
                    if done.sync {
                        syncing = false;
                    }
                    if let Some(view) = done.view {
                        self.snap.team = Some(Arc::new(view));
                    }
                    self.reload(true).await;
                    match done.said {
                        Some(line) if done.failed => self.send(Update::Failed(line)),
                        Some(line) if done.personal => self.send(Update::Done(line)),
                        Some(line) => self.send(Update::Note(line)),
                        None => {}
                    }
                }
                Some(changed) = watch_rx.recv() => match changed {
                    watch::Changed::Transcripts => self.enqueue(Work::Pass { ingest: true, sweep: false }),
                    watch::Changed::Skills(paths) => {
                        // The skills folder was just created: watch inside it from now on.
                        if watcher.as_ref().is_some_and(|w| !w.skills_watched)
                            && self.snap.watching.skills_dir.is_dir()
                        {
                            watcher = self.start_watching(&options, watch_tx.clone());
                        }
                        self.skills_changed(paths)
                    }
                },
                _ = poll.tick() => {
                    if self.reader.as_ref().and_then(|r| r.data_version().ok()) != self.data_version {
                        self.outside_change().await;
                    }
                }
                _ = timer.tick(), if options.pass_every.is_some() => {
                    self.enqueue(Work::Pass { ingest: true, sweep: true });
                    sync_due = true;
                }
            }
        }
        if let Some(job) = running {
            let _ = job.await;
        }
        // A team task waiting on the network is left to its deadline; the process may end first.
    }

    /// Starts a team task on its own workspace connection, when `[team]` is configured: a sync
    /// (`op` is `None`) or the person's decision. Each reads the team's state after it. Returns
    /// whether it started.
    fn start_team(&self, op: Option<team::TeamOp>, tx: &UnboundedSender<TeamDone>) -> bool {
        let (config, paths) = self.reopen.clone();
        if config.team.url.trim().is_empty() {
            if op.is_some() {
                self.send(Update::Failed("no [team] in the config: see docs/team.md".into()));
            }
            return false;
        }
        let tx = tx.clone();
        tokio::task::spawn_blocking(move || {
            let sync = op.is_none();
            let mut done =
                TeamDone { said: None, failed: false, personal: !sync, sync, view: None };
            match Workspace::with_paths(config, paths) {
                Err(e) => (done.said, done.failed) = (Some(format!("team: {e:#}")), true),
                Ok(mut ws) => {
                    match &op {
                        None => done.said = team::sync(&mut ws),
                        Some(op) => match team::apply(&ws, op) {
                            Ok(line) => done.said = Some(line),
                            Err(e) => (done.said, done.failed) = (Some(format!("{e:#}")), true),
                        },
                    }
                    if let Ok(t) = team::settings(&ws) {
                        done.view = team::view(&ws, &t).ok();
                    }
                }
            }
            let _ = tx.send(done);
        });
        true
    }

    fn start_watching(
        &self,
        options: &EngineOptions,
        tx: UnboundedSender<watch::Changed>,
    ) -> Option<watch::Watcher> {
        let w = &self.snap.watching;
        match watch::watch(&w.transcript_roots, &w.skills_dir, options.debounce, tx) {
            Ok(watcher) => {
                let n = watcher.watched.len();
                let mut note = format!("watching {} for changes", count(n as u64, "folder"));
                if !watcher.skills_watched {
                    // The hint first: a status line cuts the end, and the path may be long.
                    note = format!(
                        "the skills folder does not exist yet (check --skills-dir): {} is \
                         watched once created; {note}",
                        w.skills_dir.display()
                    );
                }
                self.send(Update::Note(note));
                Some(watcher)
            }
            Err(e) => {
                self.send(Update::Failed(format!("file watching is off: {e}")));
                None
            }
        }
    }

    fn command(&mut self, cmd: Command) {
        match cmd {
            Command::Op(op) => self.enqueue(Work::Op(op)),
            Command::Undo(seq) => self.undo_last(seq),
            Command::IngestNow => {
                self.asked = true;
                self.enqueue(Work::Pass { ingest: true, sweep: false })
            }
            Command::SweepNow => {
                self.asked = true;
                self.enqueue(Work::Pass { ingest: false, sweep: true })
            }
            Command::Refresh => self.data_version = None,
            Command::Edited { file, skill } => self.enqueue(Work::Edited { file, skill }),
            Command::View(view) => self.view = view,
            // Started by the loop, which holds the team tasks' channel.
            Command::Team(_) => {}
        }
    }

    /// Queues a job. Background work already queued is not queued twice; the person's ops go
    /// ahead of queued background work (never ahead of each other).
    fn enqueue(&mut self, job: Work) {
        let background = |j: &Work| matches!(j, Work::Pass { .. } | Work::ScanEdits);
        if background(&job) {
            if !self.queue.contains(&job) {
                self.queue.push_back(job);
            }
            return;
        }
        let at = self.queue.iter().position(background).unwrap_or(self.queue.len());
        self.queue.insert(at, job);
    }

    fn start_next(&mut self) -> Option<Running> {
        self.ws.as_ref()?;
        let job = self.queue.pop_front()?;
        let mut ws = self.ws.take()?;
        self.send(Update::Busy(describe(&job)));
        let personal = match job {
            Work::Op(_) | Work::Undo(_) | Work::Edited { .. } => true,
            Work::Pass { .. } => std::mem::take(&mut self.asked),
            Work::ScanEdits => false,
        };
        if matches!(job, Work::Op(_) | Work::Undo(_)) {
            self.held_edits = Some(Vec::new());
        }
        let updates = self.updates.clone();
        Some(tokio::task::spawn_blocking(move || {
            let done = run_job(&mut ws, job, personal, &updates);
            (ws, done, personal)
        }))
    }

    /// Files under the skills folder changed. A change in a folder one of the engine's own ops
    /// wrote, which still holds what the op left, is the echo of that write (already recorded
    /// by the op); anything else is an outside change and is scanned. While an op runs, changes
    /// wait for it to say which folders it wrote.
    fn skills_changed(&mut self, paths: Vec<PathBuf>) {
        if let Some(held) = self.held_edits.as_mut() {
            held.extend(paths);
            return;
        }
        if self.skill_files.receiver_count() > 0 {
            let _ = self.skill_files.send(Arc::new(paths.clone()));
        }
        let now = Instant::now();
        self.own_writes.retain(|(_, until)| *until > now);
        let echo = |p: &PathBuf| {
            self.own_writes.iter().any(|(own, _)| p.starts_with(&own.folder) && own.unchanged())
        };
        let outside: Vec<PathBuf> = paths.into_iter().filter(|p| !echo(p)).collect();
        if !outside.is_empty() {
            // A folder changed by hand is no longer the op's: a later edit back to the op's
            // text is an edit too.
            self.own_writes.retain(|(own, _)| !outside.iter().any(|p| p.starts_with(&own.folder)));
            self.enqueue(Work::ScanEdits);
        }
    }

    async fn finish(&mut self, done: Result<(Workspace, JobDone, bool), tokio::task::JoinError>) {
        let held = self.held_edits.take();
        if let Ok((_, job, _)) = &done {
            let until = Instant::now() + self.echo;
            self.own_writes.extend(job.wrote.iter().map(|own| (own.clone(), until)));
        }
        if let Some(paths) = held.filter(|p| !p.is_empty()) {
            self.skills_changed(paths);
        }
        // The result is sent after the snapshot that shows it: a key pressed on reading it acts
        // on the new state, never on the rows from before the job.
        let said = match done {
            Ok((ws, JobDone { result, done, back, .. }, personal)) => {
                self.ws = Some(ws);
                if let Some(entry) = back {
                    let at = self.undo.partition_point(|e| e.seq < entry.seq);
                    self.undo.insert(at, entry);
                }
                match result {
                    Ok(message) => {
                        if let Some(done) = done {
                            let at = std::time::SystemTime::now();
                            self.undo.push(Entry { seq: self.next_seq, done, at });
                            self.next_seq += 1;
                        }
                        if personal { Update::Done(message) } else { Update::Note(message) }
                    }
                    Err(e) => Update::Failed(self.say_error(e, "")),
                }
            }
            Err(e) => {
                // The workspace was lost with the panicked job: reopen it.
                let (config, paths) = self.reopen.clone();
                match Workspace::with_paths(config, paths) {
                    Ok(ws) => self.ws = Some(ws),
                    Err(open) => {
                        self.send(Update::Failed(format!("engine job crashed ({e}); {open:#}")));
                        return;
                    }
                }
                Update::Failed(format!("engine job crashed: {e}"))
            }
        };
        self.reload(true).await;
        self.send(said);
    }

    /// `u` answered yes for the change numbered `seq`: undo it if it is still the last one and
    /// can be undone. It leaves the history while its undo runs; an undo that fails puts it
    /// back as one that cannot be undone, so `u` never reaches past it.
    fn undo_last(&mut self, seq: u64) {
        let said = match self.undo.last() {
            None => "nothing to undo".to_string(),
            Some(last) if last.seq != seq => {
                "nothing undone: another change came after the one asked about (u again shows it)"
                    .to_string()
            }
            Some(last) if !last.done.undoable => snapshot::cannot_undo(&past(&last.done.op)),
            Some(_) => {
                let entry = self.undo.pop().expect("checked");
                self.enqueue(Work::Undo(entry));
                self.snap.undo = self.offer();
                self.send(Update::Snapshot(Arc::new(self.snap.clone())));
                return;
            }
        };
        self.send(Update::Failed(said));
    }

    /// What `u` would take back now.
    fn offer(&self) -> Option<UndoOffer> {
        self.undo.last().map(|e| UndoOffer {
            seq: e.seq,
            what: past(&e.done.op),
            undoable: e.done.undoable,
            at: e.at,
        })
    }

    /// Another process wrote the database (a hook's `record`, the CLI): reload, and say what
    /// changed as a note (shown once any result on screen has been read). Nothing is said
    /// before the first load.
    async fn outside_change(&mut self) {
        let before = self.snap.clone();
        self.reload(true).await;
        if !before.loaded() {
            return;
        }
        let said = snapshot::changes(&before, &self.snap);
        if !said.is_empty() {
            self.send(Update::Note(format!("changed outside the console: {}", said.join("; "))));
        }
    }

    /// Rebuilds the snapshot (the lists too when `lists`) and sends it.
    async fn reload(&mut self, lists: bool) {
        let Some(reader) = self.reader.take() else { return };
        let mut snap = self.snap.clone();
        let view = self.view.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let result = snapshot::refresh(&reader, &mut snap, &view, lists);
            (reader, snap, result)
        })
        .await;
        match joined {
            Ok((reader, snap, result)) => {
                self.reader = Some(reader);
                match result {
                    Ok(version) => {
                        // Only a reload of the lists catches up with other writers; a view-only
                        // refresh must not mark their changes as seen.
                        if lists {
                            self.data_version = Some(version);
                        }
                        self.snap = snap;
                        self.snap.undo = self.offer();
                        self.send(Update::Snapshot(Arc::new(self.snap.clone())));
                    }
                    Err(e) => {
                        self.send(Update::Failed(self.say_error(e, "reading the database: ")))
                    }
                }
            }
            Err(e) => self.send(Update::Failed(format!("reading the database crashed: {e}"))),
        }
    }

    /// An error for the status line: one line with the fix for database troubles.
    fn say_error(&self, e: anyhow::Error, context: &str) -> String {
        match trouble::explain(&self.snap.watching.db, &e) {
            Some(line) => line,
            None => format!("{context}{e:#}"),
        }
    }

    fn send(&self, update: Update) {
        let _ = self.updates.send(update);
    }
}

/// The newest `View` among the commands already waiting; others are applied in order.
fn latest_view(
    mut view: View,
    commands: &mut UnboundedReceiver<Command>,
    engine: &mut Engine,
) -> View {
    while let Ok(cmd) = commands.try_recv() {
        match cmd {
            Command::View(v) => view = v,
            other => engine.command(other),
        }
    }
    view
}
