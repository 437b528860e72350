//! The console's one update: an action applied to the UI state, with the engine command it
//! asks for, if any (`update(ui, snap, action)`, pure apart from `ui`).

use super::action::Action;
use super::layout;
use super::panes::diff;
use super::procedures;
use super::state::{Confirm, EditRequest, Pane, STATE_FILTERS, UiState};
use super::team;
use crate::catalog::SkillStatus;
use crate::engine::snapshot;
use crate::engine::snapshot::{CandidateView, QueueItem, Snapshot};
use crate::engine::{CandidateId, Command, LessonId, Op, SkillId, Subject};
use crate::lessons::LessonStatus;
use crate::team::TeamOp;
use crate::text::hex;
use crate::text::hex::sha256_hex;

/// Applies an action to the UI state; returns what the engine must do, if anything.
pub fn update(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    // A key after a result means it was read: background notes may replace it now.
    ui.engine.read();
    let cmd = match action {
        Action::Approve | Action::Dismiss | Action::ToggleProtected | Action::Reopen
            if ui.pane == Pane::Lessons && !ui.history =>
        {
            lesson_op(ui, snap, action)
        }
        Action::Promote | Action::Dismiss | Action::ToggleProtected
            if ui.pane == Pane::Team && !ui.history =>
        {
            team_op(ui, snap, action)
        }
        a if ui.pane == Pane::Procedures && !ui.history && procedures::read_only(a) => {
            procedures::on_key(ui, snap, a)
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
        Action::GoProcedures => go(ui, Pane::Procedures),
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
                Confirm::Approve { id, name, seen } => Op::Approve(Subject {
                    id: CandidateId(id),
                    name,
                    seen: Some(seen),
                    ..Subject::default()
                }),
                Confirm::Reject { id, name } => {
                    Op::Reject(Subject { id: CandidateId(id), name, ..Subject::default() })
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
            ui.engine.result(snapshot::cannot_undo(&offer.what), true);
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
            let n = snap.team.as_deref().map_or(0, |v| team::rows(v).len());
            ui.team_sel = moved(ui.team_sel, n);
            ui.scroll = 0;
        }
        Pane::Procedures => {
            (ui.procedures_sel, ui.scroll) = (moved(ui.procedures_sel, snap.procedures.len()), 0);
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
    ui.go(pane);
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
    let starts = diff::hunk_starts(old, new);
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
    let target = Subject {
        id: CandidateId(row.id),
        agent: row.agent.clone(),
        name: row.name.clone(),
        seen: None,
    };
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
    let target = Subject {
        id: SkillId(skill.id),
        agent: skill.agent_id.clone(),
        name: skill.name.clone(),
        seen: None,
    };
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
        Pane::Diff | Pane::Lessons | Pane::Team | Pane::Procedures => {}
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
    let target = seen_target(c, CandidateId(c.id));
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
fn seen_target<Id>(c: &CandidateView, id: Id) -> Subject<Id> {
    Subject {
        id,
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
        let target = seen_target(c, SkillId(approved.id));
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
    let target =
        Subject { id: SkillId(s.id), agent: s.agent_id.clone(), name: s.name.clone(), seen: None };
    Some(Command::Op(match action {
        Action::ToggleProtected => Op::SetProtected(target, !s.protected),
        Action::Archive => Op::Archive(target),
        _ => Op::Restore(target),
    }))
}

/// The Lessons pane's keys: `a` approve, `P` pin (again: back to approved), `d` dismiss, `O`
/// back to proposed. Each becomes an engine op, whose twin is `skilldeck lessons …`.
fn lesson_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let Some(l) = ui.lesson(snap) else {
        ui.engine.result("no lesson selected".into(), false);
        return None;
    };
    let status = match action {
        Action::Approve => LessonStatus::Approved,
        Action::ToggleProtected if l.status == LessonStatus::Pinned => LessonStatus::Approved,
        Action::ToggleProtected => LessonStatus::Pinned,
        Action::Dismiss => LessonStatus::Dismissed,
        _ => LessonStatus::Proposed,
    };
    if status == l.status {
        ui.engine.result(format!("lesson #{} is already {status}", l.id), false);
        return None;
    }
    let target =
        Subject { id: LessonId(l.id), name: format!("lesson #{}", l.id), ..Subject::default() };
    // A lesson that stands for a dangerous command reaches the agent as an instruction once
    // live: asked first, with the flag shown (the CLI's twin needs `--yes`).
    let goes_live = |s: LessonStatus| matches!(s, LessonStatus::Approved | LessonStatus::Pinned);
    if goes_live(status)
        && !goes_live(l.status)
        && let Some(flags) = snap.lesson_flags.get(&l.id)
    {
        ui.confirm = Some(Confirm::LessonFlagged(target, status, flags.clone()));
        return None;
    }
    Some(Command::Op(Op::Lesson(target, status)))
}

/// The Team pane's keys: `p` promotes the selected candidate (as the text shown), `d`
/// dismisses it, `P` pins or unpins the selected team skill. Each is a team decision the engine
/// runs beside its jobs; its twins are `skilldeck team promote|dismiss|pin|unpin`.
fn team_op(ui: &mut UiState, snap: &Snapshot, action: Action) -> Option<Command> {
    let Some(view) = snap.team.as_deref() else {
        ui.engine.result("no team state yet".into(), false);
        return None;
    };
    let op = match (team::rows(view).get(ui.team_sel), action) {
        (Some(team::Row::Candidate(c)), Action::Promote) => match &c.problem {
            Some(why) => {
                ui.engine.result(format!("{} cannot be promoted: {why}", c.name), false);
                return None;
            }
            None if !c.flags.is_empty() => {
                let how = format!("read it, then `skilldeck team promote {} --yes`", c.id);
                ui.engine.result(format!("{} runs a dangerous command: {how}", c.name), false);
                return None;
            }
            None => TeamOp::Promote { id: c.id, seen: hex::sha256_hex(c.skill_md.as_bytes()) },
        },
        (Some(team::Row::Candidate(c)), Action::Dismiss) => TeamOp::Dismiss { id: c.id },
        (Some(team::Row::Skill(s)), Action::ToggleProtected) => {
            TeamOp::Pin { name: s.name.clone(), on: !s.decided_pin.unwrap_or(false) }
        }
        (Some(_), _) => {
            ui.engine.result(
                "on a team candidate: p promote, d dismiss; on a team skill: P pin/unpin".into(),
                false,
            );
            return None;
        }
        (None, _) => {
            ui.engine.result("nothing selected in the team scope".into(), false);
            return None;
        }
    };
    ui.engine.result(format!("{}: sent to the team server…", describe(&op)), false);
    Some(Command::Team(op))
}

fn describe(op: &TeamOp) -> String {
    match op {
        TeamOp::Promote { id, .. } => format!("promoting team candidate #{id}"),
        TeamOp::Dismiss { id } => format!("dismissing team candidate #{id}"),
        TeamOp::Pin { name, on } => format!("{} {name}", if *on { "pinning" } else { "unpinning" }),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ratatui::layout::Rect;

    use super::*;
    use crate::engine::snapshot::SkillLine;

    fn skills(n: i64) -> Snapshot {
        let rows = (0..n)
            .map(|id| SkillLine {
                header: crate::catalog::SkillHeader {
                    id,
                    agent_id: "default".into(),
                    name: format!("skill-{id:03}"),
                    status: SkillStatus::Healthy,
                    protected: id == 1,
                    version: 1,
                    path: format!("/skills/skill-{id:03}"),
                    needs_review: false,
                },
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
        let target = Subject {
            id: SkillId(1),
            agent: "default".into(),
            name: "skill-001".into(),
            seen: None,
        };
        assert_eq!(cmd, Some(Command::Op(Op::SetProtected(target, false))));
        assert_eq!(update(&mut ui, &snap, Action::Promote), None);
    }
}
