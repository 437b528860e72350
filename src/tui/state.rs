//! The console's own state (selection, pane, filter, prompts) and how actions change it.
//! `update` is pure apart from `UiState`: it returns the engine command an action asks for.

use std::sync::Arc;

use ratatui::layout::Rect;

use super::action::Action;
use super::keys::KeyMap;
use super::layout;
use crate::catalog::SkillStatus;
use crate::engine::snapshot::{CandidateView, QueueItem, SkillRow, Snapshot};
use crate::engine::{Command, Op, Progress, Target, View};
use crate::text::hex::sha256_hex;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Queue,
    Skills,
    Timeline,
    Diff,
    Lessons,
    Team,
}

impl Pane {
    pub const ALL: [Pane; 6] =
        [Pane::Queue, Pane::Skills, Pane::Timeline, Pane::Diff, Pane::Lessons, Pane::Team];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Queue => "Queue",
            Pane::Skills => "Skills",
            Pane::Timeline => "Timeline",
            Pane::Diff => "Diff",
            Pane::Lessons => "Lessons",
            Pane::Team => "Team",
        }
    }

    /// The tabs the header shows: the Lessons tab once there is a lesson, the Team tab once
    /// the team's state was read (or while either is open).
    pub fn tabs(snap: &Snapshot, current: Pane) -> Vec<Pane> {
        let lessons = !snap.lessons.is_empty() || current == Pane::Lessons;
        let team = snap.team.is_some() || current == Pane::Team;
        Pane::ALL
            .into_iter()
            .filter(|p| (*p != Pane::Lessons || lessons) && (*p != Pane::Team || team))
            .collect()
    }

    /// The count a tab shows after its title (` (3)`), if any.
    pub fn count(self, snap: &Snapshot) -> String {
        match self {
            Pane::Queue => format!(" ({})", snap.candidates.len()),
            Pane::Skills => format!(" ({})", snap.skills.len()),
            Pane::Lessons => format!(" ({})", super::lessons::to_review(snap)),
            Pane::Team => format!(" ({})", super::team::open(snap)),
            Pane::Timeline | Pane::Diff => String::new(),
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// A change waiting for y/n.
#[derive(Debug, Clone, PartialEq)]
pub enum Confirm {
    Approve {
        id: i64,
        name: String,
        /// sha256 of the text shown: approve refuses if it is no longer what it would write.
        seen: String,
    },
    Reject {
        id: i64,
        name: String,
    },
    /// A skill edited by hand: approve the text on disk.
    ApproveEdit(Target),
    /// A skill edited by hand: back to its approved version.
    Rollback(Target, i64),
    /// Diff pane: back to the version under the cursor (as a new version).
    RollbackTo(Target, i64),
    /// A candidate flagged for text aimed at the agent or a dangerous command: promote anyway.
    PromoteFlagged(Target, usize),
    /// A lesson standing for a dangerous command (the flags' reasons): approve or pin anyway.
    LessonFlagged(Target, crate::lessons::LessonStatus, Vec<String>),
    /// `u`: take back the last change (`what`, made `ago`), numbered `seq` by the engine.
    Undo {
        seq: u64,
        what: String,
        ago: String,
    },
}

/// A file for the editor, and whether it is a live skill's (recorded as a version when saved)
/// or a draft's (promoted as saved).
#[derive(Debug, Clone, PartialEq)]
pub struct EditRequest {
    pub file: std::path::PathBuf,
    pub skill: bool,
}

/// What the engine last said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineStatus {
    pub busy: Option<String>,
    pub progress: Option<Progress>,
    pub message: Option<String>,
    pub error: bool,
    /// The message is the result of something the person did (or an error): background notes
    /// do not replace it until it has been read.
    pub sticky: bool,
    /// A key was pressed since the message arrived.
    pub seen: bool,
    /// Notes that came while an unread result was on screen, shown once it has been read.
    pub waiting: Vec<String>,
}

impl EngineStatus {
    /// The result of the person's action, or an error: shown until replaced by another result.
    pub fn result(&mut self, text: String, error: bool) {
        self.message = Some(text);
        self.error = error;
        self.sticky = true;
        self.seen = false;
    }

    /// What background work found: shown at once unless an unread result is on screen, else
    /// kept until the result has been read (never dropped, never over the result).
    pub fn note(&mut self, text: String) {
        if self.message.is_none() || self.seen || !self.sticky {
            self.message = Some(text);
            self.error = false;
            self.sticky = false;
            self.seen = false;
        } else if !self.waiting.contains(&text) {
            self.waiting.push(text);
        }
    }

    /// A key was pressed: the message on screen has been read; notes that waited behind it
    /// show now.
    pub fn read(&mut self) {
        self.seen = true;
        if !self.waiting.is_empty() {
            let waited = std::mem::take(&mut self.waiting).join(" · ");
            self.note(waited);
        }
    }
}

/// What the `f` key narrows the Skills list to: a status, or protected skills whatever their
/// status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    Status(SkillStatus),
    Pinned,
}

