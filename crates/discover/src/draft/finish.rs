//! After detection has (re)drafted candidates: flags on evidence aimed at the agent, and, when
//! `draft.command` is set, the model's draft in place of the mechanical one if it passes the
//! checks (`draft::model`).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::candidates::{self, CandidateView, StagedDraft};
use super::model::{self, Outcomes, Packet, PacketEvidence, SimilarSkill};
use super::skill;
use crate::fsio;
use crate::lifecycle;
use crate::spec::frontmatter;
use crate::text::injection;
use crate::workflow::WorkflowEvidence;
use crate::workspace::Workspace;

#[derive(Debug, Default, Clone, Serialize)]
pub struct FinishReport {
    /// Candidates whose evidence raised injection flags.
    pub flagged: u64,
    /// Drafts `draft.command` wrote and skilldeck kept.
    pub model_drafts: u64,
    /// Drafts `draft.command` failed to write, with the reason (the mechanical draft stays).
    pub model_rejected: Vec<String>,
}

/// Finishes the candidates detection just drafted, by id, from the drafts the recorder kept
/// (open candidates, each with the evidence its draft was made from): the flags come from that
/// evidence, not from reading each row and its workflow back. With `draft.command` set, the
/// model's packet is read from the row (a sequence's sessions accumulate there; a model's run
/// dwarfs the read).
pub fn after_detection<'a>(
    ws: &Workspace,
    drafts: impl IntoIterator<Item = (i64, &'a StagedDraft)>,
) -> Result<FinishReport> {
    let mut report = FinishReport::default();
    let conn = ws.store.conn();
    for (id, draft) in drafts {
        let workflow = draft.workflow.as_ref();
        let flags = match workflow {
            Some(w) => skill::evidence_flags(w),
            None => injection::flags_all(draft.examples.iter().map(String::as_str)),
        };
        if !flags.is_empty() {
            report.flagged += 1;
        }
        candidates::set_flags(conn, id, &flags)?;
        if ws.config.draft.command.is_empty() {
            candidates::set_drafted(conn, id, candidates::DraftedBy::Mechanical, None, None)?;
            continue;
        }
        let c = candidates::get_candidate(conn, id)?;
        let similar = similar_skills(ws, &c)?;
        let scratch = ws.paths.staging_dir.join(".drafting");
        let packet = packet(&c, workflow, &draft.skill_md, similar);
        match model::draft(&ws.config.draft, &packet, &scratch) {
            Ok(text) => {
                if let Some(folder) = &c.staged_path {
                    fsio::atomic_write(&Path::new(folder).join("SKILL.md"), text.as_bytes())?;
                }
                let description = description_of(&text).unwrap_or_default();
                candidates::set_drafted(
                    conn,
                    id,
                    candidates::DraftedBy::Command,
                    Some((&text, &description)),
                    None,
                )?;
                report.model_drafts += 1;
            }
            Err(why) => {
                candidates::set_drafted(
                    conn,
                    id,
                    candidates::DraftedBy::Mechanical,
                    None,
                    Some(&why),
                )?;
                report.model_rejected.push(format!("candidate {id} ({}): {why}", c.name));
            }
        }
    }
    Ok(report)
}

fn description_of(text: &str) -> Option<String> {
    let parsed = frontmatter::parse(text).ok()?;
    parsed.fields.into_iter().find(|e| e.key == "description").and_then(|e| match e.value {
        frontmatter::Node::Str(s) => Some(s),
        _ => None,
    })
}

/// Live skills whose description matches the candidate's, by name and description.
fn similar_skills(ws: &Workspace, c: &CandidateView) -> Result<Vec<SimilarSkill>> {
    let query = format!("{} {}", c.name.replace('-', " "), c.description.as_deref().unwrap_or(""));
    let found = lifecycle::suggest(&ws.store, &c.agent_id, &query, 3)?;
    Ok(found
        .into_iter()
        .filter(|s| s.name != c.name)
        .map(|s| {
            let text = std::fs::read_to_string(ws.paths.skills_dir.join(&s.name).join("SKILL.md"));
            let description = text.ok().and_then(|t| description_of(&t)).unwrap_or_default();
            SimilarSkill { name: s.name, description }
        })
        .collect())
}

fn packet<'a>(
    c: &'a CandidateView,
    workflow: Option<&'a WorkflowEvidence>,
    mechanical: &'a str,
    similar_skills: Vec<SimilarSkill>,
) -> Packet<'a> {
    let outcomes = match workflow {
        Some(w) => Outcomes {
            sessions: w.reason.support.max(w.sightings.len()),
            success_rate: (!w.sightings.is_empty()).then(|| w.success_rate()),
            first_seen: w.first_seen.as_deref(),
            last_seen: w.last_seen.as_deref(),
            failures: &w.failures,
        },
        None => Outcomes {
            sessions: c.session_keys.len(),
            success_rate: None,
            first_seen: None,
            last_seen: None,
            failures: &[],
        },
    };
    Packet {
        task: model::TASK,
        rules: model::RULES,
        name: &c.name,
        agent: &c.agent_id,
        evidence: PacketEvidence {
            steps: workflow.map_or(&[], |w| w.steps.as_slice()),
            example_requests: skill::clean_requests(&c.examples),
            outcomes,
            reason: workflow.map_or("", |w| w.reason.summary.as_str()),
        },
        similar_skills,
        mechanical_draft: mechanical,
    }
}
