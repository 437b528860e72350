//! `skilldeck trial NAME|ID --agent 'CMD' [...]`: runs the agent on the user's tasks with the
//! skill and without it, and records what that shows (docs/trials.md).

use std::path::PathBuf;

use std::io::IsTerminal;

use anyhow::{Result, bail};
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome, print_json};
use crate::draft;
use crate::lifecycle;
use crate::text::safe::inline;
use crate::trial::{self, Plan, Request};
use crate::usage::effect;
use crate::workspace::Workspace;

#[derive(Debug, Args)]
pub struct TrialArgs {
    /// A skill's name or id, or a candidate's id or name to trial a draft before promotion
    pub target: String,
    /// The agent's command, run by `sh -c` in each workspace with the task on stdin
    /// (`claude -p --output-format stream-json --verbose`, `codex exec --json -`)
    #[arg(long)]
    pub agent: String,
    /// The skill's agent (default: the candidate's, or the one agent with a skill of that name)
    #[arg(long = "for-agent")]
    pub for_agent: Option<String>,
    /// Runs with the skill, and as many without it; tasks are taken in turn
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// A task instead of the requests that formed the skill (repeatable)
    #[arg(long = "task")]
    pub tasks: Vec<String>,
    /// A check instead of the skill's Checks section (repeatable); a run passes when every check
    /// exits 0 after the agent stops
    #[arg(long = "check")]
    pub checks: Vec<String>,
    /// The project each run gets a fresh copy of (a git repository is cloned at HEAD)
    #[arg(long, default_value = ".")]
    pub project: PathBuf,
    /// Seconds an agent run may take before it is stopped (and counted as failed)
    #[arg(long = "time-limit", default_value_t = 600)]
    pub time_limit: u64,
    /// Runs at once
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Where the "with" arm installs the skill, inside the workspace (default: .claude/skills,
    /// or .agents/skills for the Codex agent)
    #[arg(long = "install-dir")]
    pub install_dir: Option<String>,
    /// List the tasks, checks, workspaces and commands; run and change nothing
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Keep the workspaces afterwards
    #[arg(long)]
    pub keep: bool,
    /// Run the skill's own checks (text drafted from transcripts) without asking, once read
    #[arg(long)]
    pub yes: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: TrialArgs) -> Result<Outcome> {
    let (target, agent_id) = subject(global, &args.target, args.for_agent)?;
    let req = Request {
        target,
        agent_id,
        agent_command: args.agent,
        runs: args.runs,
        tasks: args.tasks,
        checks: args.checks,
        project: args.project,
        time_limit_secs: args.time_limit,
        jobs: args.jobs,
        install_dir: args.install_dir,
        keep: args.keep,
    };
    if args.dry_run {
        let ws = global.open_read_only()?;
        let plan = trial::plan(&ws, &req)?;
        if args.json {
            #[derive(serde::Serialize)]
            struct DryRun<'a> {
                #[serde(flatten)]
                plan: &'a Plan,
                commands: Vec<Vec<String>>,
            }
            let commands = plan.runs.iter().map(|r| plan.commands(r)).collect();
            print_json(&DryRun { plan: &plan, commands })?;
        } else {
            print_plan(&ws, &plan);
        }
        return Ok(Outcome::Ok);
    }
    let mut ws = global.open()?;
    let plan = trial::plan(&ws, &req)?;
    consent(&plan, args.yes)?;
    if !args.json {
        crate::out!(
            "trial of {}: {} runs with the skill and {} without, {} at a time",
            inline(&plan.name),
            plan.runs_per_arm,
            plan.runs_per_arm,
            plan.jobs
        );
    }
    let quiet = args.json;
    let total = plan.runs.len();
    let progress = move |r: &trial::RunResult| {
        if quiet {
            return;
        }
        let how = if r.agent_silent || matches!(r.agent_exit, Some(126 | 127)) {
            let code = r.agent_exit.map_or("killed".to_string(), |c| format!("exit {c}"));
            format!("the agent failed before doing anything ({code}: {})", inline(&r.agent_stderr))
        } else if r.timed_out {
            "timed out".to_string()
        } else if r.passed {
            "passed".to_string()
        } else {
            "failed".to_string()
        };
        let used = match (r.arm, r.loaded) {
            (trial::Arm::With, Some(false)) => ", skill never used",
            _ => "",
        };
        crate::out!(
            "  run {}/{total} ({} the skill, task {}): {how} in {:.1}s{used}",
            r.n,
            r.arm,
            r.task + 1,
            r.seconds
        );
    };
    let t = trial::execute(&mut ws, &plan, &progress)?;
    if args.json {
        print_json(&t)?;
        return Ok(Outcome::Ok);
    }
    for line in trial::verdict::lines(&t) {
        crate::out!("{line}");
    }
    if let Some(dir) = &t.kept {
        crate::out!("  workspaces kept in {}", inline(dir));
    }
    if t.judgement.verdict == effect::Verdict::Hurts && t.skill_id.is_some() {
        crate::out!(
            "  {} is flagged for review: `skilldeck approve --skill {}` keeps it as it is",
            inline(&t.skill),
            inline(&t.skill)
        );
    }
    Ok(Outcome::Ok)
}

