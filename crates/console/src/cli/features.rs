//! `skilldeck features [--format json|csv]`: scorer features per skill.

use anyhow::Result;
use clap::{Args, ValueEnum};

use super::{GlobalArgs, Outcome, print_json};
use crate::lifecycle;
use crate::trial::record;
use crate::usage::effects;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Json,
    Csv,
}

#[derive(Debug, Args)]
pub struct FeaturesArgs {
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Only this agent's skills (default: every agent)
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: FeaturesArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let mut rows = lifecycle::features(&ws.store, args.agent.as_deref(), chrono::Utc::now())?;
    effects::annotate(ws.store.conn(), &mut rows)?;
    record::annotate(ws.store.conn(), &mut rows)?;
    match args.format {
        Format::Json => print_json(&rows)?,
        Format::Csv => crate::out_part!("{}", lifecycle::features_csv(&rows)),
    }
    Ok(Outcome::Ok)
}
