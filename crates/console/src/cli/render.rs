//! `skilldeck render NAME ARTIFACT --var k=v`: render a template artifact, choosing the model
//! variant the way `packages::render` picks it.

use anyhow::{Result, bail};
use clap::Args;
use serde::Serialize;

use super::{Outcome, print_json};
use crate::identity::resolve_for_command;
use crate::packages::render::{choose_variant, parse_vars, render_str};
use crate::packages::{Artifact, ArtifactKind, load_artifacts};

/// Template variables shared by `render` and `dispatch`.
#[derive(Debug, Clone, Args)]
pub struct VarArgs {
    /// A string variable, KEY=VALUE (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE")]
    pub vars: Vec<String>,
    /// A JSON variable, KEY=JSON (repeatable), e.g. claims='[{"text":"..."}]'
    #[arg(long = "var-json", value_name = "KEY=JSON")]
    pub json_vars: Vec<String>,
    /// Model (or model family) whose variant to prefer, e.g. claude-sonnet-4 or openai
    #[arg(long)]
    pub model: Option<String>,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Skill name or ref
    pub name: String,
    /// Artifact name (e.g. "Check Prompt")
    pub artifact: String,
    #[command(flatten)]
    pub vars: VarArgs,
    #[arg(long)]
    pub agent: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Rendered<'a> {
    skill_id: i64,
    artifact: &'a str,
    kind: ArtifactKind,
    model_variant: Option<&'a str>,
    text: String,
}

pub fn run(global: &super::GlobalArgs, args: RenderArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = args.agent.unwrap_or_else(|| ws.config.agent_id.clone());
    let skill = resolve_for_command(&mut ws, &agent, &args.name)?;
    let artifacts: Vec<Artifact> =
        load_artifacts(&ws.store, skill.skill_id)?.into_iter().map(|s| s.artifact).collect();
    let chosen = choose_variant(&artifacts, &args.artifact, args.vars.model.as_deref())?;
    if !matches!(chosen.kind, ArtifactKind::PromptTemplate | ArtifactKind::CodeTemplate) {
        bail!("artifact {:?} is a {}, not a template; use dispatch", chosen.name, chosen.kind);
    }
    let vars = parse_vars(&args.vars.vars, &args.vars.json_vars)?;
    let text = render_str(&chosen.content, &vars)?;
    if args.json {
        print_json(&Rendered {
            skill_id: skill.skill_id,
            artifact: &chosen.name,
            kind: chosen.kind,
            model_variant: chosen.model_variant.as_deref(),
            text,
        })?;
    } else {
        crate::out_part!("{text}");
        if !text.ends_with('\n') {
            crate::out!();
        }
    }
    Ok(Outcome::Ok)
}
