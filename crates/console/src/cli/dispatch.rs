//! `skilldeck dispatch NAME ARTIFACT`: run an artifact through its kind's handler, with the
//! dspy_module fallback, and record a trace.

use anyhow::Result;
use clap::Args;

use super::render::VarArgs;
use super::{Outcome, print_json};
use crate::identity::resolve_for_command;
use crate::packages::render::parse_vars;
use crate::packages::{DispatchOptions, dispatch};

#[derive(Debug, Args)]
pub struct DispatchArgs {
    /// Skill name or ref
    pub name: String,
    /// Artifact name
    pub artifact: String,
    #[command(flatten)]
    pub vars: VarArgs,
    /// Session id the trace belongs to (default: a fresh one)
    #[arg(long)]
    pub session: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &super::GlobalArgs, args: DispatchArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = args.agent.unwrap_or_else(|| ws.config.agent_id.clone());
    let skill = resolve_for_command(&mut ws, &agent, &args.name)?;
    let opts = DispatchOptions {
        vars: parse_vars(&args.vars.vars, &args.vars.json_vars)?,
        model: args.vars.model,
        session: args.session,
    };
    let done = dispatch(&mut ws, skill.skill_id, &args.artifact, &opts)?;
    if args.json {
        print_json(&done)?;
        return Ok(Outcome::Ok);
    }
    if let Some(from) = &done.fell_back_from {
        crate::err_out!(
            "note: {from:?} is a dspy_module and the DSPy runtime is absent; fell back to its prompt_template {:?}",
            done.artifact
        );
    }
    crate::err_out!(
        "dispatched {:?} ({}) via {} in {} ms; trace {}",
        done.artifact,
        done.kind,
        done.handler,
        done.duration_ms,
        done.trace_id
    );
    crate::out_part!("{}", done.output);
    if !done.output.ends_with('\n') {
        crate::out!();
    }
    Ok(Outcome::Ok)
}
