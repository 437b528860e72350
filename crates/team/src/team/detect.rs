//! Team detection: the pooled turns of every member replayed through local discovery's own
//! workflow mining (`detect::workflows::observe` and `evidence`, on a private in-memory store)
//! and drafted by local drafting (`draft::naming::base_name`, `draft::skill::skill_md`). So a
//! team candidate follows the same rules as a local one; only its sessions come from everyone.

use std::collections::{BTreeSet, HashSet};
use std::time::Instant;

use super::pg::Client;
use anyhow::Result;
use serde::Serialize;

use super::items::{CallItem, Skipped};
use super::server;
use super::shared::{self, NewCandidate};
use crate::config::DetectConfig;
use crate::detect::memo::Memo;
use crate::detect::mine;
use crate::detect::mine::{RawCall, similarity};
use crate::detect::workflows::{self, Judge, MinedTurn};
use crate::draft::Recorder;
use crate::draft::naming;
use crate::draft::skill;
use crate::store::{Store, now_rfc3339};
use crate::text::hex::sha256_hex;
use crate::workflow::WorkflowEvidence;

/// Similarity of consensus steps at which a workflow is an earlier team candidate, as local
/// detection merges two proposed workflows.
const SAME_CANDIDATE: f64 = 0.7;

/// What one team detection found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TeamDetectReport {
    pub turns: u64,
    pub workflows: usize,
    /// Candidates recorded or refreshed, by name.
    pub candidates: Vec<ProposedCandidate>,
    /// Server rows that could not be read, each named; the rest were mined.
    pub skipped: Vec<Skipped>,
    pub elapsed_ms: u128,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProposedCandidate {
    pub id: i64,
    pub name: String,
    pub support: usize,
    pub members: usize,
    pub summary: String,
}

/// The member a pooled session key belongs to.
fn member_of(session_key: &str) -> &str {
    session_key.split_once('/').map_or(session_key, |(m, _)| m)
}

fn raw_calls(calls: Vec<CallItem>) -> Vec<RawCall> {
    calls
        .into_iter()
        .map(|c| RawCall { step: c.step, detail: c.detail, is_error: c.error })
        .collect()
}

/// Mines the team's pooled turns and records what the local rules would propose.
pub fn run(client: &mut Client, team: &str, cfg: &DetectConfig) -> Result<TeamDetectReport> {
    let started = Instant::now();
    let now = now_rfc3339();
    let mut scratch = Store::open_in_memory()?;
    let tx = scratch.conn_mut().transaction()?;
    let mut touched: BTreeSet<i64> = BTreeSet::new();
    let mut skipped = Vec::new();
    let mut memo = Memo::default();
    // The scratch store records no candidate: these only read its (empty) table.
    let cands = Recorder::new(std::path::PathBuf::new());
    let turns = server::for_each_turn(client, team, &mut skipped, |p| {
        let session_key = format!("{}/{}", p.member, p.turn.session);
        let project = p.turn.project.clone();
        let mined = MinedTurn {
            id: p.id,
            agent_id: team,
            session_key: &session_key,
            project: project.as_deref(),
            request: &p.turn.request,
            asks: std::slice::from_ref(&p.turn.request),
            turns: std::slice::from_ref(&p.id),
            at: p.turn.at.as_deref(),
            success: p.turn.success,
        };
        let calls = raw_calls(p.turn.calls);
        let seq = mine::turn_sequence(&calls);
        workflows::count_steps(&mut memo, team, &seq);
        touched.extend(workflows::observe(
            &tx,
            &mut memo,
            &cands,
            &mined,
            seq,
            cfg.workflow_similarity,
            &now,
        )?);
        Ok(())
    })?;
    let judge = Judge {
        min_sessions: cfg.min_sessions,
        min_iterations: cfg.min_iterations,
        min_specific_steps: cfg.min_specific_steps,
        min_evidence: cfg.min_evidence,
        propose: cfg.specific_only,
    };
    workflows::write_counts(&tx, &mut memo)?;
    let mut proposed: Vec<WorkflowEvidence> = Vec::new();
    for id in &touched {
        if let Some((ev, evidence_only)) = workflows::evidence(&tx, &cands, team, *id, &judge)?
            && !evidence_only
        {
            proposed.push(ev);
        }
    }
    drop(tx);
    let mut report = TeamDetectReport { turns, workflows: touched.len(), ..Default::default() };
    let mut names: HashSet<String> = HashSet::new();
    let known = shared::candidate_steps(client, team, &mut skipped)?;
    for ev in proposed {
        let keys: Vec<String> = ev.steps.iter().map(|s| s.key.clone()).collect();
        // The candidate it was before more evidence moved its consensus, if any.
        let earlier = known
            .iter()
            .map(|(f, k)| (similarity(&keys, k), f))
            .filter(|(s, _)| *s >= SAME_CANDIDATE)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, f)| f.clone());
        let fingerprint = earlier.unwrap_or_else(|| sha256_hex(keys.join("\n").as_bytes()));
        let base = naming::base_name(&ev);
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) || shared::name_taken(client, team, &name, &fingerprint)? {
            name = format!("{base}-{n}");
            n += 1;
        }
        names.insert(name.clone());
        let skill_md = skill::skill_md(&ev, &name);
        let members: HashSet<&str> =
            ev.sightings.iter().map(|s| member_of(&s.session_key)).collect();
        let evidence = serde_json::to_string(&ev)?;
        let id = shared::record_candidate(
            client,
            team,
            &NewCandidate {
                fingerprint: &fingerprint,
                name: &name,
                skill_md: &skill_md,
                evidence: &evidence,
                support: ev.reason.support as i32,
                members: members.len() as i32,
                score: ev.reason.score,
            },
        )?;
        report.candidates.push(ProposedCandidate {
            id,
            name,
            support: ev.reason.support,
            members: members.len(),
            summary: ev.reason.summary.clone(),
        });
    }
    report.skipped = skipped;
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}