impl std::fmt::Display for StateFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateFilter::Status(s) => f.write_str(s.as_str()),
            StateFilter::Pinned => f.write_str("pinned"),
        }
    }
}

/// The filters the `f` key cycles through, in order.
pub const STATE_FILTERS: [StateFilter; 8] = [
    StateFilter::Status(SkillStatus::Healthy),
    StateFilter::Status(SkillStatus::Warning),
    StateFilter::Status(SkillStatus::Deprecated),
    StateFilter::Status(SkillStatus::Degraded),
    StateFilter::Status(SkillStatus::Missing),
    StateFilter::Pinned,
    StateFilter::Status(SkillStatus::Archived),
    StateFilter::Status(SkillStatus::Retired),
];

/// Orders of the Skills list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    #[default]
    Name,
    /// Worst first: missing and deprecated, degraded, warning, healthy, then parked skills.
    State,
    /// Lowest success rate first (worst first, like `State`); never used last.
    Rate,
    /// Most used first.
    Uses,
    /// Most recently used first; never used last.
    LastUsed,
    /// Best effect first (`usage::effect`): helps, mixed, no clear difference, makes things
    /// worse, then not enough evidence and not measured; larger success gains first within one.
    Effect,
}

impl Sort {
    pub fn label(self) -> &'static str {
        match self {
            Sort::Name => "name",
            Sort::State => "state",
            Sort::Rate => "rate",
            Sort::Uses => "uses",
            Sort::LastUsed => "last used",
            Sort::Effect => "effect",
        }
    }

    fn next(self) -> Sort {
        match self {
            Sort::Name => Sort::State,
            Sort::State => Sort::Rate,
            Sort::Rate => Sort::Uses,
            Sort::Uses => Sort::LastUsed,
            Sort::LastUsed => Sort::Effect,
            Sort::Effect => Sort::Name,
        }
    }
}

fn state_rank(status: SkillStatus) -> u8 {
    match status {
        SkillStatus::Missing | SkillStatus::Deprecated => 0,
        SkillStatus::Degraded => 1,
        SkillStatus::Warning => 2,
        SkillStatus::Healthy => 3,
        SkillStatus::Archived => 5,
        SkillStatus::Retired => 6,
    }
}

#[derive(Debug, Clone, Default)]
pub struct UiState {
    pub pane: Pane,
    pub queue_sel: usize,
    pub skills_sel: usize,
    /// First skills row on screen.
    pub skills_top: usize,
    pub version_sel: usize,
    /// Lessons pane: the selected row of `snap.lessons`.
    pub lessons_sel: usize,
    /// Team pane: the selected row (candidates, then skills).
    pub team_sel: usize,
    /// Diff base version index; `None` means the one before the cursor.
    pub version_base: Option<usize>,
    pub scroll: u16,
    /// Queue detail shown full width.
    pub zoom: bool,
    /// Skills pane: the selected skill's detail (package, identity, traces, versions) is open.
    pub skill_detail: bool,
    /// Sideways scroll of the diff views.
    pub hscroll: u16,
    pub filter: String,
    pub filtering: bool,
    /// Skills pane: only skills in this state (an index into [`STATE_FILTERS`]).
    pub state_filter: Option<usize>,
    pub sort: Sort,
    /// Indices into the snapshot's lists that pass the filter, in display order.
    pub queue_rows: Vec<usize>,
    pub skill_rows: Vec<usize>,
    /// Lessons in the snapshot last synced (for clamping the selection).
    pub lesson_count: usize,
    synced: Option<(u64, String, Option<usize>, Sort)>,
    /// The candidate the queue's detail was last scrolled for: another one starts at the top.
    shown_candidate: Option<i64>,
    pub help: bool,
    pub help_scroll: u16,
    /// The history overlay (dismissed and rejected candidates) is open.
    pub history: bool,
    pub history_sel: usize,
    /// A path to put on the clipboard (the app loop hands it to the terminal).
    pub clipboard: Option<String>,
    /// A file to open in the editor (the app loop hands the terminal over to it).
    pub edit: Option<EditRequest>,
    pub keymap: Arc<KeyMap>,
    pub confirm: Option<Confirm>,
    pub engine: EngineStatus,
    /// Why the database could not be read before anything was shown: the panes say it instead
    /// of "Reading the database…", and quitting then exits non-zero.
    pub load_error: Option<String>,
    /// False under NO_COLOR: states are still words, emphasis uses modifiers.
    pub color: bool,
    pub area: Rect,
    pub quit: bool,
    pub tick: u64,
}

impl UiState {
    pub fn new(area: Rect, color: bool) -> Self {
        UiState { area, color, ..UiState::default() }
    }

    pub fn with_keymap(mut self, keymap: KeyMap) -> Self {
        self.keymap = Arc::new(keymap);
        self
    }

