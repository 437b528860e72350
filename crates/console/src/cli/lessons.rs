//! `skilldeck lessons`: review what the user had to correct and the failures fixed the same
//! way in several sessions; approve, pin, dismiss or edit them; put them in projects.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::{GlobalArgs, Outcome, print_json};
use crate::lessons::{self, Lesson, LessonStatus};
use crate::text;
use crate::text::injection;
use crate::text::safe;
use crate::tui;
use crate::workspace;

#[derive(Debug, Args)]
pub struct LessonsArgs {
    #[command(subcommand)]
    pub action: Option<LessonsAction>,
    /// Every lesson: also sighted (one session so far), rejected, dismissed and pruned ones
    #[arg(long)]
    pub all: bool,
    /// Print a JSON array
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum LessonsAction {
    /// Approve a proposed lesson: it goes into the playbook
    Approve {
        #[arg(value_parser = super::target::lesson)]
        id: i64,
        /// Approve a lesson flagged for a dangerous command, after reading it
        #[arg(long)]
        yes: bool,
    },
    /// Pin a lesson: always in the playbook, never pruned
    Pin {
        #[arg(value_parser = super::target::lesson)]
        id: i64,
        /// Pin a lesson flagged for a dangerous command, after reading it
        #[arg(long)]
        yes: bool,
    },
    /// Dismiss a lesson: out of the playbook, not proposed again
    Dismiss {
        #[arg(value_parser = super::target::lesson)]
        id: i64,
    },
    /// Send a lesson back to review (out of the playbook)
    Reopen {
        #[arg(value_parser = super::target::lesson)]
        id: i64,
    },
    /// Reword a lesson
    Edit {
        #[arg(value_parser = super::target::lesson)]
        id: i64,
        #[arg(long)]
        trigger: Option<String>,
        #[arg(long)]
        avoid: Option<String>,
        #[arg(long = "do")]
        correct: Option<String>,
    },
    /// Keep a managed block of the approved lessons in DIR's CLAUDE.md (or AGENTS.md)
    Install {
        #[arg(long)]
        project: PathBuf,
    },
    /// Remove exactly the managed block from DIR's instruction file
    Uninstall {
        #[arg(long)]
        project: PathBuf,
    },
    /// Drop lessons surfaced at least 5 times and never helpful (at most a quarter at once)
    Prune,
}

pub fn run(global: &GlobalArgs, args: LessonsArgs) -> Result<Outcome> {
    let Some(action) = args.action else { return list(global, args.all, args.json) };
    let mut ws = global.open()?;
    let (id, status) = match action {
        LessonsAction::Approve { id, yes } => (confirmed(&ws, id, yes)?, LessonStatus::Approved),
        LessonsAction::Pin { id, yes } => (confirmed(&ws, id, yes)?, LessonStatus::Pinned),
        LessonsAction::Dismiss { id } => (id, LessonStatus::Dismissed),
        LessonsAction::Reopen { id } => (id, LessonStatus::Proposed),
        LessonsAction::Edit { id, trigger, avoid, correct } => {
            if trigger.is_none() && avoid.is_none() && correct.is_none() {
                anyhow::bail!("say what to change: --trigger, --avoid or --do");
            }
            let l = lessons::edit(
                &mut ws,
                id,
                trigger.as_deref(),
                avoid.as_deref(),
                correct.as_deref(),
            )?;
            crate::out!("edited lesson {id}");
            show(ws.store.conn(), &l)?;
            return warn_problems(&ws);
        }
        LessonsAction::Install { project } => {
            let file = lessons::playbook::install(&ws, &project)?;
            crate::out!("installed the lessons block in {}", file.display());
            return Ok(Outcome::Ok);
        }
        LessonsAction::Uninstall { project } => {
            let files = lessons::playbook::uninstall(&ws, &project)?;
            if files.is_empty() {
                crate::out!("no lessons block in {}", project.display());
            }
            for file in files {
                crate::out!("removed the lessons block from {}", file.display());
            }
            return Ok(Outcome::Ok);
        }
        LessonsAction::Prune => {
            let cfg = ws.config.lessons.clone();
            lessons::playbook::mark_pending(ws.store.conn())?;
            let dropped = lessons::retention::prune_low_utility(
                ws.store.conn_mut(),
                &cfg,
                lessons::retention::MIN_RETRIEVALS,
                lessons::retention::MAX_DROP_FRACTION,
            )?;
            crate::out!("pruned {}", text::count(dropped.len() as u64, "lesson"));
            return warn_problems(&ws);
        }
    };
    let l = lessons::set_status(&mut ws, id, status)?;
    crate::out!("lesson {id}: {}", l.status);
    crate::out!("playbook: {}", lessons::playbook::skill_md_path(&ws).display());
    warn_problems(&ws)
}

/// `id`, once a lesson flagged for a dangerous command is confirmed with `--yes`: it would reach
/// the agent as an instruction.
fn confirmed(ws: &workspace::Workspace, id: i64, yes: bool) -> Result<i64> {
    let l = lessons::db::get(ws.store.conn(), id, &ws.config.lessons)?;
    let flags = danger(ws.store.conn(), &l)?;
    if !flags.is_empty() && !yes {
        for f in &flags {
            crate::err_out!("flagged: {}", safe::inline(&f.reason));
        }
        anyhow::bail!("lesson {id} runs a dangerous command: read it, then approve it with --yes");
    }
    Ok(id)
}

fn danger(conn: &rusqlite::Connection, l: &Lesson) -> Result<Vec<injection::Flag>> {
    lessons::guard::lesson_danger(conn, l)
}

/// The playbook and blocks follow the decision (a no-op when they already do); the projects
/// whose block could not be written are named.
fn warn_problems(ws: &workspace::Workspace) -> Result<Outcome> {
    for p in lessons::playbook::follow(ws)?.problems {
        crate::err_out!("warning: {}", safe::inline(&p));
    }
    Ok(Outcome::Ok)
}

fn list(global: &GlobalArgs, all: bool, json: bool) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let shown: &[LessonStatus] = if all {
        &[]
    } else {
        &[LessonStatus::Proposed, LessonStatus::Approved, LessonStatus::Pinned]
    };
    let list = lessons::list(&ws, shown)?;
    if json {
        print_json(&list)?;
        return Ok(Outcome::Ok);
    }
    if list.is_empty() {
        crate::out!("no lessons{}", if all { "" } else { " to review (--all for every status)" });
        return Ok(Outcome::Ok);
    }
    for l in &list {
        show(ws.store.conn(), l)?;
    }
    Ok(Outcome::Ok)
}

