//! The console's own state (selection, pane, filter, prompts) and how actions change it.
//! `update` is pure apart from `UiState`: it returns the engine command an action asks for.

use ratatui::layout::Rect;

use super::action::Action;
use super::layout;
use crate::engine::snapshot::{CandidateView, SkillRow, Snapshot};
use crate::engine::{Command, Op, Progress, Target, View};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Queue,
    Skills,
    Timeline,
    Diff,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Queue, Pane::Skills, Pane::Timeline, Pane::Diff];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Queue => "Queue",
            Pane::Skills => "Skills",
            Pane::Timeline => "Timeline",
            Pane::Diff => "Diff",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// A destructive action waiting for y/n.
#[derive(Debug, Clone, PartialEq)]
pub enum Confirm {
    Reject { id: i64, name: String },
}

/// What the engine last said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineStatus {
    pub busy: Option<String>,
    pub progress: Option<Progress>,
    pub message: Option<String>,
    pub error: bool,
}

#[derive(Debug, Clone, Default)]
pub struct UiState {
    pub pane: Pane,
    pub queue_sel: usize,
    pub skills_sel: usize,
    /// First skills row on screen.
    pub skills_top: usize,
    pub version_sel: usize,
    /// Diff base version index; `None` means the one before the cursor.
    pub version_base: Option<usize>,
    pub scroll: u16,
    /// Queue detail shown full width.
    pub zoom: bool,
    /// Skills pane: the selected skill's detail (package, identity, traces, versions) is open.
    pub skill_detail: bool,
    pub filter: String,
    pub filtering: bool,
    /// Indices into the snapshot's lists that pass the filter.
    pub queue_rows: Vec<usize>,
    pub skill_rows: Vec<usize>,
    synced: Option<(u64, String)>,
    pub help: bool,
    pub confirm: Option<Confirm>,
    pub engine: EngineStatus,
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

    /// Recomputes the filtered rows when the lists or the filter changed.
    pub fn sync(&mut self, snap: &Snapshot) {
        let key = (snap.generation, self.filter.clone());
        if self.synced.as_ref() == Some(&key) {
            return;
        }
        let f = self.filter.as_str();
        self.queue_rows =
            (0..snap.candidates.len()).filter(|&i| fuzzy(&snap.candidates[i].name, f)).collect();
        self.skill_rows =
            (0..snap.skills.len()).filter(|&i| fuzzy(&snap.skills[i].name, f)).collect();
        self.synced = Some(key);
        self.clamp();
    }

    /// The terminal changed size: keep the selection on screen.
    pub fn resize(&mut self, area: Rect) {
        self.area = area;
        self.clamp();
    }