    /// Recomputes the filtered rows when the lists, the filter or the order changed.
    pub fn sync(&mut self, snap: &Snapshot) {
        let key = (snap.generation, self.filter.clone(), self.state_filter, self.sort);
        if self.synced.as_ref() == Some(&key) {
            return;
        }
        let f = self.filter.as_str();
        self.queue_rows =
            (0..snap.candidates.len()).filter(|&i| fuzzy(&snap.candidates[i].name, f)).collect();
        let state = self.state_filter.and_then(|i| STATE_FILTERS.get(i)).copied();
        let in_state = |s: &SkillRow| match state {
            None => true,
            Some(StateFilter::Pinned) => s.protected,
            Some(StateFilter::Status(status)) => s.status == status,
        };
        self.lesson_count = snap.lessons.len();
        self.skill_rows = (0..snap.skills.len())
            .filter(|&i| fuzzy(&snap.skills[i].name, f) && in_state(&snap.skills[i]))
            .collect();
        // Stable sorts: names stay in order within a state or a use count.
        match self.sort {
            Sort::Name => {}
            Sort::State => self.skill_rows.sort_by_key(|&i| state_rank(snap.skills[i].status)),
            Sort::Uses => self.skill_rows.sort_by_key(|&i| std::cmp::Reverse(snap.skills[i].uses)),
            Sort::Rate => self.skill_rows.sort_by(|&a, &b| {
                let rate = |i: usize| snap.skills[i].rate.unwrap_or(f64::INFINITY);
                rate(a).total_cmp(&rate(b))
            }),
            // ISO times sort as text; `None` (never used) sorts below any time.
            Sort::LastUsed => self
                .skill_rows
                .sort_by(|&a, &b| snap.skills[b].last_used.cmp(&snap.skills[a].last_used)),
            Sort::Effect => self.skill_rows.sort_by(|&a, &b| {
                let key = |i: usize| match snap.skills[i].effect {
                    Some(e) => (e.verdict.rank(), -e.score.unwrap_or(0.0)),
                    None => (u8::MAX, 0.0),
                };
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
            }),
        }
        self.synced = Some(key);
        self.clamp();
        let shown = self.candidate(snap).map(|c| c.id);
        if shown != self.shown_candidate {
            if self.pane == Pane::Queue {
                self.scroll = 0;
                self.hscroll = 0;
            }
            self.shown_candidate = shown;
        }
    }

    /// A left click at (`x`, `y`): a tab switches pane; a row of a list selects it (and its
    /// pane).
    pub fn click(&mut self, snap: &Snapshot, x: u16, y: u16) {
        let [header, body, _] = layout::frame(self.area);
        if y == header.y {
            // Tabs as the header draws them: " skilldeck " then " N Title (count) " each.
            let mut left = header.x + 11;
            for pane in Pane::tabs(snap, self.pane) {
                let (n, count) = (pane.index() + 1, pane.count(snap));
                let width = format!(" {n} {}{count} ", pane.title()).chars().count() as u16;
                if (left..left + width).contains(&x) {
                    go(self, pane);
                    return;
                }
                left += width;
            }
            return;
        }
        if !(body.y..body.y + body.height).contains(&y) {
            return;
        }
        let row_in = |top: u16, visible: u16| -> Option<usize> {
            (y >= top && y < top + visible).then(|| usize::from(y - top))
        };
        match self.pane {
            Pane::Queue if !self.zoom => {
                if x >= body.x + layout::queue_width(body) {
                    return;
                }
                let visible = body.height.saturating_sub(2);
                let offset = self.queue_sel.saturating_sub(usize::from(visible).saturating_sub(1));
                if let Some(r) = row_in(body.y + 1, visible) {
                    self.queue_sel = (offset + r).min(self.queue_rows.len().saturating_sub(1));
                    self.scroll = 0;
                }
            }
            Pane::Skills if !self.skill_detail => {
                if let Some(r) = row_in(body.y + 2, body.height.saturating_sub(3)) {
                    let at = self.skills_top + r;
                    if at < self.skill_rows.len() {
                        self.skills_sel = at;
                        self.version_sel = usize::MAX;
                        self.version_base = None;
                    }
                }
            }
            Pane::Diff => {
                let detail = snap
                    .detail
                    .as_ref()
                    .filter(|d| Some(d.skill_id) == self.skill(snap).map(|s| s.id));
                let n = detail.map_or(0, |d| d.versions.len());
                let width = (layout::list_width(body) * 3 / 4).max(24.min(body.width));
                if x < body.x + width
                    && let Some(r) = row_in(body.y + 1, body.height.saturating_sub(2))
                    && r < n
                {
                    self.version_sel = r;
                    self.scroll = 0;
                    self.hscroll = 0;
                }
            }
            _ => {}
        }
        self.clamp();
    }