fn show(conn: &rusqlite::Connection, l: &Lesson) -> Result<()> {
    crate::out!(
        "#{} {} {} · {} · confidence {:.2} · utility {:.2}{}",
        l.id,
        l.status,
        l.kind,
        text::count(l.sessions.len() as u64, "session"),
        l.confidence,
        l.utility,
        if l.verified { " · verified" } else { "" }
    );
    crate::out!("   when:  {}", safe::inline(&l.trigger));
    crate::out!("   avoid: {}", safe::inline(&l.anti_pattern));
    crate::out!("   do:    {}", safe::inline(&l.correct_pattern));
    if let Some(r) = &l.reject_reason {
        crate::out!("   rejected: {}", safe::inline(r));
    }
    if l.status.is_live() {
        crate::out!("   {}", tui::lessons::measured(l));
    }
    for e in l.evidence.iter().take(3) {
        let short: String = e.session_key.chars().take(8).collect();
        crate::out!("   seen in {short}: {}", safe::inline(&e.request));
        crate::out!("     did: {}", safe::inline(&e.action));
        if let Some(c) = &e.correction {
            crate::out!("     user: {}", safe::inline(c));
        }
        if !e.fix.is_empty() {
            crate::out!("     fix:  {}", safe::inline(&tui::lessons::fix_steps(e)));
        }
        if let Some(then) = tui::lessons::then_text(e) {
            crate::out!("     then: {}", safe::inline(&then));
        }
        for f in &e.fix {
            crate::out!("     fix: {}", safe::inline(f));
        }
    }
    for f in danger(conn, l)? {
        crate::out!("   flagged: {}", safe::inline(&f.reason));
    }
    Ok(())
}
