//! The command line: parses, calls the library, presents. No domain logic lives here.
//!
//! Each subcommand's arguments and `run` live in their own file beside this one.

mod acquire;
pub mod approve;
pub mod archive;
pub mod audit;
mod check;
mod console;
mod demo;
pub mod diff;
mod dispatch;
mod doctor;
mod edit;
mod export;
pub mod features;
mod hooks;
mod import;
pub mod learn;
mod lessons;
mod overlaps;
pub mod pin;
mod procedures;
pub mod record;
pub mod reject;
mod render;
mod resolve;
pub mod restore;
pub mod rollback;
pub mod stats;
pub mod suggest;
pub mod sweep;
mod team;
pub mod trial;
mod undo;
pub mod versions;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use crate::journal;
use crate::lifecycle;
use crate::pipeline;
use crate::store::trouble;
use crate::workspace;
use crate::workspace::{Overrides, Workspace};

mod candidates;
mod dismiss;
pub mod ingest;
pub mod output;
mod promote;
mod target;
mod validate;

#[derive(Debug, Parser)]
#[command(
    name = "skilldeck",
    version,
    about = "Turn an agent's repeated work into reviewed, scored, versioned skills"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Database file (default: ~/.local/share/skilldeck/skilldeck.db on Linux,
    /// ~/Library/Application Support/dev.skilldeck.skilldeck/skilldeck.db on macOS)
    #[arg(long, global = true, env = "SKILLDECK_DB")]
    pub db: Option<PathBuf>,
    /// Live skills folder the agent loads (default: ~/.claude/skills)
    #[arg(long, global = true, env = "SKILLDECK_SKILLS_DIR")]
    pub skills_dir: Option<PathBuf>,
    /// Config file (default: ~/.config/skilldeck/config.toml on Linux, ~/Library/Application
    /// Support/dev.skilldeck.skilldeck/config.toml on macOS; a missing file means defaults)
    #[arg(long, global = true, env = "SKILLDECK_CONFIG")]
    pub config: Option<PathBuf>,
}

