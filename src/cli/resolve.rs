//! `skilldeck resolve NAME|REF...`: the one resolver's command-line twin.

use anyhow::{Result, bail};
use clap::Args;

use super::{Outcome, print_json};
use crate::identity::{
    Resolution, Selection, load_selection, register_folders, resolve, save_selection,
};

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// NAME, NAMESPACE/NAME, public:NAMESPACE/NAME, private:NAME or #ID
    pub refs: Vec<String>,
    /// Save these selections (as requested, never the resolved ids) under a name
    #[arg(long, value_name = "SET")]
    pub save: Option<String>,
    /// Resolve a saved selection again against the skills visible now
    #[arg(long, value_name = "SET", conflicts_with = "save")]
    pub set: Option<String>,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &super::GlobalArgs, args: ResolveArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = args.agent.unwrap_or_else(|| ws.config.agent_id.clone());
    let mut selections: Vec<Selection> =
        args.refs.iter().map(|r| Selection::parse(r)).collect::<Result<_>>()?;
    if let Some(set) = &args.set {
        selections.extend(load_selection(&ws.store, &agent, set)?);
    }
    if selections.is_empty() {
        bail!("nothing to resolve: give NAME or REF arguments, or --set SET");
    }
    register_folders(&mut ws, &agent)?;
    let results: Vec<Resolution> =
        selections.iter().map(|s| resolve(&ws.store, &agent, s)).collect::<Result<_>>()?;
    if let Some(set) = &args.save {
        save_selection(&mut ws.store, &agent, set, &selections)?;
    }
    let all_resolved = results.iter().all(|r| matches!(r, Resolution::Resolved { .. }));
    if args.json {
        print_json(&results)?;
    } else {
        for r in &results {
            match r {
                Resolution::Resolved { requested, skill, shadows } => {
                    let shadow =
                        shadows.iter().map(|s| format!("; overrides {s}")).collect::<String>();
                    println!("{} -> {skill}{shadow}", requested.requested);
                }
                Resolution::Ambiguous { requested, candidates } => {
                    let list: Vec<String> = candidates.iter().map(ToString::to_string).collect();
                    println!("{}: ambiguous, candidates: {}", requested.requested, list.join("; "));
                }
                Resolution::NotFound { requested } => {
                    println!("{}: not found", requested.requested)
                }
            }
        }
        if let Some(set) = &args.save {
            println!("saved selection {set:?} ({} entries, as requested)", selections.len());
        }
    }
    Ok(if all_resolved { Outcome::Ok } else { Outcome::Fail(1) })
}
