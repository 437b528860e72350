//! `skilldeck validate DIR`: lint skill folders against the Agent Skills spec.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Outcome, print_json};
use crate::spec::{self, Severity};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// A skill folder, a SKILL.md, or a folder of skill folders
    pub dir: PathBuf,
    /// Print the problems as a JSON array
    #[arg(long)]
    pub json: bool,
}

/// Exits 1 when any problem is an error; warnings alone exit 0.
pub fn run(args: ValidateArgs) -> Result<Outcome> {
    let problems = spec::validate_dir(&args.dir)?;
    let errors = problems.iter().filter(|p| p.severity == Severity::Error).count();
    if args.json {
        print_json(&problems)?;
    } else {
        for p in &problems {
            crate::out!("{p}");
        }
        let folders = spec::skill_folders(&args.dir).map(|f| f.len()).unwrap_or(0);
        crate::out!(
            "{folders} folder(s) checked: {errors} error(s), {} warning(s)",
            problems.len() - errors
        );
    }
    Ok(if errors > 0 { Outcome::Fail(1) } else { Outcome::Ok })
}
