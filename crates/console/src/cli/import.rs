//! `skilldeck import PACKAGE.json`: validate a package and store it, or list every
//! problem and store nothing.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use super::{Outcome, print_json};
use crate::identity::Scope;
use crate::packages::{ImportOptions, ImportResult, Imported, Problem, import};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Package JSON file
    pub package: PathBuf,
    /// Scope to install into: account (the live skills folder) or workspace
    #[arg(long, value_enum, default_value = "account")]
    pub scope: Scope,
    #[arg(long, default_value = "default")]
    pub namespace: String,
    /// Mark the skill public (identity is skill id, namespace and visibility)
    #[arg(long)]
    pub public: bool,
    /// Replace a skill of the same name in that scope and namespace, as its next version
    #[arg(long)]
    pub replace: bool,
    /// Agent the skill belongs to (default: config agent_id)
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    imported: Option<&'a Imported>,
    problems: &'a [Problem],
}

pub fn run(global: &super::GlobalArgs, args: ImportArgs) -> Result<Outcome> {
    let text = std::fs::read_to_string(&args.package)
        .with_context(|| format!("reading {}", args.package.display()))?;
    let mut ws = global.open()?;
    let opts = ImportOptions {
        agent: args.agent.unwrap_or_else(|| ws.config.agent_id.clone()),
        scope: args.scope,
        namespace: args.namespace,
        is_public: args.public,
        replace: args.replace,
    };
    match import(&mut ws, &text, &opts)? {
        ImportResult::Imported(done) => {
            if args.json {
                print_json(&Report { imported: Some(&done), problems: &[] })?;
            } else {
                crate::out!(
                    "imported {:?} as {}/{} (#{}, {} scope, version {}, {} artifacts) into {}",
                    done.display_name,
                    done.namespace,
                    done.name,
                    done.skill_id,
                    done.scope.as_str(),
                    done.version,
                    done.artifacts,
                    done.path.display()
                );
            }
            Ok(Outcome::Ok)
        }
        ImportResult::Rejected(problems) => {
            if args.json {
                print_json(&Report { imported: None, problems: &problems })?;
            }
            let file = args.package.display();
            crate::err_out!("{file}: rejected, nothing was written ({} problems):", problems.len());
            for p in &problems {
                crate::err_out!("{file}: {p}");
            }
            Ok(Outcome::Fail(1))
        }
    }
}