    /// What narrows the lists right now, for pane titles: `/text`, `only warning`, both apart
    /// (`/rel · only healthy`).
    pub fn filter_label(&self, skills: bool) -> Option<String> {
        let mut parts = Vec::new();
        if !self.filter.is_empty() {
            parts.push(format!("/{}", self.filter));
        }
        if skills && let Some(state) = self.state_filter.and_then(|i| STATE_FILTERS.get(i)) {
            parts.push(format!("only {state}"));
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// The terminal changed size: keep the selection on screen.
    pub fn resize(&mut self, area: Rect) {
        self.area = area;
        self.clamp();
    }

    fn clamp(&mut self) {
        self.queue_sel = self.queue_sel.min(self.queue_rows.len().saturating_sub(1));
        self.lessons_sel = self.lessons_sel.min(self.lesson_count.saturating_sub(1));
        self.skills_sel = self.skills_sel.min(self.skill_rows.len().saturating_sub(1));
        let page = layout::skills_page(self.area).max(1);
        if self.skills_sel < self.skills_top {
            self.skills_top = self.skills_sel;
        } else if self.skills_sel >= self.skills_top + page {
            self.skills_top = self.skills_sel + 1 - page;
        }
        self.skills_top = self.skills_top.min(self.skill_rows.len().saturating_sub(page));
    }

    pub fn lesson<'s>(&self, snap: &'s Snapshot) -> Option<&'s crate::lessons::Lesson> {
        snap.lessons.get(self.lessons_sel)
    }

    pub fn candidate<'s>(&self, snap: &'s Snapshot) -> Option<&'s CandidateView> {
        self.queue_rows.get(self.queue_sel).and_then(|&i| snap.candidates.get(i))
    }

    pub fn skill<'s>(&self, snap: &'s Snapshot) -> Option<&'s SkillRow> {
        self.skill_rows.get(self.skills_sel).and_then(|&i| snap.skills.get(i))
    }

    /// The skills on screen and the selected one, for the engine to load rates and detail.
    pub fn view(&self, snap: &Snapshot) -> View {
        let page = layout::skills_page(self.area);
        let end = (self.skills_top + page).min(self.skill_rows.len());
        let visible = self.skill_rows[self.skills_top.min(end)..end]
            .iter()
            .filter_map(|&i| snap.skills.get(i).map(|s| s.id))
            .collect();
        let selected = self.skill(snap).map(|s| s.id);
        View {
            visible,
            selected,
            package: self.skill_detail && self.pane == Pane::Skills,
            history: self.history,
        }
    }

    /// (base, head) indices into the selected skill's versions for the diff pane.
    pub fn diff_pair(&self, versions: usize) -> Option<(Option<usize>, usize)> {
        if versions == 0 {
            return None;
        }
        let head = self.version_sel.min(versions - 1);
        let base = match self.version_base {
            Some(b) if b < versions && b != head => Some(b),
            _ => head.checked_sub(1),
        };
        Some((base, head))
    }
}

/// Case-insensitive subsequence match: "dpl" matches "deploy".
pub fn fuzzy(text: &str, pattern: &str) -> bool {
    let mut chars = text.chars().flat_map(char::to_lowercase);
    pattern.chars().flat_map(char::to_lowercase).all(|p| chars.any(|c| c == p))
}

