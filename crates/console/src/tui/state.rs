//! The console's own state (selection, pane, filter, prompts) and how actions change it.
//! `update` is pure apart from `UiState`: it returns the engine command an action asks for.

use std::sync::Arc;

use ratatui::layout::Rect;

use super::keys::KeyMap;
use super::layout;
use super::tabs::{self, Tab, TabBar};
use crate::catalog::SkillStatus;
use crate::engine::snapshot::{CandidateView, SkillLine, Snapshot};
use crate::engine::{CandidateId, LessonId, Progress, SkillId, Subject, View};
use crate::lessons;
use crate::procedures;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Queue,
    Skills,
    Timeline,
    Diff,
    Lessons,
    Team,
    Procedures,
}

impl Pane {
    pub const ALL: [Pane; 7] = [
        Pane::Queue,
        Pane::Skills,
        Pane::Timeline,
        Pane::Diff,
        Pane::Lessons,
        Pane::Team,
        Pane::Procedures,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Queue => "Queue",
            Pane::Skills => "Skills",
            Pane::Timeline => "Timeline",
            Pane::Diff => "Diff",
            Pane::Lessons => "Lessons",
            Pane::Team => "Team",
            Pane::Procedures => "Procedures",
        }
    }

    /// The tabs the header shows: the Lessons tab once there is a lesson, the Team tab once
    /// the team's state was read, the Procedures tab once there is a procedure (or while one
    /// of them is open).
    pub fn tabs(snap: &Snapshot, current: Pane) -> Vec<Pane> {
        let shown = |p: Pane| match p {
            Pane::Lessons => !snap.lessons.is_empty(),
            Pane::Team => snap.team.is_some(),
            Pane::Procedures => !snap.procedures.is_empty(),
            _ => true,
        };
        Pane::ALL.into_iter().filter(|p| *p == current || shown(*p)).collect()
    }

    /// The count a tab shows after its title (` (3)`), if any.
    pub fn count(self, snap: &Snapshot) -> String {
        match self {
            Pane::Queue => format!(" ({})", snap.candidates.len()),
            Pane::Skills => format!(" ({})", snap.skills.len()),
            Pane::Lessons => format!(" ({})", super::lessons::to_review(snap)),
            Pane::Team => format!(" ({})", super::team::open(snap)),
            Pane::Procedures => format!(" ({})", snap.procedures.len()),
            Pane::Timeline | Pane::Diff => String::new(),
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    /// The header's tab bar at `width` columns, `current` said in full (`tabs::fit`).
    pub fn tab_bar(snap: &Snapshot, current: Pane, width: usize) -> TabBar<Pane> {
        let tabs: Vec<Tab<Pane>> = Pane::tabs(snap, current)
            .into_iter()
            .map(|p| Tab { pane: p, number: p.index() + 1, title: p.title(), count: p.count(snap) })
            .collect();
        tabs::fit(&tabs, current, width)
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
    ApproveEdit(Subject<SkillId>),
    /// A skill edited by hand: back to its approved version.
    Rollback(Subject<SkillId>, i64),
    /// Diff pane: back to the version under the cursor (as a new version).
    RollbackTo(Subject<SkillId>, i64),
    /// A candidate flagged for text aimed at the agent or a dangerous command: promote anyway.
    PromoteFlagged(Subject<CandidateId>, usize),
    /// A lesson standing for a dangerous command (the flags' reasons): approve or pin anyway.
    LessonFlagged(Subject<LessonId>, lessons::LessonStatus, Vec<String>),
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

    pub(super) fn next(self) -> Sort {
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
    /// Procedures pane: the selected row of `snap.procedures`.
    pub procedures_sel: usize,
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
    /// Procedures in the snapshot last synced (for clamping the selection).
    pub procedure_count: usize,
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
        let in_state = |s: &SkillLine| match state {
            None => true,
            Some(StateFilter::Pinned) => s.protected,
            Some(StateFilter::Status(status)) => s.status == status,
        };
        self.lesson_count = snap.lessons.len();
        self.procedure_count = snap.procedures.len();
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

    /// Shows `pane`, from its top.
    pub fn go(&mut self, pane: Pane) {
        self.pane = pane;
        self.zoom = false;
        self.skill_detail = false;
        self.scroll = 0;
        self.hscroll = 0;
    }

    /// A left click at (`x`, `y`): a tab switches pane; a row of a list selects it (and its
    /// pane).
    pub fn click(&mut self, snap: &Snapshot, x: u16, y: u16) {
        let [header, body, _] = layout::frame(self.area);
        if y == header.y {
            // Tabs as the header draws them at this width.
            let bar = Pane::tab_bar(snap, self.pane, usize::from(header.width));
            if let Some(pane) = bar.pane_at(usize::from(x.saturating_sub(header.x))) {
                self.go(pane);
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

    pub(super) fn clamp(&mut self) {
        self.queue_sel = self.queue_sel.min(self.queue_rows.len().saturating_sub(1));
        self.lessons_sel = self.lessons_sel.min(self.lesson_count.saturating_sub(1));
        self.procedures_sel = self.procedures_sel.min(self.procedure_count.saturating_sub(1));
        self.skills_sel = self.skills_sel.min(self.skill_rows.len().saturating_sub(1));
        let page = layout::skills_page(self.area).max(1);
        if self.skills_sel < self.skills_top {
            self.skills_top = self.skills_sel;
        } else if self.skills_sel >= self.skills_top + page {
            self.skills_top = self.skills_sel + 1 - page;
        }
        self.skills_top = self.skills_top.min(self.skill_rows.len().saturating_sub(page));
    }

    pub fn lesson<'s>(&self, snap: &'s Snapshot) -> Option<&'s lessons::Lesson> {
        snap.lessons.get(self.lessons_sel)
    }

    pub fn procedure<'s>(&self, snap: &'s Snapshot) -> Option<&'s procedures::Procedure> {
        snap.procedures.get(self.procedures_sel)
    }

    pub fn candidate<'s>(&self, snap: &'s Snapshot) -> Option<&'s CandidateView> {
        self.queue_rows.get(self.queue_sel).and_then(|&i| snap.candidates.get(i))
    }

    pub fn skill<'s>(&self, snap: &'s Snapshot) -> Option<&'s SkillLine> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_matches_subsequences_case_insensitively() {
        assert!(fuzzy("deploy-docs", "DPD"));
        assert!(fuzzy("anything", ""));
        assert!(!fuzzy("deploy", "yd"));
    }
}
