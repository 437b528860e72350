//! `skilldeck learn [SESSION|--last]`: drafts a skill from one session a person points at, with
//! support 1. The session's turn with the most specific steps is the work to learn; detection
//! has placed it in a workflow (the caller runs a detection pass first), whose evidence is drafted
//! and checked as any workflow candidate's (`draft::candidates::record`, `draft::finish`), and
//! staged for review. A workflow already proposed is not drafted twice: its candidate is named.

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::detect::workflows::{self, Judge};
use crate::draft::{Recorder, candidates, finish};
use crate::ingest;
use crate::step;
use crate::store::now_rfc3339;
use crate::text::safe;
use crate::workflow::{EvidenceKind, Recorded};
use crate::workspace::Workspace;

/// Which session to learn from.
pub enum Pick<'a> {
    /// The session whose newest turn is the newest.
    Last,
    /// A session key, or the start of one.
    Session(&'a str),
}

#[derive(Debug, Serialize)]
pub struct Learned {
    pub candidate_id: i64,
    pub name: String,
    pub session: String,
    pub turn_id: i64,
    /// Drafted now (`false`: the workflow was proposed already, as this candidate).
    pub drafted: bool,
    pub staged_path: Option<String>,
}

/// Drafts a skill from the session `pick` names (see the module notes).
pub fn learn(ws: &Workspace, pick: Pick) -> Result<Learned> {
    let conn = ws.store.conn();
    let agent = ws.config.agent_id.clone();
    let runs = ingest::turn_runs(conn, &agent)?;
    let session = match pick {
        Pick::Last => runs
            .iter()
            .max_by(|a, b| (&a.started_at, a.turn_id).cmp(&(&b.started_at, b.turn_id)))
            .map(|r| r.session_key.clone())
            .context("no session with tool calls has been ingested yet")?,
        Pick::Session(key) => {
            let mut keys: Vec<&str> = runs
                .iter()
                .map(|r| r.session_key.as_str())
                .filter(|k| k.starts_with(key))
                .collect();
            keys.dedup();
            match keys.as_slice() {
                [one] => one.to_string(),
                [] => bail!("no ingested session {key:?} with tool calls (see `skilldeck ingest`)"),
                many => bail!("{key:?} names {} sessions: give more of the key", many.len()),
            }
        }
    };
    let specific = |steps: &[String]| {
        steps.iter().filter(|k| !step::is_generic(k) && !step::is_transparent(k)).count()
    };
    let turn = runs
        .iter()
        .filter(|r| r.session_key == session)
        .max_by_key(|r| (specific(&r.steps), r.turn_id))
        .context("the session has no turn with tool calls")?;
    let shown = safe::inline(&session).into_owned();
    let wid = workflows::holding(conn, turn.turn_id, &turn.session_key)?.with_context(|| {
        format!("session {shown}: its work has too few steps to draft a skill from")
    })?;
    if let Some(id) = workflows::candidate_of(conn, wid)? {
        let c = candidates::get_candidate(conn, id)?;
        return Ok(Learned {
            candidate_id: id,
            name: c.name,
            session,
            turn_id: turn.turn_id,
            drafted: false,
            staged_path: c.staged_path,
        });
    }
    let cfg = &ws.config.detect;
    let judge = Judge {
        min_sessions: 1,
        min_iterations: cfg.min_iterations,
        min_specific_steps: cfg.min_specific_steps,
        min_evidence: 0,
        propose: true,
        facts: &Default::default(),
    };
    let cands = Recorder::new(ws.paths.staging_dir.clone());
    let (ev, evidence_only) = workflows::evidence(conn, &cands, &agent, wid, &judge)?
        .context("the workflow has no members")?;
    if evidence_only {
        bail!(
            "session {shown}: its work has fewer than {} specific steps, too few to draft a skill",
            cfg.min_specific_steps
        );
    }
    let (evidence, keys) = workflows::as_candidate(&agent, wid, ev, false, EvidenceKind::Learn);
    let tx = conn.unchecked_transaction()?;
    let (recorded, draft) =
        candidates::record(&tx, &ws.paths.staging_dir, &evidence, &now_rfc3339())?;
    let id = Recorded::id(recorded);
    workflows::set_candidate(&tx, wid, id, &keys)?;
    tx.commit()?;
    if let Some(draft) = &draft {
        draft.write()?;
        finish::after_detection(ws, [(id, draft)])?;
    }
    let c = candidates::get_candidate(conn, id)?;
    Ok(Learned {
        candidate_id: id,
        name: c.name,
        session,
        turn_id: turn.turn_id,
        drafted: true,
        staged_path: c.staged_path,
    })
}
