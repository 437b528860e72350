//! `skilldeck candidates`: what detection proposes, for every agent (as the console's queue
//! shows it) or one.

use std::path::Path;

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::catalog::skills;
use crate::draft;
use crate::fsio;
use crate::text::safe;

#[derive(Debug, Args)]
pub struct CandidatesArgs {
    /// Only this agent's candidates (default: every agent, as the console's queue)
    #[arg(long)]
    pub agent: Option<String>,
    /// Include promoted and dismissed candidates
    #[arg(long)]
    pub all: bool,
    /// Print a JSON array
    #[arg(long)]
    pub json: bool,
    /// Also list rows recorded as evidence only (too few specific steps: never drafted or queued)
    #[arg(long)]
    pub evidence: bool,
}

pub fn run(global: &GlobalArgs, args: CandidatesArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let mut list: Vec<_> =
        draft::list_with_evidence(&ws.store, args.agent.as_deref(), args.evidence)?
            .into_iter()
            .filter(|c| args.all || c.status == draft::CandidateStatus::Candidate)
            .collect();
    // An open new-skill draft shows as saved in staging (a person may have edited it), which is
    // what `promote` writes; the stored draft only where the file is gone.
    for c in &mut list {
        if c.status == draft::CandidateStatus::Candidate
            && c.target_skill_id.is_none()
            && let Some(folder) = &c.staged_path
            && let Ok(text) = fsio::read_skill_md_text(&Path::new(folder).join("SKILL.md"))
        {
            c.skill_md = Some(text);
        }
    }
    if args.json {
        print_json(&list)?;
        return Ok(Outcome::Ok);
    }
    if list.is_empty() {
        match &args.agent {
            Some(agent) => crate::out!("no candidates for agent {}", safe::inline(agent)),
            None => crate::out!("no candidates"),
        }
        return Ok(Outcome::Ok);
    }
    crate::out!(
        "{:>4}  {:<9}  {:>4}  {:<9}  {:<11}  NAME",
        "ID",
        "STATUS",
        "OCC",
        "SOURCE",
        "AGENT"
    );
    for c in &list {
        let status = if c.evidence_only { "evidence".to_string() } else { c.status.to_string() };
        crate::out!(
            "{:>4}  {:<9}  {:>4}  {:<9}  {:<11}  {}",
            c.id,
            status,
            c.workflow.as_ref().map_or(c.occurrences, |w| w.times() as i64),
            c.source,
            safe::inline(&ws.agent_label(&c.agent_id)),
            safe::inline(&c.name)
        );
        if let Some(reason) = &c.reason {
            crate::out!(
                "      why: {} (score {:.1}, specificity {:.2})",
                safe::inline(&reason.summary),
                reason.score,
                reason.specificity
            );
        }
        if let Some(w) = &c.workflow {
            let steps: Vec<String> = w
                .steps
                .iter()
                .map(|s| {
                    let t = safe::inline(&s.template).into_owned();
                    if s.optional { format!("[{t}]") } else { t }
                })
                .collect();
            crate::out!("      steps: {}", steps.join(" -> "));
        }
        let absorbs = match draft::candidates::absorbs(ws.store.conn(), c.id)? {
            Some(id) => Some(skills::by_id(ws.store.conn(), id)?.header.name),
            None => None,
        };
        match (&c.target_skill_name, absorbs) {
            (Some(target), Some(other)) => crate::out!(
                "      merges {} into {}: skilldeck approve {} (archives {}) · skilldeck diff --candidate {}",
                safe::inline(&other),
                safe::inline(target),
                c.id,
                safe::inline(&other),
                c.id
            ),
            (Some(target), None) => crate::out!(
                "      proposes a new version of {}: skilldeck approve {}",
                safe::inline(target),
                c.id
            ),
            _ => {}
        }
        if let Some(path) = &c.staged_path {
            crate::out!("      draft: {path}");
        }
        // Evidence-only rows have no draft, so nobody drafted them.
        match &c.draft_note {
            _ if c.evidence_only => {}
            Some(why) => crate::out!("      drafted by: {} ({})", c.drafted_by, safe::inline(why)),
            None => crate::out!("      drafted by: {}", c.drafted_by),
        }
        for flag in &c.flags {
            crate::out!("      flagged: {}", safe::inline(&flag.reason));
        }
    }
    Ok(Outcome::Ok)
}