impl GlobalArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            db: self.db.clone(),
            skills_dir: self.skills_dir.clone(),
        }
    }

    /// Opens the workspace, recovers what a killed process left half done, and reconciles the
    /// skills folders with the database, so every command sees every skill on disk (a hand-made
    /// one too) and none half moved.
    pub fn open(&self) -> Result<Workspace> {
        let mut ws = Workspace::open(&self.overrides())?;
        pipeline::reconcile(&mut ws)?;
        Ok(ws)
    }

    /// The workspace with its database opened for reading only (works on a read-only disk).
    pub fn open_read_only(&self) -> Result<Workspace> {
        let ws = Workspace::open_read_only(&self.overrides())?;
        // A skill folder put in by hand is seen at once: the database is opened for writing only
        // when there is one to adopt.
        // So is what a killed process left half done.
        // So is a SKILL.md edited or deleted by hand: an edit is a version, a gone file a
        // `missing` skill, before anything is shown.
        let pending = journal::abandoned(ws.store.conn())?;
        if !pending && !lifecycle::disk_changed(&ws)? {
            // Scratch a killed import or acquire left goes without a write to the database.
            pipeline::clear_debris(&ws)?;
            return Ok(ws);
        }
        drop(ws);
        let mut ws = self.open()?;
        lifecycle::scan_edits(&mut ws)?;
        drop(ws);
        Workspace::open_read_only(&self.overrides())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a demo workspace from built-in transcripts, run the pipeline, open the console
    Demo(demo::DemoArgs),
    /// Open the review console (what `skilldeck` alone does in a terminal)
    Console(console::ConsoleArgs),
    /// Read new transcript bytes, then detect repeated work and draft candidates
    Ingest(ingest::IngestArgs),
    /// List skill candidates detection proposed (open ones; --all for every status)
    Candidates(candidates::CandidatesArgs),
    /// Move a staged draft into the live skills folder and record it as a skill
    Promote(promote::PromoteArgs),
    /// Dismiss a candidate so the same evidence does not propose it again
    Dismiss(dismiss::DismissArgs),
    /// Take a promoted skill back to staging and reopen its candidate
    UndoPromote(undo::UndoArgs),
    /// Reopen a dismissed candidate with its draft back in staging
    UndoDismiss(undo::UndoArgs),
    /// Take an approved version back (the skill returns to its text before) and reopen it
    UndoApprove(undo::UndoArgs),
    /// Approve a proposed version (or, with --skill, a skill back in review)
    Approve(approve::ApproveArgs),
    /// Dismiss a proposed version
    Reject(reject::RejectArgs),
    /// Lint skill folders against the Agent Skills spec (exit 1 on errors)
    Validate(validate::ValidateArgs),
    /// Record a skill invocation's outcome (what an agent or hook calls)
    Record(record::RecordArgs),
    /// A skill's success/failure counts and rates
    Stats(stats::StatsArgs),
    /// Every skill with its status and rate
    Audit(audit::AuditArgs),
    /// Judge every skill now: warn, deprecate, degrade, retire
    Sweep(sweep::SweepArgs),
    /// Protect a skill from the sweep
    Pin(pin::PinArgs),
    /// Remove a skill's protection
    Unpin(pin::PinArgs),
    /// Move a skill to the archive folder
    Archive(archive::ArchiveArgs),
    /// Bring an archived or retired skill back
    Restore(restore::RestoreArgs),
    /// Every kept version of a skill
    Versions(versions::VersionsArgs),
    /// Unified diff between two versions of a skill
    Diff(diff::DiffArgs),
    /// Restore an earlier version as a new version
    Rollback(rollback::RollbackArgs),
    /// Open a candidate's draft (ID) or a skill's SKILL.md (NAME) in $VISUAL / $EDITOR
    Edit(edit::EditArgs),
    /// Scorer features per skill
    Features(features::FeaturesArgs),
    /// Skills matching a query, weighted by their outcomes
    Suggest(suggest::SuggestArgs),
    /// Draft a skill from one session (the last, or one named), staged for review
    Learn(learn::LearnArgs),
    /// Import a skill package JSON; every problem is listed, nothing half-written
    Import(import::ImportArgs),
    /// Export a skill package back to its JSON shape
    Export(export::ExportArgs),
    /// Render a template artifact with variables, choosing the model variant
    Render(render::RenderArgs),
    /// Run an artifact through its kind's handler (dspy_module falls back to its prompt_template)
    Dispatch(dispatch::DispatchArgs),
    /// Check an output against an artifact's assertions; records a trace and a score outcome
    Check(check::CheckArgs),
    /// Test-run a code skill and register it when the run succeeds
    Acquire(acquire::AcquireArgs),
    /// Resolve skill names or refs to exact identities (workspace overrides account)
    Resolve(resolve::ResolveArgs),
    /// Install, remove or show the agents' hooks that run `skilldeck ingest --hook`
    Hooks(hooks::HooksArgs),
    /// Live skills whose workflows or descriptions overlap strongly (merge candidates)
    Overlaps(overlaps::OverlapsArgs),
    /// Procedures the person already has (slash commands, prompt templates, skills, menu
    /// workflows, loops) with their runs and outcomes: never drafted again
    Procedures(procedures::ProceduresArgs),
    /// Lessons from corrections and recurring fixes: list, approve, pin, dismiss, edit, install
    Lessons(lessons::LessonsArgs),
    /// A team's shared store on PostgreSQL: init, status, push, pull, detect, review (docs/team.md)
    Team(team::TeamArgs),
    /// Run the agent on your own tasks with a skill and without it; record whether it helps
    Trial(trial::TrialArgs),
    /// Read every page of the database and say whether it is sound (exit 1 when damaged)
    Doctor(doctor::DoctorArgs),
}

/// What a command reports back to `main`: success, or a non-zero exit without an error message
/// (e.g. `validate` found violations and already printed them).
pub enum Outcome {
    Ok,
    Fail(u8),
}

