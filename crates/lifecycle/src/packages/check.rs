//! `check`: evaluate an artifact's assertions against an output, record a trace, and feed the
//! outcome into the skill's score (a `skill_invocations` row with source `check`).

use anyhow::Result;
use serde::Serialize;

use super::assertions::{AssertionResult, AssertionVerdict, evaluate};
use super::db::load_artifacts;
use super::model::Artifact;
use super::render::choose_variant;
use super::traces::{NewTrace, record};
use crate::catalog::invocations::{self, NewInvocation};
use crate::catalog::{InvocationSource, skills};
use crate::model::Outcome;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub model: Option<String>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub skill_id: i64,
    pub skill: String,
    pub artifact: String,
    pub model_variant: Option<String>,
    pub trace_id: String,
    pub session_id: String,
    pub assertions_run: i64,
    pub assertions_passed: i64,
    /// Semantic assertions: stored, reported, not run (they need a model).
    pub assertions_not_run: i64,
    pub results: Vec<AssertionResult>,
    /// Success when every assertion that ran passed; `None` when none could run (no score change).
    pub outcome: Option<Outcome>,
}

pub fn check(
    ws: &mut Workspace,
    skill_id: i64,
    artifact_name: &str,
    output: &str,
    opts: &CheckOptions,
) -> Result<CheckReport> {
    let stored = load_artifacts(&ws.store, skill_id)?;
    let plain: Vec<Artifact> = stored.iter().map(|s| s.artifact.clone()).collect();
    let chosen = choose_variant(&plain, artifact_name, opts.model.as_deref())?;
    let index = plain.iter().position(|p| std::ptr::eq(p, chosen)).unwrap_or(0);
    let started_at = now_rfc3339();
    let results = evaluate(chosen.metadata.as_ref(), output);
    let count = |v| results.iter().filter(|r| r.verdict == v).count() as i64;
    let (passed, failed, not_run) = (
        count(AssertionVerdict::Passed),
        count(AssertionVerdict::Failed),
        count(AssertionVerdict::NotRun),
    );
    let run = passed + failed;
    let outcome =
        (run > 0).then_some(if failed == 0 { Outcome::Success } else { Outcome::Failure });
    let session_id = opts.session.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let (agent, skill_name) = skills::agent_and_name(ws.store.conn(), skill_id)?;
    let failures: Vec<String> = results
        .iter()
        .filter(|r| r.verdict == AssertionVerdict::Failed)
        .map(|r| format!("{} {}: {}", r.kind, r.check, r.detail))
        .collect();
    let trace = NewTrace {
        session_id: session_id.clone(),
        skill_id,
        artifact_id: stored[index].id.clone(),
        artifact_kind: chosen.kind.as_str().into(),
        raw_output: Some(output.to_string()),
        error: (!failures.is_empty()).then(|| failures.join("; ")),
        started_at,
        completed_at: Some(now_rfc3339()),
        duration_ms: Some(0),
        model_id: opts.model.clone(),
        assertions_run: run,
        assertions_passed: passed,
        assertion_results: Some(serde_json::to_string(&results)?),
        ..NewTrace::default()
    };
    let tx = ws.store.conn_mut().transaction()?;
    let trace_id = record(&tx, &trace)?;
    if let Some(outcome) = outcome {
        let note =
            format!("check {:?}: {passed}/{run} assertions passed (trace {trace_id})", chosen.name);
        invocations::insert(
            &tx,
            &NewInvocation {
                agent: &agent,
                skill_name: &skill_name,
                skill_id: Some(skill_id),
                outcome,
                source: InvocationSource::Check,
                session_key: Some(&session_id),
                turn_id: None,
                call_id: None,
                note: Some(&note),
                at: &now_rfc3339(),
            },
        )?;
    }
    tx.commit()?;
    Ok(CheckReport {
        skill_id,
        skill: skill_name,
        artifact: chosen.name.clone(),
        model_variant: chosen.model_variant.clone(),
        trace_id,
        session_id,
        assertions_run: run,
        assertions_passed: passed,
        assertions_not_run: not_run,
        results,
        outcome,
    })
}