/// Applies an action to the UI state; returns what the engine must do, if anything.
pub fn update(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    // A key after a result means it was read: background notes may replace it now.
    ui.engine.read();
    let cmd = match action {
        Action::Approve | Action::Dismiss | Action::ToggleProtected | Action::Reopen
            if ui.pane == Pane::Lessons && !ui.history =>
        {
            super::lessons::op(ui, snap, action)
        }
        Action::Promote | Action::Dismiss | Action::ToggleProtected
            if ui.pane == Pane::Team && !ui.history =>
        {
            super::team::op(ui, snap, action)
        }
        Action::Up => step(ui, snap, -1),
        Action::Down => step(ui, snap, 1),
        Action::Top => step(ui, snap, isize::MIN / 2),
        Action::Bottom => step(ui, snap, isize::MAX / 2),
        Action::PageDown => page(ui, snap, 1),
        Action::PageUp => page(ui, snap, -1),
        Action::NextPane | Action::PrevPane => {
            let tabs = Pane::tabs(snap, ui.pane);
            let at = tabs.iter().position(|p| *p == ui.pane).unwrap_or(0);
            let n = tabs.len();
            let to = if action == Action::NextPane { (at + 1) % n } else { (at + n - 1) % n };
            go(ui, tabs[to])
        }
        Action::GoLessons => go(ui, Pane::Lessons),
        Action::GoTeam => go(ui, Pane::Team),
        Action::GoQueue => go(ui, Pane::Queue),
        Action::GoSkills => go(ui, Pane::Skills),
        Action::GoTimeline => go(ui, Pane::Timeline),
        Action::GoDiff => go(ui, Pane::Diff),
        Action::ScrollLeft => {
            ui.hscroll = ui.hscroll.saturating_sub(8);
            None
        }
        Action::ScrollRight => {
            ui.hscroll = ui.hscroll.saturating_add(8);
            None
        }
        Action::NextHunk => hunk(ui, snap, true),
        Action::PrevHunk => hunk(ui, snap, false),
        Action::Enter => enter(ui, snap),
        Action::Back => back(ui, snap),
        Action::StartFilter => {
            ui.filtering = true;
            None
        }
        Action::CycleStateFilter => {
            ui.state_filter = match ui.state_filter {
                None => Some(0),
                Some(i) if i + 1 < STATE_FILTERS.len() => Some(i + 1),
                Some(_) => None,
            };
            if ui.pane != Pane::Skills {
                go(ui, Pane::Skills);
            }
            ui.sync(snap);
            None
        }
        Action::CycleSort => {
            ui.sort = ui.sort.next();
            if ui.pane != Pane::Skills {
                go(ui, Pane::Skills);
            }
            ui.sync(snap);
            None
        }
        Action::CopyPath => copy_path(ui, snap),
        Action::History => {
            ui.history = !ui.history;
            ui.history_sel = 0;
            None
        }
        Action::Reopen => reopen(ui, snap),
        Action::Rollback => rollback_to(ui, snap),
        Action::Edit => edit(ui, snap),
        Action::FilterChar(c) => {
            ui.filter.push(c);
            ui.sync(snap);
            None
        }
        Action::FilterBackspace => {
            ui.filter.pop();
            ui.sync(snap);
            None
        }
        Action::MarkBase => {
            ui.version_base = Some(ui.version_sel);
            None
        }
        Action::Promote | Action::Dismiss => candidate_op(ui, snap, action),
        Action::Approve | Action::Reject => proposal_op(ui, snap, action),
        Action::ToggleProtected | Action::Archive | Action::Restore => skill_op(ui, snap, action),
        Action::Undo => ask_undo(ui, snap),
        Action::Sweep => Some(Command::SweepNow),
        Action::Ingest => Some(Command::IngestNow),
        Action::Confirm => ui.confirm.take().map(|c| {
            if let Confirm::Undo { seq, .. } = c {
                return Command::Undo(seq);
            }
            Command::Op(match c {
                Confirm::Approve { id, name, seen } => {
                    Op::Approve(Target { id, name, seen: Some(seen), ..Target::default() })
                }
                Confirm::Reject { id, name } => {
                    Op::Reject(Target { id, name, ..Target::default() })
                }
                Confirm::ApproveEdit(t) => Op::ApproveEdit(t),
                Confirm::PromoteFlagged(t, _) => Op::Promote(t),
                Confirm::LessonFlagged(t, status, _) => Op::Lesson(t, status),
                Confirm::Rollback(t, version) | Confirm::RollbackTo(t, version) => {
                    Op::Rollback(t, version)
                }
                Confirm::Undo { .. } => unreachable!("answered above"),
            })
        }),
        Action::Cancel => {
            ui.confirm = None;
            say(ui, "cancelled")
        }
        Action::Help => {
            ui.help = !ui.help;
            ui.help_scroll = 0;
            None
        }
        Action::Quit => {
            ui.quit = true;
            None
        }
    };
    ui.clamp();
    cmd
}

/// `u`: names the last change and asks before taking it back; says why when it cannot.
fn ask_undo(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    match &snap.undo {
        None => say(ui, "nothing to undo"),
        Some(offer) if !offer.undoable => {
            ui.engine.result(crate::engine::snapshot::cannot_undo(&offer.what), true);
            None
        }
        Some(offer) => {
            let secs = offer.at.elapsed().map_or(0, |d| d.as_secs());
            let ago = match secs {
                0..10 => "just now".to_string(),
                10..120 => format!("{secs} s ago"),
                _ => format!("{} min ago", secs / 60),
            };
            ui.confirm = Some(Confirm::Undo { seq: offer.seq, what: offer.what.clone(), ago });
            None
        }
    }
}

fn say(ui: &mut UiState, text: &str) -> Option<Command> {
    ui.engine.result(text.to_owned(), false);
    None
}

