//! Trials: a controlled test of whether a skill helps. The user's agent is run on the user's own
//! tasks, each run in a fresh copy of the project, half of the runs with the skill installed
//! where the agent loads project skills and half without; the skill's own checks say whether a
//! run passed. See docs/trials.md.
//!
//! One file per job: `plan` (what would run: tasks, checks, workspaces), `run` (workspaces, the
//! agent under a time limit, the checks, in bounded parallel), `measure` (the agent's stdout read
//! as a transcript in memory), `verdict` (per arm and the difference, by the observed effect's
//! rule), `record` (the `skill_trials` table, the timeline, the review flag).

mod confine;
mod home;
mod measure;
pub mod plan;
mod reap;
pub mod record;
mod run;
pub mod verdict;
mod watch;

use std::path::PathBuf;

use anyhow::Result;
use serde::{Deserialize, Serialize};

pub use plan::{Plan, PlannedRun, plan};
pub use record::{TrialRow, TrialStatus};
pub use verdict::{ArmSummary, Judgement};

use crate::ingest::RunTranscript;
use crate::store;
use crate::workspace::Workspace;

crate::text_enum! {
    /// Which half of a trial a run belongs to.
    pub enum Arm {
        /// The skill installed where the agent loads project skills.
        With = "with",
        /// The skill absent.
        Without = "without",
    }
}

/// What a person asks for: `skilldeck trial NAME|ID --agent CMD ...`.
#[derive(Debug, Clone)]
pub struct Request {
    /// A skill's name, or a candidate's id (a draft trialled before promotion).
    pub target: String,
    /// The agent whose skill it is (`None`: the configured agent).
    pub agent_id: Option<String>,
    /// The agent's command line, run by `sh -c` with the task on stdin.
    pub agent_command: String,
    /// Runs in each arm; tasks are taken in turn.
    pub runs: usize,
    /// Tasks given instead of the candidate's requests.
    pub tasks: Vec<String>,
    /// Checks given instead of the skill's Checks section.
    pub checks: Vec<String>,
    /// The project copied for each run (a git repository is cloned at HEAD).
    pub project: PathBuf,
    pub time_limit_secs: u64,
    /// Runs at once.
    pub jobs: usize,
    /// Where the "with" arm installs the skill, relative to the workspace (`None`: by agent).
    pub install_dir: Option<String>,
    /// Keep the workspaces afterwards.
    pub keep: bool,
}

/// One check after a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub command: String,
    /// Exit code; `None` when killed at the time limit.
    pub code: Option<i32>,
}

/// One run of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub n: usize,
    pub arm: Arm,
    /// Index into the trial's tasks.
    pub task: usize,
    pub workspace: String,
    /// The agent's exit code; `None` when killed.
    pub agent_exit: Option<i32>,
    /// The agent was stopped at the time limit: the run failed, its checks were not run.
    pub timed_out: bool,
    /// Wall time of the agent, in whole seconds.
    pub seconds: f64,
    pub checks: Vec<CheckResult>,
    /// Every check exited 0 after the agent stopped.
    pub passed: bool,
    /// The agent's stdout read as a transcript, when it is one skilldeck reads.
    pub transcript: Option<RunTranscript>,
    /// Whether the transcript shows the skill used; `None` without a transcript.
    pub loaded: Option<bool>,
    /// The end of the agent's stderr, secrets redacted: said when the agent did not run.
    #[serde(skip)]
    pub agent_stderr: String,
    /// The agent failed and printed nothing: it did not get to do anything.
    #[serde(skip)]
    pub agent_silent: bool,
}

/// A finished trial: what ran, every run, and the judgement. Recorded as evidence about the
/// skill (`source: trial`) beside the effect observed in history.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Trial {
    pub source: String,
    pub skill: String,
    pub agent_id: String,
    pub skill_id: Option<i64>,
    pub candidate_id: Option<i64>,
    pub started_at: String,
    pub finished_at: String,
    pub agent_command: String,
    pub tasks: Vec<String>,
    pub checks: Vec<String>,
    pub install_dir: String,
    pub time_limit_secs: u64,
    pub runs_per_arm: usize,
    #[serde(flatten)]
    pub judgement: Judgement,
    pub runs: Vec<RunResult>,
    /// Where the workspaces were kept (`--keep`).
    pub kept: Option<String>,
    /// What changed in the user's own project tree while the trial ran (`M a.txt`): an agent
    /// that wrote outside its workspace, or the user meanwhile.
    #[serde(default)]
    pub outside_writes: Vec<String>,
    /// The project has more entries than are watched: such writes may have gone unseen.
    #[serde(default)]
    pub outside_unwatched: bool,
}

/// Runs the trial `plan` describes, records it, and returns it. `progress` hears each run as it
/// ends. The trial's row says `running` meanwhile, `failed` if the trial stops on an error.
pub fn execute(
    ws: &mut Workspace,
    plan: &Plan,
    progress: &(dyn Fn(&RunResult) + Sync),
) -> Result<Trial> {
    let started_at = store::now_rfc3339();
    let plan = &plan.rooted()?;
    let id = record::begin(ws.store.conn(), plan, &started_at)?;
    let tree = plan.project.repo.as_deref().unwrap_or(&plan.project.dir);
    let before = watch::snapshot(tree);
    let runs = match run::all(plan, progress) {
        Ok(runs) => runs,
        Err(e) => {
            record::failed(ws.store.conn(), id, &format!("{e:#}"))?;
            return Err(e);
        }
    };
    // A trial of an agent that never ran says nothing about the skill: not evidence.
    if let Some(why) = verdict::invalid(&runs) {
        let why = format!("the trial is not valid: {why}; nothing was recorded as evidence");
        record::failed(ws.store.conn(), id, &why)?;
        anyhow::bail!(why);
    }
    let after = watch::snapshot(tree);
    let trial = Trial {
        outside_writes: watch::changes(&before, &after),
        outside_unwatched: before.partial || after.partial,
        source: "trial".into(),
        skill: plan.name.clone(),
        agent_id: plan.agent_id.clone(),
        skill_id: plan.skill_id,
        candidate_id: plan.candidate_id,
        started_at,
        finished_at: store::now_rfc3339(),
        agent_command: plan.agent_command.clone(),
        tasks: plan.tasks.clone(),
        checks: plan.checks.clone(),
        install_dir: plan.install_dir.clone(),
        time_limit_secs: plan.time_limit_secs,
        runs_per_arm: plan.runs_per_arm,
        judgement: verdict::judge(&runs),
        kept: plan.keep.then(|| plan.root.display().to_string()),
        runs,
    };
    record::finish(ws.store.conn_mut(), id, &trial)?;
    Ok(trial)
}