pub fn run(cli: Cli) -> Result<Outcome> {
    // A config file named explicitly but absent means the defaults (scripts pass a path that
    // does not exist on purpose), yet a typo must not pass unseen: one line says so.
    if let Some(path) = cli.global.config.as_ref().filter(|p| !p.exists()) {
        crate::err_out!(
            "warning: config file {} not found: using the defaults (create it, or fix --config / \
             SKILLDECK_CONFIG)",
            path.display()
        );
    }
    match cli.command {
        None if !console::has_terminal() => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(Outcome::Ok)
        }
        Some(command) => match command {
            Command::Candidates(args) => candidates::run(&cli.global, args),
            Command::Promote(args) => promote::run(&cli.global, args),
            Command::Dismiss(args) => dismiss::run(&cli.global, args),
            Command::Validate(args) => validate::run(args),
            Command::Import(args) => import::run(&cli.global, args),
            Command::Export(args) => export::run(&cli.global, args),
            Command::Render(args) => render::run(&cli.global, args),
            Command::Dispatch(args) => dispatch::run(&cli.global, args),
            Command::Check(args) => check::run(&cli.global, args),
            Command::Acquire(args) => acquire::run(&cli.global, args),
            Command::Resolve(args) => resolve::run(&cli.global, args),
            Command::Hooks(args) => hooks::run(&cli.global, args),
            Command::Overlaps(args) => overlaps::run(&cli.global, args),
            Command::Lessons(args) => lessons::run(&cli.global, args),
            Command::Procedures(args) => procedures::run(&cli.global, args),
            Command::Team(args) => team::run(&cli.global, args),
            Command::Trial(args) => trial::run(&cli.global, args),
            Command::Doctor(args) => doctor::run(&cli.global, args),
            Command::Console(args) => console::run(&cli.global, &args),
            Command::Demo(args) => demo::run(args),
            Command::Ingest(args) => ingest::run(&cli.global, args),
            Command::Record(a) => record::run(&cli.global, a),
            Command::Stats(a) => stats::run(&cli.global, a),
            Command::Sweep(a) => sweep::run(&cli.global, a),
            Command::Pin(a) => pin::run(&cli.global, a, true),
            Command::Unpin(a) => pin::run(&cli.global, a, false),
            Command::Archive(a) => archive::run(&cli.global, a),
            Command::Restore(a) => restore::run(&cli.global, a),
            Command::Approve(a) => approve::run(&cli.global, a),
            Command::Reject(a) => reject::run(&cli.global, a),
            Command::Diff(a) => diff::run(&cli.global, a),
            Command::Rollback(a) => rollback::run(&cli.global, a),
            Command::Edit(a) => edit::run(&cli.global, a),
            Command::Versions(a) => versions::run(&cli.global, a),
            Command::Features(a) => features::run(&cli.global, a),
            Command::Suggest(a) => suggest::run(&cli.global, a),
            Command::Learn(a) => learn::run(&cli.global, a),
            Command::Audit(a) => audit::run(&cli.global, a),
            Command::UndoPromote(a) => undo::promote(&cli.global, a),
            Command::UndoDismiss(a) => undo::dismiss(&cli.global, a),
            Command::UndoApprove(a) => undo::approve(&cli.global, a),
        },
        None => console::run(&cli.global, &console::ConsoleArgs {}),
    }
}

pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    let text = output::json_text(&serde_json::to_string_pretty(value)?);
    crate::out!("{text}");
    Ok(())
}

/// Entry point used by the binary: parse, run, print errors with their causes.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let overrides = cli.global.overrides();
    match run(cli) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Fail(code)) => ExitCode::from(code),
        // A reader that closed the pipe (`skilldeck | head -3`) wanted no more: not an error.
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // A database trouble met mid-command (a lock held by another process) is said in
            // one line with the fix, like one met while opening.
            let db = workspace::db_path(&overrides);
            match db.and_then(|db| trouble::explain_sqlite(&db, &e)) {
                Some(line) => crate::err_out!("error: {line}"),
                None => crate::err_out!("error: {e:#}"),
            }
            ExitCode::FAILURE
        }
    }
}