fn step(ui: &mut UiState, snap: &Snapshot, delta: isize) -> Option<Command> {
    if ui.history && !ui.help {
        let n = snap.history.as_ref().map_or(0, |h| h.len());
        ui.history_sel = (ui.history_sel as isize)
            .saturating_add(delta)
            .clamp(0, n.saturating_sub(1) as isize) as usize;
        return None;
    }
    if ui.help {
        // The overlay clamps the offset to its rows.
        ui.help_scroll = (ui.help_scroll as isize).saturating_add(delta).clamp(0, 200) as u16;
        return None;
    }
    let moved = |sel: usize, len: usize| -> usize {
        (sel as isize).saturating_add(delta).clamp(0, len.saturating_sub(1) as isize) as usize
    };
    match ui.pane {
        Pane::Queue => {
            ui.queue_sel = moved(ui.queue_sel, ui.queue_rows.len());
            ui.scroll = 0;
        }
        Pane::Lessons => {
            ui.lessons_sel = moved(ui.lessons_sel, snap.lessons.len());
            ui.scroll = 0;
        }
        Pane::Team => {
            let n = snap.team.as_deref().map_or(0, |v| super::team::rows(v).len());
            ui.team_sel = moved(ui.team_sel, n);
            ui.scroll = 0;
        }
        Pane::Skills | Pane::Timeline => {
            ui.skills_sel = moved(ui.skills_sel, ui.skill_rows.len());
            if ui.skill_detail {
                ui.scroll = 0;
            }
            ui.version_sel = usize::MAX;
            ui.version_base = None;
        }
        Pane::Diff => {
            let selected = ui.skill(snap).map(|s| s.id);
            let detail = snap.detail.as_ref().filter(|d| Some(d.skill_id) == selected);
            let n = detail.map(|d| d.versions.len())?;
            ui.version_sel = moved(ui.version_sel.min(n.saturating_sub(1)), n);
            ui.scroll = 0;
            ui.hscroll = 0;
        }
    }
    None
}

fn page(ui: &mut UiState, snap: &Snapshot, dir: isize) -> Option<Command> {
    if ui.pane == Pane::Skills && !ui.skill_detail {
        let page = layout::skills_page(ui.area) as isize;
        return step(ui, snap, dir * page);
    }
    let amount = (ui.area.height / 2).max(1);
    ui.scroll =
        if dir > 0 { ui.scroll.saturating_add(amount) } else { ui.scroll.saturating_sub(amount) };
    None
}

fn go(ui: &mut UiState, pane: Pane) -> Option<Command> {
    ui.pane = pane;
    ui.zoom = false;
    ui.skill_detail = false;
    ui.scroll = 0;
    ui.hscroll = 0;
    None
}

/// Diff pane: scroll so the next (or previous) block of changes is at the top.
fn hunk(ui: &mut UiState, snap: &Snapshot, forward: bool) -> Option<Command> {
    let texts = match ui.pane {
        Pane::Diff => {
            let detail =
                snap.detail.as_ref().filter(|d| Some(d.skill_id) == ui.skill(snap).map(|s| s.id));
            let versions = detail.map_or(&[][..], |d| &d.versions[..]);
            ui.diff_pair(versions.len()).map(|(base, head)| {
                (base.map_or("", |b| versions[b].content.as_str()), versions[head].content.as_str())
            })
        }
        _ => None,
    };
    let Some((old, new)) = texts else {
        return say(ui, "n and N jump between changes in the diff pane (4)");
    };
    let starts = super::panes::diff::hunk_starts(old, new);
    let at = ui.scroll as usize;
    let next = if forward {
        starts.iter().find(|&&s| s > at)
    } else {
        starts.iter().rev().find(|&&s| s < at)
    };
    match next {
        Some(&line) => ui.scroll = line as u16,
        None if starts.is_empty() => return say(ui, "no changes between these versions"),
        None => {
            return say(
                ui,
                if forward { "no more changes below" } else { "no more changes above" },
            );
        }
    }
    None
}

/// Puts the selected draft's (queue) or skill's folder on the clipboard.
fn copy_path(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    let path = match ui.pane {
        Pane::Queue => ui.candidate(snap).and_then(|c| c.staged_path.clone()),
        _ => ui.skill(snap).map(|s| s.path.clone()),
    };
    match path {
        Some(p) if !p.is_empty() => {
            ui.clipboard = Some(p);
            None
        }
        _ => say(ui, "nothing to copy: the selection has no folder"),
    }
}

/// History overlay: reopens the selected dismissed or rejected candidate into the queue.
fn reopen(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    if !ui.history {
        return say(ui, "O reopens a dismissed or rejected candidate: open the history with H");
    }
    let rows = snap.history.as_deref().map_or(&[][..], |h| &h[..]);
    let Some(row) = rows.get(ui.history_sel.min(rows.len().saturating_sub(1))) else {
        return say(ui, "nothing dismissed or rejected to reopen");
    };
    let target =
        Target { id: row.id, agent: row.agent.clone(), name: row.name.clone(), seen: None };
    Some(Command::Op(Op::Reopen(target)))
}

/// Diff pane: roll the selected skill back to the stored version under the cursor (y/n).
fn rollback_to(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    const WHERE: &str = "b rolls back to the version under the cursor in the diff pane (4)";
    if ui.pane != Pane::Diff {
        return say(ui, WHERE);
    }
    let Some(skill) = ui.skill(snap) else { return say(ui, "no skill selected") };
    let detail = snap.detail.as_ref().filter(|d| d.skill_id == skill.id);
    let versions = detail.map_or(&[][..], |d| &d.versions[..]);
    let Some((_, head)) = ui.diff_pair(versions.len()) else { return say(ui, WHERE) };
    let v = &versions[head];
    if v.proposal.is_some() {
        return say(ui, "this is a proposed version: a approves it, r rejects it");
    }
    if v.version == skill.version {
        return say(ui, "this is the live version: move to an earlier one (k) to roll back to it");
    }
    let target =
        Target { id: skill.id, agent: skill.agent.clone(), name: skill.name.clone(), seen: None };
    ui.confirm = Some(Confirm::RollbackTo(target, v.version));
    None
}

