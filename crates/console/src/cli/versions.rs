//! `skilldeck versions NAME [--json]`: every kept version.

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{GlobalArgs, Outcome, print_json};
use crate::lifecycle;

#[derive(Debug, Args)]
pub struct VersionsArgs {
    pub name: String,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Row<'a> {
    version: i64,
    sha256: &'a str,
    source: &'a str,
    created_at: &'a str,
    bytes: usize,
}

pub fn run(global: &GlobalArgs, args: VersionsArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let named = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    let skill = lifecycle::stats(&ws.store, &named.agent, &named.name)?;
    let versions = lifecycle::versions(&ws.store, skill.id)?;
    let rows: Vec<Row> = versions
        .iter()
        .map(|v| Row {
            version: v.version,
            sha256: &v.sha256,
            source: v.source.as_str(),
            created_at: &v.created_at,
            bytes: v.content.len(),
        })
        .collect();
    if args.json {
        print_json(&rows)?;
        return Ok(Outcome::Ok);
    }
    for r in rows {
        crate::out!(
            "v{:<4} {}  {:<8} {}  {} bytes",
            r.version,
            &r.sha256[..12.min(r.sha256.len())],
            r.source,
            r.created_at,
            r.bytes
        );
    }
    Ok(Outcome::Ok)
}