/// The skill or draft `target` names (a skill's name or id, a candidate's id or a draft's name)
/// as the trial planner takes it, with its agent: a Codex skill or draft is trialled as Codex's.
fn subject(
    global: &GlobalArgs,
    target: &str,
    agent: Option<String>,
) -> Result<(String, Option<String>)> {
    let ws = global.open_read_only()?;
    if let Some(id) = target::id(target).filter(|_| !target.starts_with('#')) {
        let c = draft::get_candidate(ws.store.conn(), id)?;
        return Ok((id.to_string(), agent.or(Some(c.agent_id))));
    }
    match lifecycle::named_skill(&ws, agent.as_deref(), target) {
        Ok(skill) => Ok((skill.name, Some(skill.agent))),
        Err(not_a_skill) => match target::candidate(&ws, target, Kind::NewDraft) {
            Ok(id) => {
                let c = draft::get_candidate(ws.store.conn(), id)?;
                Ok((id.to_string(), agent.or(Some(c.agent_id))))
            }
            Err(_) => Err(not_a_skill),
        },
    }
}

/// Which agent loads project skills from the plan's install folder, said beside it.
fn loaded_there(ws: &Workspace, plan: &Plan) -> String {
    let loads = match plan.install_dir.as_str() {
        trial::plan::CODEX_INSTALL_DIR => "Codex",
        trial::plan::CLAUDE_INSTALL_DIR => "Claude Code",
        _ => return String::new(),
    };
    let agent = ws.agent_label(&plan.agent_id);
    if agent == loads {
        format!(", where {loads} loads project skills")
    } else {
        format!(", where {loads} loads project skills (the skill is {agent}'s)")
    }
}

fn print_plan(ws: &Workspace, plan: &Plan) {
    crate::out!(
        "dry run: trial of {} ({} skill), {} runs with the skill and {} without, {} at a time, \
         stopped after {}s",
        inline(&plan.name),
        inline(&ws.agent_label(&plan.agent_id)),
        plan.runs_per_arm,
        plan.runs_per_arm,
        plan.jobs,
        plan.time_limit_secs
    );
    crate::out!("tasks (from {}):", plan.tasks_from);
    for (i, t) in plan.tasks.iter().enumerate() {
        crate::out!("  {}. {}", i + 1, inline(t));
    }
    crate::out!("checks (from {}; a run passes when every one exits 0):", plan.checks_from);
    for c in &plan.checks {
        crate::out!("  {}", inline(c));
    }
    for (c, why) in &plan.checks_left_out {
        crate::out!("  left out: {} ({why})", inline(c));
    }
    let skill = match &plan.skill {
        trial::plan::ArmSkill::Folder(dir) => format!("the folder {}", dir.display()),
        trial::plan::ArmSkill::Text(_) => "the draft's SKILL.md".to_string(),
    };
    crate::out!(
        "the \"with\" arm installs {} at <workspace>/{}/{}{}",
        inline(&skill),
        inline(&plan.install_dir),
        inline(&plan.name),
        loaded_there(ws, plan)
    );
    crate::out!("workspaces under {} (nothing is created by a dry run):", plan.root.display());
    for r in &plan.runs {
        crate::out!("run {} ({} the skill, task {}):", r.n, r.arm, r.task + 1);
        for c in plan.commands(r) {
            crate::out!("  {}", inline(&c));
        }
    }
}

/// Checks taken from the skill's text run only once the user has read them: listed, then a yes
/// on a terminal, or `--yes`.
fn consent(plan: &Plan, yes: bool) -> Result<()> {
    if !plan.checks_need_consent || yes {
        return Ok(());
    }
    crate::err_out!("checks each run would be judged by (from {}):", plan.checks_from);
    for c in &plan.checks {
        crate::err_out!("  {}", inline(c));
    }
    for (c, why) in &plan.checks_left_out {
        crate::err_out!("  left out: {} ({})", inline(c), inline(why));
    }
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        crate::err_part!("run these checks? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if matches!(answer.trim(), "y" | "Y" | "yes") {
            return Ok(());
        }
        bail!("nothing ran: give your own checks with --check 'CMD'");
    }
    bail!(
        "these checks come from the skill's text (drafted from transcripts): read them, then run \
         the trial again with --yes, or give your own with --check 'CMD'"
    )
}