/// Asks the app loop to open the selected draft (queue) or SKILL.md (other panes) in the
/// editor. A new skill's draft is the staged file promote moves live; a hand-edited skill in
/// the queue is its live file.
fn edit(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    if ui.pane == Pane::Lessons {
        return say(
            ui,
            "reword a lesson with: skilldeck lessons edit ID --trigger/--avoid/--do TEXT",
        );
    }
    if ui.pane == Pane::Team {
        return say(ui, "a team draft is read here and promoted as shown; it is not edited");
    }
    let request = match ui.pane {
        Pane::Queue => {
            let Some(c) = ui.candidate(snap) else { return say(ui, "the review queue is empty") };
            match (&c.item, &c.staged_path) {
                (QueueItem::HandEdit { .. }, Some(folder)) => {
                    EditRequest { file: std::path::Path::new(folder).join("SKILL.md"), skill: true }
                }
                (QueueItem::Version { .. } | QueueItem::Merge { .. }, _) => {
                    return say(
                        ui,
                        "a proposed version has no draft file: approve it, then e in Skills (2) \
                         edits the live SKILL.md",
                    );
                }
                _ if c.skill_md.is_empty() => {
                    return say(ui, "this candidate is evidence only: it has no draft to edit");
                }
                _ => EditRequest {
                    file: snap.watching.staging_dir.join(&c.name).join("SKILL.md"),
                    skill: false,
                },
            }
        }
        _ => match ui.skill(snap) {
            Some(s) if s.status == SkillStatus::Missing => {
                let text = format!(
                    "{}'s SKILL.md is gone from {}: R writes its last version back",
                    s.name, s.path
                );
                return say(ui, &text);
            }
            Some(s) if !s.path.is_empty() => {
                EditRequest { file: std::path::Path::new(&s.path).join("SKILL.md"), skill: true }
            }
            _ => return say(ui, "no skill selected"),
        },
    };
    ui.edit = Some(request);
    None
}

fn enter(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    if ui.filtering {
        ui.filtering = false;
        return None;
    }
    match ui.pane {
        Pane::Queue => ui.zoom = ui.candidate(snap).is_some() && !ui.zoom,
        Pane::Skills => {
            ui.skill_detail = ui.skill(snap).is_some() && !ui.skill_detail;
            ui.scroll = 0;
        }
        Pane::Timeline => return go(ui, Pane::Diff),
        Pane::Diff | Pane::Lessons | Pane::Team => {}
    }
    None
}

fn back(ui: &mut UiState, snap: &Snapshot) -> Option<Command> {
    if ui.help {
        ui.help = false;
    } else if ui.history {
        ui.history = false;
    } else if ui.filtering {
        ui.filtering = false;
        ui.filter.clear();
        ui.sync(snap);
    } else if ui.zoom {
        ui.zoom = false;
    } else if ui.skill_detail {
        ui.skill_detail = false;
        ui.scroll = 0;
    } else if !ui.filter.is_empty() || (ui.pane == Pane::Skills && ui.state_filter.is_some()) {
        // A kept filter: Esc clears it (the name filter first, then the state filter).
        if ui.filter.is_empty() {
            ui.state_filter = None;
        }
        ui.filter.clear();
        ui.sync(snap);
    } else {
        match ui.pane {
            Pane::Timeline => ui.pane = Pane::Skills,
            Pane::Diff => ui.pane = Pane::Timeline,
            _ => {}
        }
    }
    None
}

fn candidate_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    if ui.pane != Pane::Queue {
        return say(ui, "promote and dismiss act on the review queue (1)");
    }
    let Some(c) = ui.candidate(snap) else { return say(ui, "the review queue is empty") };
    let target = seen_target(c);
    match (action, &c.item) {
        (_, QueueItem::HandEdit { .. }) => {
            say(ui, "this skill was edited by hand: a approves the edit, r rolls it back")
        }
        (Action::Promote, QueueItem::NewSkill) if !c.flags.is_empty() => {
            ui.confirm = Some(Confirm::PromoteFlagged(target, c.flags.len()));
            None
        }
        (Action::Promote, QueueItem::NewSkill) => Some(Command::Op(Op::Promote(target))),
        (_, QueueItem::NewSkill) => Some(Command::Op(Op::Dismiss(target))),
        (Action::Promote, _) => say(ui, "this is a proposed version: a approves, r rejects"),
        _ => say(ui, "this is a proposed version: r rejects it"),
    }
}

/// The queue row as a target, bound to the text shown (what promote or approve would write).
fn seen_target(c: &CandidateView) -> Target {
    Target {
        id: c.id,
        agent: c.agent.clone(),
        name: c.name.clone(),
        seen: Some(sha256_hex(c.skill_md.as_bytes())),
    }
}

