//! What a person types for a candidate, a version or a lesson: its id, or its name. A name that
//! fits no candidate of the kind a command takes says what that name is instead, or the nearest
//! known name ("did you mean …?").

use anyhow::{Result, bail};

use crate::draft::{self, CandidateStatus, CandidateView};
use crate::text;
use crate::workspace::Workspace;

/// The candidates a command acts on.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// An open new-skill draft (`promote`, `dismiss`, `edit`).
    NewDraft,
    /// An open proposed version (`approve`).
    Proposal,
    /// Any open candidate (`reject`).
    Open,
    /// A promoted new skill (`undo-promote`).
    Promoted,
    /// A dismissed candidate (`undo-dismiss`).
    Dismissed,
    /// An approved version (`undo-approve`).
    Approved,
}

impl Kind {
    fn fits(self, c: &CandidateView) -> bool {
        let new = c.target_skill_id.is_none();
        match self {
            Kind::NewDraft => c.status == CandidateStatus::Candidate && new,
            Kind::Proposal => c.status == CandidateStatus::Candidate && !new,
            Kind::Open => c.status == CandidateStatus::Candidate,
            Kind::Promoted => c.status == CandidateStatus::Promoted && new,
            Kind::Dismissed => c.status == CandidateStatus::Dismissed,
            Kind::Approved => c.status == CandidateStatus::Promoted && !new,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Kind::NewDraft => "open new-skill candidate",
            Kind::Proposal => "open proposed version",
            Kind::Open => "open candidate",
            Kind::Promoted => "promoted candidate",
            Kind::Dismissed => "dismissed candidate",
            Kind::Approved => "approved version",
        }
    }
}

/// The one candidate `text` names (an id, or a name that fits one candidate of `kind`).
pub fn candidate(ws: &Workspace, text: &str, kind: Kind) -> Result<i64> {
    let ids = candidates(ws, text, kind)?;
    match ids.as_slice() {
        [one] => Ok(one.0),
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|(id, agent)| format!("{id} ({})", ws.agent_label(agent)))
                .collect();
            bail!(
                "{} {}s are named {text:?}: {}; give the id",
                many.len(),
                kind.words(),
                list.join(", ")
            )
        }
    }
}

/// Every candidate of `kind` that `text` names, with its agent: an id names one; a name may
/// name one per agent (the same work done with Claude Code and with Codex).
pub fn candidates(ws: &Workspace, text: &str, kind: Kind) -> Result<Vec<(i64, String)>> {
    if let Some(id) = id(text) {
        return Ok(vec![(id, String::new())]);
    }
    let all = draft::list_candidates(&ws.store, None)?;
    let named = |c: &&CandidateView| c.name == text || c.target_skill_name.as_deref() == Some(text);
    let fit: Vec<(i64, String)> = all
        .iter()
        .filter(named)
        .filter(|c| kind.fits(c))
        .map(|c| (c.id, c.agent_id.clone()))
        .collect();
    if !fit.is_empty() {
        return Ok(fit);
    }
    if let Some(other) = all.iter().rfind(named) {
        let what =
            if other.target_skill_id.is_some() { "a proposed version" } else { "a new skill" };
        let state = match other.status {
            CandidateStatus::Candidate => "open".to_string(),
            status => status.to_string(),
        };
        bail!(
            "candidate {} ({text}, {what}) is {state}: no {} is named {text:?} (see `skilldeck \
             candidates --all`)",
            other.id,
            kind.words()
        );
    }
    let names = all.iter().map(|c| c.name.as_str());
    bail!(
        "no candidate named {text:?} (see `skilldeck candidates --all`){}",
        text::did_you_mean(text, names)
    )
}

/// The open new-skill drafts of other agents that are the same work as `named` (candidate ids
/// a name resolved to): the same steps, under the name with another agent's hash suffix
/// (`run-tests-and-lint-1a2b3c4d`, as naming keeps names unique across agents).
pub fn twins(ws: &Workspace, name: &str, named: &[(i64, String)]) -> Result<Vec<(i64, String)>> {
    let all = draft::list_candidates(&ws.store, None)?;
    let steps = |c: &CandidateView| {
        c.workflow.as_ref().map(|w| w.steps.iter().map(|s| s.template.clone()).collect::<Vec<_>>())
    };
    let named_steps: Vec<_> = named
        .iter()
        .filter_map(|(id, _)| all.iter().find(|c| c.id == *id))
        .filter_map(steps)
        .collect();
    let suffixed = |other: &str| {
        other
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|tag| tag.len() == 8 && tag.chars().all(|c| c.is_ascii_hexdigit()))
    };
    Ok(all
        .iter()
        .filter(|c| Kind::NewDraft.fits(c) && !c.evidence_only && suffixed(&c.name))
        .filter(|c| named.iter().all(|(_, agent)| *agent != c.agent_id))
        .filter(|c| steps(c).is_some_and(|s| named_steps.contains(&s)))
        .map(|c| (c.id, c.agent_id.clone()))
        .collect())
}

/// A candidate's or lesson's id as typed: `12` or `#12`.
pub fn id(text: &str) -> Option<i64> {
    text.strip_prefix('#').unwrap_or(text).parse().ok()
}

/// A lesson argument (clap's value parser): its id as `lessons` lists it, `12` or `#12`.
pub fn lesson(text: &str) -> Result<i64, String> {
    id(text).ok_or_else(|| "a lesson is named by its id, #N in `skilldeck lessons`".to_string())
}

/// A version argument (clap's value parser): its number as `versions NAME` lists it, `3` or
/// `v3`.
pub fn version(text: &str) -> Result<i64, String> {
    let number = text.strip_prefix('v').unwrap_or(text);
    number
        .parse()
        .map_err(|_| "give a version number, 3 or v3 (see `skilldeck versions NAME`)".into())
}
