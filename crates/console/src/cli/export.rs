//! `skilldeck export NAME`: write a package back in the package JSON shape.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::Outcome;
use crate::fsio::atomic_write;
use crate::identity::resolve_for_command;
use crate::packages::export_json;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Skill name or ref (NAME, NAMESPACE/NAME, public:NAMESPACE/NAME, #ID)
    pub name: String,
    /// Write to this file (atomically) instead of stdout
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &super::GlobalArgs, args: ExportArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = args.agent.unwrap_or_else(|| ws.config.agent_id.clone());
    let skill = resolve_for_command(&mut ws, &agent, &args.name)?;
    let json = export_json(&ws.store, skill.skill_id)?;
    match args.out {
        Some(path) => {
            atomic_write(&path, json.as_bytes())?;
            crate::err_out!("exported {} to {}", skill, path.display());
        }
        None => crate::out_part!("{json}"),
    }
    Ok(Outcome::Ok)
}