fn proposal_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    if ui.pane == Pane::Queue
        && let Some(c) = ui.candidate(snap)
        && let QueueItem::HandEdit { approved } = &c.item
    {
        let target = seen_target(c);
        ui.confirm = Some(if action == Action::Approve {
            Confirm::ApproveEdit(target)
        } else {
            Confirm::Rollback(target, approved.version)
        });
        return None;
    }
    if action == Action::Approve
        && ui.pane == Pane::Queue
        && let Some(t) = ui.candidate(snap).and_then(|c| c.item.target())
        && !t.status.is_live()
    {
        let text = format!(
            "{} is {}: restore it (Skills, R) before approving a new version of it",
            t.name, t.status
        );
        return say(ui, &text);
    }
    let found = match ui.pane {
        Pane::Queue => ui.candidate(snap).and_then(|c| {
            let t = c.item.target()?;
            Some((c.id, t.name.clone(), sha256_hex(c.skill_md.as_bytes())))
        }),
        _ => {
            let detail = snap.detail.as_ref();
            let versions = detail.map_or(&[][..], |d| &d.versions[..]);
            let head = ui.diff_pair(versions.len()).map(|(_, h)| &versions[h]);
            let name = ui.skill(snap).map(|s| s.name.clone()).unwrap_or_default();
            head.and_then(|v| v.proposal.map(|id| (id, name, sha256_hex(v.content.as_bytes()))))
        }
    };
    let Some((id, name, seen)) = found else {
        return say(ui, "select a proposed version (queue, or the diff pane) to approve or reject");
    };
    ui.confirm = Some(if action == Action::Approve {
        Confirm::Approve { id, name, seen }
    } else {
        Confirm::Reject { id, name }
    });
    None
}

fn skill_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    if ui.pane == Pane::Queue {
        return say(ui, "pin, archive and restore act on skills (2)");
    }
    let Some(s) = ui.skill(snap) else { return say(ui, "no skill selected") };
    let target = Target { id: s.id, agent: s.agent.clone(), name: s.name.clone(), seen: None };
    Some(Command::Op(match action {
        Action::ToggleProtected => Op::SetProtected(target, !s.protected),
        Action::Archive => Op::Archive(target),
        _ => Op::Restore(target),
    }))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn skills(n: i64) -> Snapshot {
        let rows = (0..n)
            .map(|id| SkillRow {
                id,
                agent: "default".into(),
                name: format!("skill-{id:03}"),
                status: SkillStatus::Healthy,
                protected: id == 1,
                version: 1,
                path: format!("/skills/skill-{id:03}"),
                needs_review: false,
                uses: 0,
                rate: None,
                last_used: None,
                stale: false,
                effect: None,
            })
            .collect();
        Snapshot { generation: 1, skills: Arc::new(rows), ..Snapshot::default() }
    }

    #[test]
    fn paging_keeps_the_selection_on_screen_and_asks_for_those_rates() {
        let snap = skills(500);
        let mut ui = UiState::new(Rect::new(0, 0, 80, 24), false);
        ui.sync(&snap);
        update(&mut ui, &snap, Action::GoSkills);
        let page = layout::skills_page(ui.area);
        update(&mut ui, &snap, Action::PageDown);
        update(&mut ui, &snap, Action::PageDown);
        assert_eq!(ui.skills_sel, 2 * page);
        let view = ui.view(&snap);
        assert_eq!(view.visible.len(), page);
        assert!(view.visible.contains(&(2 * page as i64)));
        assert_eq!(view.selected, Some(2 * page as i64));
        update(&mut ui, &snap, Action::Bottom);
        assert_eq!(ui.view(&snap).visible.last(), Some(&499));
    }

    #[test]
    fn pin_toggles_from_the_selected_skill_and_queue_keys_explain_themselves() {
        let snap = skills(3);
        let mut ui = UiState::new(Rect::new(0, 0, 80, 24), false);
        ui.sync(&snap);
        assert_eq!(update(&mut ui, &snap, Action::ToggleProtected), None);
        assert!(ui.engine.message.as_deref().unwrap().contains("act on skills"));
        update(&mut ui, &snap, Action::GoSkills);
        update(&mut ui, &snap, Action::Down);
        let cmd = update(&mut ui, &snap, Action::ToggleProtected);
        let target =
            Target { id: 1, agent: "default".into(), name: "skill-001".into(), seen: None };
        assert_eq!(cmd, Some(Command::Op(Op::SetProtected(target, false))));
        assert_eq!(update(&mut ui, &snap, Action::Promote), None);
    }

    #[test]
    fn fuzzy_matches_subsequences_case_insensitively() {
        assert!(fuzzy("deploy-docs", "DPD"));
        assert!(fuzzy("anything", ""));
        assert!(!fuzzy("deploy", "yd"));
    }
}
