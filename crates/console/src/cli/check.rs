//! `skilldeck check NAME ARTIFACT --output FILE`: evaluate the artifact's assertions against an
//! output, record a trace and feed the outcome into the skill's score.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::{Outcome, print_json};
use crate::identity::resolve_for_command;
use crate::model::Outcome as RunOutcome;
use crate::packages::assertions::AssertionVerdict;
use crate::packages::{CheckOptions, check};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Skill name or ref
    pub name: String,
    /// Artifact name whose assertions to evaluate
    pub artifact: String,
    /// File holding the output to check
    #[arg(long)]
    pub output: PathBuf,
    /// Model that produced the output (picks the artifact's variant; stored in the trace)
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long)]
    pub session: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &super::GlobalArgs, args: CheckArgs) -> Result<Outcome> {
    let output = std::fs::read_to_string(&args.output)
        .with_context(|| format!("reading output {}", args.output.display()))?;
    let mut ws = global.open()?;
    let agent = args.agent.unwrap_or_else(|| ws.config.agent_id.clone());
    let skill = resolve_for_command(&mut ws, &agent, &args.name)?;
    let opts = CheckOptions { model: args.model, session: args.session };
    let report = check(&mut ws, skill.skill_id, &args.artifact, &output, &opts)?;
    if args.json {
        print_json(&report)?;
    } else {
        for r in &report.results {
            let label = match r.verdict {
                AssertionVerdict::Passed => "PASS",
                AssertionVerdict::Failed => "FAIL",
                AssertionVerdict::NotRun => "NOT RUN",
            };
            crate::out!("{label:7} {} {}: {}", r.kind, r.check, r.detail);
        }
        let recorded = match report.outcome {
            Some(o) => format!("recorded {o} for {}", report.skill),
            None => "no assertion could run; score unchanged".to_string(),
        };
        crate::out!(
            "{}/{} assertions passed, {} not run; {recorded} (trace {})",
            report.assertions_passed,
            report.assertions_run,
            report.assertions_not_run,
            report.trace_id
        );
    }
    Ok(if report.outcome == Some(RunOutcome::Failure) { Outcome::Fail(1) } else { Outcome::Ok })
}
