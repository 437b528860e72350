//! `skilldeck diff NAME [FROM] [TO]`: unified diff between two versions (default: the newest
//! and the one before it). `skilldeck diff --candidate ID`: what approving a proposed version
//! would change, against the live skill (and, for a merge, against the skill it absorbs too).

use anyhow::{Context, Result};
use clap::Args;

use super::{GlobalArgs, Outcome};
use crate::catalog::skills;
use crate::catalog::versions;
use crate::draft;
use crate::draft::candidates;
use crate::draft::merge;
use crate::lifecycle;
use crate::text::safe;
use crate::workspace;

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[arg(required_unless_present = "candidate")]
    pub name: Option<String>,
    /// A proposed version or merge in the review queue: its diff against each skill it replaces
    #[arg(long, conflicts_with_all = ["name", "from", "to"])]
    pub candidate: Option<String>,
    #[arg(value_parser = super::target::version)]
    pub from: Option<i64>,
    #[arg(value_parser = super::target::version)]
    pub to: Option<i64>,
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: DiffArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    if let Some(text) = &args.candidate {
        return candidate(&ws, super::target::candidate(&ws, text, super::target::Kind::Proposal)?);
    }
    let named = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name.unwrap_or_default())?;
    let name = named.name;
    let skill = lifecycle::stats(&ws.store, &named.agent, &name)?;
    let versions = lifecycle::versions(&ws.store, skill.id)?;
    let to = args.to.unwrap_or(skill.version);
    let from = args.from.unwrap_or(to - 1);
    let text = |v: i64| {
        versions.iter().find(|x| x.version == v).map(|x| x.content.as_str()).with_context(|| {
            format!("skill {name:?} has no version {v} (it has 1..={})", versions.len())
        })
    };
    let old = if from == 0 && args.from.is_none() { "" } else { text(from)? };
    crate::out_part!("{}", lifecycle::diff_text(old, text(to)?));
    Ok(Outcome::Ok)
}

/// The proposed text of candidate `id` against the live text of each skill it replaces.
fn candidate(ws: &workspace::Workspace, id: i64) -> Result<Outcome> {
    let conn = ws.store.conn();
    let c = draft::get_candidate(conn, id)?;
    let target = c.target_skill_id.with_context(|| {
        format!(
            "candidate {id} is a new skill, not a proposed version: its draft is {:?}",
            c.staged_path
        )
    })?;
    let mut skills = vec![target];
    skills.extend(candidates::absorbs(conn, id)?);
    let target_name = skills::by_id(conn, target)?.header.name;
    let proposed = draft::approval_text(c.skill_md.as_deref().unwrap_or_default(), &target_name);
    if c.source == draft::CandidateSource::Restore {
        let row = skills::by_id(conn, target)?;
        crate::out!(
            "# candidate {id} restores {} ({}): its text comes back as it was",
            safe::inline(&row.name),
            row.status
        );
        if let Some(r) = &c.reason {
            crate::out!("# {}", safe::inline(&r.summary));
        }
    }
    for skill in skills {
        let row = skills::by_id(conn, skill)?;
        let live = versions::latest_content(conn, skill)?;
        crate::out!("# candidate {id} against {} (v{})", safe::inline(&row.name), row.version);
        crate::out_part!("{}", lifecycle::diff_text(&live, &proposed));
    }
    if let Some(absorbed) = candidates::absorbs(conn, id)? {
        let items = merge::coverage(conn, target, absorbed, &proposed)?;
        let dropped = items.iter().filter(|i| !i.kept).count();
        crate::out!(
            "# merge check: {} steps, commands and checks of both skills, {dropped} dropped",
            items.len()
        );
        for i in &items {
            crate::out!(
                "  {:<7} {:<7} ({}) {}",
                if i.kept { "kept" } else { "DROPPED" },
                i.kind,
                safe::inline(&i.from),
                safe::inline(&i.text)
            );
        }
    }
    Ok(Outcome::Ok)
}
