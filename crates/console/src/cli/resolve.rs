//! `skilldeck resolve NAME|REF...`: the one resolver's command-line twin.

use anyhow::{Result, bail};
use clap::Args;

use super::{Outcome, print_json};
use crate::identity::{
    Resolution, Selection, load_selection, register_folders, resolve, save_selection,
};
use crate::packages::{PackageDetail, detail};

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
    /// Show each resolved skill in full: artifacts, variants, scope, shadowing, recent traces
    #[arg(long)]
    pub detail: bool,
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
    if args.detail && all_resolved {
        let details: Vec<PackageDetail> = results
            .iter()
            .filter_map(|r| match r {
                Resolution::Resolved { skill, .. } => Some(detail(&ws.store, skill.skill_id)),
                _ => None,
            })
            .collect::<Result<_>>()?;
        if args.json {
            print_json(&details)?;
        } else {
            details.iter().for_each(print_detail);
        }
        return Ok(Outcome::Ok);
    }
    if args.json {
        print_json(&results)?;
    } else {
        for r in &results {
            match r {
                Resolution::Resolved { requested, skill, shadows } => {
                    let shadow =
                        shadows.iter().map(|s| format!("; overrides {s}")).collect::<String>();
                    crate::out!("{} -> {skill}{shadow}", requested.requested);
                }
                Resolution::Ambiguous { requested, candidates } => {
                    let list: Vec<String> = candidates.iter().map(ToString::to_string).collect();
                    crate::out!(
                        "{}: ambiguous, candidates: {}",
                        requested.requested,
                        list.join("; ")
                    );
                }
                Resolution::NotFound { requested } => {
                    crate::out!("{}: not found", requested.requested)
                }
            }
        }
        if let Some(set) = &args.save {
            crate::out!("saved selection {set:?} ({} entries, as requested)", selections.len());
        }
    }
    Ok(if all_resolved { Outcome::Ok } else { Outcome::Fail(1) })
}

fn print_detail(d: &PackageDetail) {
    let title = d.display_name.as_deref().map(|t| format!(" {t:?}")).unwrap_or_default();
    let vis = if d.is_public { "public" } else { "private" };
    crate::out!(
        "{}{title}: #{} {}/{} {vis}, {} scope, {} ({})",
        d.name,
        d.skill_id,
        d.namespace,
        d.name,
        d.scope,
        d.status,
        d.path
    );
    if let Some(s) = &d.shadowed_by {
        crate::out!("  shadowed by {s}");
    }
    for s in &d.shadows {
        crate::out!("  overrides {s}");
    }
    for a in &d.artifacts {
        let variant = a.model_variant.as_deref().unwrap_or("default");
        let mut line = format!("  {:>3} {:<16} {} [{variant}]", a.ordinal, a.kind.as_str(), a.name);
        if a.assertions > 0 {
            line += &format!(", {} assertions", a.assertions);
        }
        if let Some(f) = &a.fallback_artifact {
            line += &format!(", falls back to {f}");
        }
        crate::out!("{line}");
    }
    if let Some(c) = &d.code {
        crate::out!(
            "  code {} sha256 {} ({}), tested {}",
            c.script_path,
            &c.sha256[..12],
            c.registry_status,
            c.tested_at
        );
    }
    for t in &d.recent_traces {
        let name = t.artifact_name.as_deref().unwrap_or(&t.artifact_id);
        let mut line = format!("  trace {} {name} ({})", t.started_at, t.artifact_kind);
        if t.assertions_run > 0 {
            line += &format!(" {}/{} assertions passed", t.assertions_passed, t.assertions_run);
        }
        if let Some(e) = &t.error {
            line += &format!(" error: {}", e.lines().next().unwrap_or(""));
        }
        crate::out!("{line}");
    }
}
