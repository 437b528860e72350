//! `skilldeck acquire`: test-run a code skill and register it only when the run succeeds.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::{Outcome, print_json};
use crate::acquire::{AcquireOutcome, AcquireRequest, acquire};

#[derive(Debug, Args)]
pub struct AcquireArgs {
    /// Skill name (Agent Skills rules: a-z, 0-9, '-')
    #[arg(long)]
    pub name: String,
    /// File holding the code (CDATA wrappers, HTML entities and markdown fences are repaired
    /// only where the result parses)
    #[arg(long)]
    pub code: PathBuf,
    /// JSON payload passed as the script's first argument in the test run
    #[arg(long)]
    pub test_payload: String,
    #[arg(long)]
    pub description: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &super::GlobalArgs, args: AcquireArgs) -> Result<Outcome> {
    let code = std::fs::read_to_string(&args.code)
        .with_context(|| format!("reading code {}", args.code.display()))?;
    let mut ws = global.open()?;
    let req = AcquireRequest {
        agent: args.agent.unwrap_or_else(|| ws.config.agent_id.clone()),
        name: args.name,
        code,
        test_payload: args.test_payload,
        description: args.description,
    };
    let outcome = acquire(&mut ws, &req)?;
    if args.json {
        print_json(&outcome)?;
    }
    match outcome {
        AcquireOutcome::Registered(done) => {
            if !args.json {
                let repaired = if done.repairs.is_empty() {
                    "code used as given".to_string()
                } else {
                    format!("repaired: {}", done.repairs.join(", "))
                };
                crate::out!(
                    "registered {} (#{}, version {}, {}; sha256 {}) at {}",
                    done.name,
                    done.skill_id,
                    done.version,
                    done.registry_status,
                    &done.sha256[..12],
                    done.path.display()
                );
                crate::out!(
                    "{repaired}; test output: {}",
                    done.test_stdout.lines().next().unwrap_or("")
                );
            }
            Ok(Outcome::Ok)
        }
        AcquireOutcome::Rejected { stage, cause, .. } => {
            crate::err_out!("{}: not registered ({stage} failed): {cause}", req.name);
            Ok(Outcome::Fail(1))
        }
    }
}