    fn clamp(&mut self) {
        self.queue_sel = self.queue_sel.min(self.queue_rows.len().saturating_sub(1));
        self.skills_sel = self.skills_sel.min(self.skill_rows.len().saturating_sub(1));
        let page = layout::skills_page(self.area).max(1);
        if self.skills_sel < self.skills_top {
            self.skills_top = self.skills_sel;
        } else if self.skills_sel >= self.skills_top + page {
            self.skills_top = self.skills_sel + 1 - page;
        }
        self.skills_top = self.skills_top.min(self.skill_rows.len().saturating_sub(page));
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
        View { visible, selected, package: self.skill_detail && self.pane == Pane::Skills }
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
    if !matches!(action, Action::Confirm | Action::Cancel) {
        ui.engine.message = None;
    }
    let cmd = match action {
        Action::Up => step(ui, snap, -1),
        Action::Down => step(ui, snap, 1),
        Action::Top => step(ui, snap, isize::MIN / 2),
        Action::Bottom => step(ui, snap, isize::MAX / 2),
        Action::PageDown => page(ui, snap, 1),
        Action::PageUp => page(ui, snap, -1),
        Action::NextPane => go(ui, Pane::ALL[(ui.pane.index() + 1) % 4]),
        Action::PrevPane => go(ui, Pane::ALL[(ui.pane.index() + 3) % 4]),
        Action::GoQueue => go(ui, Pane::Queue),
        Action::GoSkills => go(ui, Pane::Skills),
        Action::GoTimeline => go(ui, Pane::Timeline),
        Action::GoDiff => go(ui, Pane::Diff),
        Action::Enter => enter(ui, snap),
        Action::Back => back(ui),
        Action::StartFilter => {
            ui.filtering = true;
            None
        }
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
        Action::Undo => Some(Command::Undo),
        Action::Sweep => Some(Command::SweepNow),
        Action::Ingest => Some(Command::IngestNow),
        Action::Confirm => ui.confirm.take().map(|Confirm::Reject { id, name }| {
            Command::Op(Op::Reject(Target { id, agent: String::new(), name }))
        }),
        Action::Cancel => {
            ui.confirm = None;
            say(ui, "cancelled")
        }
        Action::Help => {
            ui.help = !ui.help;
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

fn say(ui: &mut UiState, text: &str) -> Option<Command> {
    ui.engine.message = Some(text.to_owned());
    ui.engine.error = false;
    None
}

fn step(ui: &mut UiState, snap: &Snapshot, delta: isize) -> Option<Command> {
    let moved = |sel: usize, len: usize| -> usize {
        (sel as isize).saturating_add(delta).clamp(0, len.saturating_sub(1) as isize) as usize
    };
    match ui.pane {
        Pane::Queue => {
            ui.queue_sel = moved(ui.queue_sel, ui.queue_rows.len());
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
        Pane::Diff => {}
    }
    None
}

fn back(ui: &mut UiState) -> Option<Command> {
    if ui.help {
        ui.help = false;
    } else if ui.filtering {
        ui.filtering = false;
        ui.filter.clear();
    } else if ui.zoom {
        ui.zoom = false;
    } else if ui.skill_detail {
        ui.skill_detail = false;
        ui.scroll = 0;
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
    let target = Target { id: c.id, agent: c.agent.clone(), name: c.name.clone() };
    match (action, &c.target) {
        (Action::Promote, Some(_)) => say(ui, "this is a proposed version: a approves, r rejects"),
        (Action::Promote, None) => Some(Command::Op(Op::Promote(target))),
        (_, Some(_)) => say(ui, "this is a proposed version: r rejects it"),
        _ => Some(Command::Op(Op::Dismiss(target))),
    }
}

fn proposal_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let found = match ui.pane {
        Pane::Queue => {
            ui.candidate(snap).and_then(|c| c.target.as_ref().map(|t| (c.id, t.name.clone())))
        }
        _ => {
            let detail = snap.detail.as_ref();
            let versions = detail.map_or(&[][..], |d| &d.versions[..]);
            let head = ui.diff_pair(versions.len()).map(|(_, h)| h);
            let name = ui.skill(snap).map(|s| s.name.clone()).unwrap_or_default();
            head.and_then(|h| versions[h].proposal).map(|id| (id, name))
        }
    };
    let Some((id, name)) = found else {
        return say(ui, "select a proposed version (queue, or the diff pane) to approve or reject");
    };
    if action == Action::Approve {
        return Some(Command::Op(Op::Approve(Target { id, agent: String::new(), name })));
    }
    ui.confirm = Some(Confirm::Reject { id, name });
    None
}

fn skill_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    if ui.pane == Pane::Queue {
        return say(ui, "pin, archive and restore act on skills (2)");
    }
    let Some(s) = ui.skill(snap) else { return say(ui, "no skill selected") };
    let target = Target { id: s.id, agent: s.agent.clone(), name: s.name.clone() };
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
                status: "healthy".into(),
                protected: id == 1,
                version: 1,
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
        let target = Target { id: 1, agent: "default".into(), name: "skill-001".into() };
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
