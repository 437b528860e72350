//! Team detection: the pooled turns of every member stored, as ingest stores a transcript's, in
//! a private in-memory database, and local detection run over them (`detect::run_limited`, the
//! entry point a pass runs, with this member's `[detect]` settings). What it proposes there, with
//! its draft, is what the team is proposed; what it keeps as evidence stays evidence. So a team
//! candidate follows the same rules as a local one; only its sessions come from everyone.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use super::pg::Client;
use anyhow::{Context, Result};
use serde::Serialize;

use super::items::{CallItem, Skipped};
use super::server;
use super::shared::{self, NewCandidate};
use crate::detect;
use crate::detect::mine::similarity;
use crate::draft::{CandidateStatus, CandidateView, Recorder, list_with_evidence, skill};
use crate::ingest::{PooledCall, PooledTurn, PooledWriter};
use crate::store::Store;
use crate::text::hex::sha256_hex;
use crate::workflow::WorkflowEvidence;
use crate::workspace::Workspace;

/// Similarity of consensus steps at which a workflow is an earlier team candidate, as local
/// detection merges two proposed workflows.
const SAME_CANDIDATE: f64 = 0.7;

/// What the pooled turns' rows name as the file they were read from.
const POOLED: &str = "team-pooled-turns";

/// What one team detection found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TeamDetectReport {
    pub turns: u64,
    /// What local detection recorded and keeps as evidence only (never drafted, never proposed).
    pub evidence_only: usize,
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

/// A pooled call as ingest stores one. The tool's name and input shape do not leave a member's
/// machine: the call is named by its step keys alone, so tool sequences (which hash names and
/// shapes) are not mined from pooled turns.
fn pooled_call(c: CallItem) -> PooledCall {
    PooledCall {
        name: String::new(),
        input_shape: String::new(),
        step: c.step,
        detail: c.detail,
        is_error: c.error,
    }
}

/// Mines the team's pooled turns with local detection and records what it proposes.
pub fn run(client: &mut Client, team: &str, ws: &Workspace) -> Result<TeamDetectReport> {
    let started = Instant::now();
    let mut skipped = Vec::new();
    let mut scratch = scratch_workspace(ws)?;
    // Scratch turn id -> server `team_turns` id: the server counts a candidate's support from
    // the rows its sightings name.
    let mut server_ids: HashMap<i64, i64> = HashMap::new();
    let tx = scratch.store.conn_mut().transaction()?;
    let mut writer = PooledWriter::new(&tx, team, POOLED);
    let turns = server::for_each_turn(client, team, &mut skipped, |p| {
        let session_key = format!("{}/{}", p.member, p.turn.session);
        let id = writer.write(PooledTurn {
            session_key: &session_key,
            project: p.turn.project.as_deref(),
            request: &p.turn.request,
            ended_at: p.turn.at.as_deref(),
            success: p.turn.success,
            asked: p.turn.asked,
            calls: p.turn.calls.into_iter().map(pooled_call).collect(),
        })?;
        server_ids.insert(id, p.id);
        Ok(())
    })?;
    drop(writer);
    tx.commit().context("storing the pooled turns")?;
    // The scratch database records the candidates; nothing is staged from it.
    let mut recorder = Recorder::new(scratch.paths.staging_dir.clone());
    detect::run_limited(&mut scratch, None, &mut recorder)?;
    let (proposed, evidence_only) = proposals(&scratch.store)?;
    let mut report = TeamDetectReport { turns, evidence_only, ..Default::default() };
    let mut names: HashSet<String> = HashSet::new();
    let known = shared::candidate_steps(client, team, &mut skipped)?;
    for (local, mut ev) in proposed {
        for s in &mut ev.sightings {
            s.turn_id = server_ids.get(&s.turn_id).copied().unwrap_or(s.turn_id);
        }
        let fingerprint = fingerprint(&known, &ev);
        let mut name = local.name.clone();
        let mut n = 2;
        while names.contains(&name) || shared::name_taken(client, team, &name, &fingerprint)? {
            name = format!("{}-{n}", local.name);
            n += 1;
        }
        names.insert(name.clone());
        // Local drafting's text, unless the name the team's server has room for differs.
        let skill_md = match local.skill_md.filter(|_| name == local.name) {
            Some(text) => text,
            None => skill::skill_md(&ev, &name),
        };
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

/// A private workspace for detection: this member's settings, an empty in-memory database.
fn scratch_workspace(ws: &Workspace) -> Result<Workspace> {
    Ok(Workspace {
        config: ws.config.clone(),
        paths: ws.paths.clone(),
        store: Store::open_in_memory()?,
        codex_skills_dirs: Vec::new(),
        codex_live_dir: None,
    })
}

/// What local detection proposes in `store` (open candidates with their mined workflow, in the
/// order it recorded them) and how many rows it keeps as evidence only.
fn proposals(store: &Store) -> Result<(Vec<(CandidateView, WorkflowEvidence)>, usize)> {
    let all = list_with_evidence(store, None, true)?;
    let evidence_only = all.iter().filter(|c| c.evidence_only).count();
    let proposed = all
        .into_iter()
        .filter(|c| !c.evidence_only && c.status == CandidateStatus::Candidate)
        .filter_map(|mut c| c.workflow.take().map(|ev| (c, ev)))
        .collect();
    Ok((proposed, evidence_only))
}

/// A candidate's identity on the server: the SHA-256 of its consensus steps when first
/// proposed, or the earlier candidate's whose steps it is within [`SAME_CANDIDATE`] of (more
/// evidence moved its consensus).
fn fingerprint(known: &[(String, Vec<String>)], ev: &WorkflowEvidence) -> String {
    let keys: Vec<String> = ev.steps.iter().map(|s| s.key.clone()).collect();
    known
        .iter()
        .map(|(f, k)| (similarity(&keys, k), f))
        .filter(|(s, _)| *s >= SAME_CANDIDATE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or_else(|| sha256_hex(keys.join("\n").as_bytes()), |(_, f)| f.clone())
}
