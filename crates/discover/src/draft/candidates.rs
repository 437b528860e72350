//! Owns the tables `skill_candidates` and `candidate_sessions`: recording detection evidence,
//! listing candidates, and the status changes review decisions make (`draft::review`). Statuses
//! and sources are typed.
//!
//! The sessions of a sequence or streak row grow with history: they are kept one row each in
//! `candidate_sessions` (added to, never rewritten), so recording a sighting costs the same in
//! the thousandth session as in the third. A workflow row's sessions (those of its recent
//! members, replaced on each record) stay in the row's `session_keys` JSON, as do the keys rows
//! written before `candidate_sessions` existed; a candidate's sessions are both, JSON first.
//!
//! Over 700 lines: the owner of two tables; by the one-owner rule every write of a candidate row
//! is here.

use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use super::folder;
use super::render::{self, DraftDoc};
use crate::catalog::skills;
use crate::model::ToolStep;
use crate::store::Store;
use crate::text::injection::Flag;
use crate::workflow::{
    self, CandidateEvidence as Evidence, EvidenceKind, Reason, Recorded, WorkflowEvidence,
};

crate::text_enum! {
    /// Where a candidate stands in review.
    pub enum CandidateStatus {
        /// Open: waiting for a person (or auto-promotion).
        Candidate = "candidate",
        /// Went live as a skill, or approved as a new version of one.
        Promoted = "promoted",
        /// Dismissed: detection keeps counting its evidence but never proposes it again.
        Dismissed = "dismissed",
    }
}

crate::text_enum! {
    /// What kind of evidence a candidate came from.
    pub enum CandidateSource {
        /// A tool sequence recurring across sessions.
        Sequence = "sequence",
        /// A streak of successful turns with the same task signature.
        Signature = "signature",
        /// A workflow mined across sessions by its specific steps (`detect::workflows`).
        Workflow = "workflow",
        /// Two live skills that overlap strongly, merged into one (`draft::merge`).
        Merge = "merge",
        /// A live skill's description rewritten with the words of the requests it missed
        /// (`draft::fixes`).
        Trigger = "trigger",
        /// An archived or retired skill whose workflow recurs, proposed for restore
        /// (`draft::fixes`).
        Restore = "restore",
        /// Drafted from one session a person pointed at (`skilldeck learn`).
        Learn = "learn",
    }
}

impl CandidateSource {
    /// The source of a candidate recorded from detection's evidence of `kind`.
    pub fn of(kind: EvidenceKind) -> CandidateSource {
        match kind {
            EvidenceKind::Sequence => CandidateSource::Sequence,
            EvidenceKind::Signature => CandidateSource::Signature,
            EvidenceKind::Workflow => CandidateSource::Workflow,
            EvidenceKind::Learn => CandidateSource::Learn,
        }
    }
}

crate::text_enum! {
    /// Who wrote a candidate's draft.
    pub enum DraftedBy {
        /// The mechanical renderer (`draft::skill`).
        Mechanical = "mechanical",
        /// The configured `draft.command`, its text checked like a mechanical one.
        Command = "draft.command",
    }
}

/// A candidate as `candidates --json` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct CandidateView {
    pub id: i64,
    pub name: String,
    pub agent_id: String,
    pub status: CandidateStatus,
    pub occurrences: i64,
    pub source: CandidateSource,
    pub signature: Option<String>,
    pub hash: String,
    pub description: Option<String>,
    pub examples: Vec<String>,
    pub tool_sequence: serde_json::Value,
    pub session_keys: Vec<String>,
    pub staged_path: Option<String>,
    pub target_skill_id: Option<i64>,
    /// Name of the skill a proposed version would change.
    pub target_skill_name: Option<String>,
    pub created_at: String,
    pub promoted_at: Option<String>,
    pub dismissed_at: Option<String>,
    /// The proposed SKILL.md text.
    pub skill_md: Option<String>,
    /// Recorded as evidence only (too few specific steps): never drafted nor queued.
    pub evidence_only: bool,
    /// Why it is proposed (workflow candidates).
    pub reason: Option<Reason>,
    /// The mined workflow behind it (workflow candidates).
    pub workflow: Option<WorkflowEvidence>,
    /// Why its evidence looks aimed at the agent (empty when it does not).
    pub flags: Vec<Flag>,
    /// Who wrote the draft: `mechanical` or `draft.command`.
    pub drafted_by: DraftedBy,
    /// Why `draft.command`'s text was not kept, when it was tried and failed.
    pub draft_note: Option<String>,
}

const COLUMNS: &str = "id, name, agent_id, status, occurrences, source, signature, hash, \
    description, examples, tool_sequence, session_keys, staged_path, target_skill_id, created_at, \
    promoted_at, dismissed_at, skill_md, evidence_only, reason, workflow, flags, drafted_by, \
    draft_note";

fn json_strings(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

fn view(row: &Row) -> rusqlite::Result<CandidateView> {
    let examples: String = row.get(9)?;
    let sequence: String = row.get(10)?;
    let sessions: String = row.get(11)?;
    Ok(CandidateView {
        id: row.get(0)?,
        name: row.get(1)?,
        agent_id: row.get(2)?,
        status: row.get(3)?,
        occurrences: row.get(4)?,
        source: row.get(5)?,
        signature: row.get(6)?,
        hash: row.get(7)?,
        description: row.get(8)?,
        examples: json_strings(&examples),
        tool_sequence: serde_json::from_str(&sequence).unwrap_or(serde_json::Value::Null),
        session_keys: json_strings(&sessions),
        staged_path: row.get(12)?,
        target_skill_id: row.get(13)?,
        created_at: row.get(14)?,
        promoted_at: row.get(15)?,
        dismissed_at: row.get(16)?,
        skill_md: row.get(17)?,
        target_skill_name: None,
        evidence_only: row.get(18)?,
        reason: row.get::<_, Option<String>>(19)?.and_then(|t| serde_json::from_str(&t).ok()),
        workflow: row.get::<_, Option<String>>(20)?.and_then(|t| serde_json::from_str(&t).ok()),
        flags: serde_json::from_str(&row.get::<_, String>(21)?).unwrap_or_default(),
        drafted_by: row.get(22)?,
        draft_note: row.get(23)?,
    })
}

/// Fills the sessions kept in `candidate_sessions` and the name of the skill a proposed version
/// would change (read from the catalog).
fn with_target_name(conn: &Connection, mut c: CandidateView) -> Result<CandidateView> {
    let mut stmt = conn.prepare_cached(
        "SELECT session_key FROM candidate_sessions WHERE candidate_id = ?1 ORDER BY rowid",
    )?;
    let mut known: std::collections::HashSet<String> = c.session_keys.iter().cloned().collect();
    for key in stmt.query_map([c.id], |r| r.get::<_, String>(0))? {
        let key = key?;
        if known.insert(key.clone()) {
            c.session_keys.push(key);
        }
    }
    if let Some(id) = c.target_skill_id {
        c.target_skill_name = skills::by_id(conn, id).ok().map(|s| s.header.name);
    }
    Ok(c)
}

/// Adds sessions to a sequence or streak row (a session it already has is left alone).
/// Adds `keys` to candidate `id`'s sessions, in order, in one statement (a streak's record
/// lists every session it has seen again each time it grows).
fn add_sessions(conn: &Connection, id: i64, keys: &[String]) -> Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT OR IGNORE INTO candidate_sessions (candidate_id, session_key)
         SELECT ?1, value FROM json_each(?2)",
    )?
    .execute(params![id, serde_json::to_string(keys)?])?;
    Ok(())
}

/// What a sequence row has counted so far: its distinct sessions and example requests.
pub struct Tally {
    pub occurrences: i64,
    pub examples: Vec<String>,
}

/// The counts of the candidate recorded for sequence `hash` of `agent`, if there is one.
pub fn sequence_tally(conn: &Connection, agent: &str, hash: &str) -> Result<Option<Tally>> {
    Ok(conn
        .prepare_cached(
            "SELECT occurrences, examples FROM skill_candidates WHERE agent_id = ?1 AND hash = ?2",
        )?
        .query_row(params![agent, hash], |r| {
            Ok(Tally { occurrences: r.get(0)?, examples: json_strings(&r.get::<_, String>(1)?) })
        })
        .optional()?)
}

/// Candidate `id`'s name and draft text, when it has a draft.
pub fn draft_text(conn: &Connection, id: i64) -> Result<Option<(String, String)>> {
    Ok(conn
        .prepare_cached("SELECT name, skill_md FROM skill_candidates WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))
        .optional()?
        .and_then(|(name, text)| text.map(|t| (name, t))))
}

/// Every proposed candidate (any status) of `agent`, or of all agents; oldest first. Rows
/// recorded as evidence only are left out (see `list_with_evidence`).
pub fn list_candidates(store: &Store, agent: Option<&str>) -> Result<Vec<CandidateView>> {
    list_with_evidence(store, agent, false)
}

/// The id of the open new-skill candidate named `name` (the console's and `candidates`' name).
pub fn open_candidate_named(store: &Store, name: &str) -> Result<i64> {
    let all = list_candidates(store, None)?;
    let open: Vec<&CandidateView> = all
        .iter()
        .filter(|c| c.name == name && c.status == CandidateStatus::Candidate)
        .filter(|c| c.target_skill_id.is_none())
        .collect();
    match open.as_slice() {
        [one] => Ok(one.id),
        [] => anyhow::bail!(
            "no open new-skill candidate named {name:?} (see `skilldeck candidates`; a proposed \
             version is approved with `skilldeck approve ID`)"
        ),
        many => {
            let ids: Vec<String> = many.iter().map(|c| c.id.to_string()).collect();
            anyhow::bail!("{} open candidates are named {name:?}: {}", many.len(), ids.join(", "))
        }
    }
}

/// Every candidate of `agent` (or all agents), with the evidence-only rows when `evidence`.
pub fn list_with_evidence(
    store: &Store,
    agent: Option<&str>,
    evidence: bool,
) -> Result<Vec<CandidateView>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM skill_candidates WHERE (?1 IS NULL OR agent_id = ?1)
         AND (?2 OR evidence_only = 0) ORDER BY id"
    );
    let mut stmt = store.conn().prepare(&sql)?;
    let rows = stmt.query_map(params![agent, evidence], view)?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>().context("reading skill_candidates")?;
    rows.into_iter().map(|c| with_target_name(store.conn(), c)).collect()
}

pub fn get_candidate(conn: &Connection, id: i64) -> Result<CandidateView> {
    let sql = format!("SELECT {COLUMNS} FROM skill_candidates WHERE id = ?1");
    let c =
        conn.prepare_cached(&sql)?.query_row([id], view).optional()?.with_context(|| {
            format!("no candidate with id {id} (see `skilldeck candidates --all`)")
        })?;
    with_target_name(conn, c)
}

/// Where candidate `id`'s draft is staged, if it was drafted.
pub fn staged_path(conn: &Connection, id: i64) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT staged_path FROM skill_candidates WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .flatten())
}

/// Candidates that pointed at mined workflow `from` point at `into` (the workflow absorbed it, or
/// the task it held moved there).
/// The reasons of the agent's proposed (open or promoted) workflow candidates other than those of
/// workflow `except`: what a smaller workflow may be a piece of.
pub fn proposed_workflow_reasons(
    conn: &Connection,
    agent: &str,
    except: i64,
) -> Result<Vec<(i64, CandidateStatus, workflow::Reason)>> {
    // The source is formatted, not bound, so the text still matches the partial index
    // `skill_candidates_proposed_workflows`.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, status, reason FROM skill_candidates
         WHERE agent_id = ?1 AND source = '{}'
           AND (evidence_only = 0 OR json_extract(reason, '$.driven') IS NOT NULL)
           AND status != ?3 AND reason IS NOT NULL
           AND (workflow_id IS NULL OR workflow_id != ?2)",
        CandidateSource::Workflow
    ))?;
    let rows = stmt.query_map(params![agent, except, CandidateStatus::Dismissed], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, CandidateStatus>(1)?, r.get::<_, String>(2)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, status, text) = row?;
        if let Ok(reason) = serde_json::from_str(&text) {
            out.push((id, status, reason));
        }
    }
    Ok(out)
}

pub fn move_workflow_links(conn: &Connection, from: i64, into: i64) -> Result<()> {
    conn.prepare_cached("UPDATE skill_candidates SET workflow_id = ?2 WHERE workflow_id = ?1")?
        .execute(params![from, into])?;
    Ok(())
}

/// Whether candidate `id` went live with other steps than `steps` (its tool sequence as JSON).
pub fn promoted_otherwise(conn: &Connection, id: i64, steps: &[ToolStep]) -> Result<bool> {
    let row: Option<(CandidateStatus, String)> = conn
        .prepare_cached("SELECT status, tool_sequence FROM skill_candidates WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((status, sequence)) = row else {
        bail!("no candidate with id {id} (see `skilldeck candidates --all`)")
    };
    if status != CandidateStatus::Promoted {
        return Ok(false);
    }
    let recorded = serde_json::from_str(&sequence).unwrap_or(serde_json::Value::Null);
    Ok(recorded != serde_json::to_value(steps)?)
}

/// Whether candidate `id` is proposed: recorded, not as evidence only (a missing row is not).
pub fn is_proposal(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT evidence_only = 0 FROM skill_candidates WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// The open, proposed candidates of `agent`'s sequences `hashes` that are no skill's new
/// version, in the order of `hashes`, each once.
pub fn open_sequences(conn: &Connection, agent: &str, hashes: &[String]) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM skill_candidates WHERE agent_id = ?1 AND hash = ?2 AND source = ?3
           AND status = ?4 AND evidence_only = 0 AND target_skill_id IS NULL",
    )?;
    let mut ids: Vec<i64> = Vec::new();
    for hash in hashes {
        let params = params![agent, hash, CandidateSource::Sequence, CandidateStatus::Candidate];
        for id in stmt.query_map(params, |r| r.get(0))? {
            let id = id?;
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// The open, proposed streak candidates whose last turn mined workflow `workflow` holds, that
/// are no skill's new version.
pub fn open_streaks(conn: &Connection, workflow: i64) -> Result<Vec<i64>> {
    let ids = conn
        .prepare_cached(
            "SELECT id FROM skill_candidates WHERE workflow_id = ?1 AND source = ?2
               AND status = ?3 AND evidence_only = 0 AND target_skill_id IS NULL",
        )?
        .query_map(
            params![workflow, CandidateSource::Signature, CandidateStatus::Candidate],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<_>>()?;
    Ok(ids)
}

/// Candidates `ids` become evidence only: a proposed workflow says the same work with its steps.
pub fn make_evidence(conn: &Connection, ids: &[i64]) -> Result<()> {
    let mut set =
        conn.prepare_cached("UPDATE skill_candidates SET evidence_only = 1 WHERE id = ?1")?;
    for id in ids {
        set.execute([id])?;
    }
    Ok(())
}

/// The mined workflow behind candidate `id`, when discovery recorded one.
pub fn workflow_of(conn: &Connection, id: i64) -> Result<Option<WorkflowEvidence>> {
    let text: Option<String> = conn
        .query_row("SELECT workflow FROM skill_candidates WHERE id = ?1", [id], |r| r.get(0))
        .optional()?
        .flatten();
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

/// Records why candidate `id`'s evidence looks aimed at the agent.
pub fn set_flags(conn: &Connection, id: i64, flags: &[Flag]) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET flags = ?2 WHERE id = ?1",
        params![id, serde_json::to_string(flags)?],
    )?;
    Ok(())
}

/// Records who wrote candidate `id`'s draft; with `text`, the draft (and its description) it
/// now holds; `note` says why `draft.command`'s text was not kept.
pub fn set_drafted(
    conn: &Connection,
    id: i64,
    drafted_by: DraftedBy,
    text: Option<(&str, &str)>,
    note: Option<&str>,
) -> Result<()> {
    match text {
        Some((skill_md, description)) => conn.execute(
            "UPDATE skill_candidates SET drafted_by = ?2, draft_note = ?3, skill_md = ?4,
             description = ?5 WHERE id = ?1",
            params![id, drafted_by, note, skill_md, description],
        )?,
        None => conn.execute(
            "UPDATE skill_candidates SET drafted_by = ?2, draft_note = ?3 WHERE id = ?1",
            params![id, drafted_by, note],
        )?,
    };
    Ok(())
}

/// A draft folder to write once the database transaction that describes it has committed, with
/// the evidence it was made from, which the checks after detection read (`finish`) instead of
/// the row.
pub struct StagedDraft {
    pub folder: std::path::PathBuf,
    pub skill_md: String,
    pub manifest: Option<String>,
    /// The mined workflow behind it (workflow candidates).
    pub workflow: Option<WorkflowEvidence>,
    /// The example requests stored with it.
    pub examples: Vec<String>,
}

impl StagedDraft {
    pub fn write(&self) -> Result<()> {
        folder::write_draft_unsynced(&self.folder, &self.skill_md, self.manifest.as_deref())
    }
}

struct Existing {
    id: i64,
    name: String,
    status: CandidateStatus,
    occurrences: i64,
    target_skill_id: Option<i64>,
}

/// Creates or updates the candidate for `ev`; when it is open, also returns the draft folder to
/// (re)write. The caller writes it after committing, once per candidate per run: rewriting a
/// folder on every sighting made file creation the main cost of detection.
pub fn record(
    conn: &Connection,
    staging_dir: &Path,
    ev: &Evidence,
    now: &str,
) -> Result<(Recorded, Option<StagedDraft>)> {
    let existing = conn
        .prepare_cached(
            "SELECT id, name, status, occurrences, target_skill_id FROM skill_candidates
             WHERE agent_id = ?1 AND hash = ?2",
        )?
        .query_row(params![ev.agent_id, ev.hash], |r| {
            Ok(Existing {
                id: r.get(0)?,
                name: r.get(1)?,
                status: r.get(2)?,
                occurrences: r.get(3)?,
                target_skill_id: r.get(4)?,
            })
        })
        .optional()?;
    let accumulate = ev.kind == EvidenceKind::Signature;
    let occurrences = match (&existing, accumulate) {
        (Some(e), true) => e.occurrences + ev.occurrences,
        _ => ev.occurrences,
    };
    // Sequence and streak rows add their sessions to `candidate_sessions`; a workflow row's
    // replace the JSON. `None` leaves the JSON as it is.
    let listed = ev.kind == EvidenceKind::Workflow;
    let (id, recorded, draft) = write(conn, staging_dir, ev, now, existing, occurrences, listed)?;
    if !listed {
        add_sessions(conn, id, &ev.session_keys)?;
    }
    Ok((recorded, draft))
}

fn write(
    conn: &Connection,
    staging_dir: &Path,
    ev: &Evidence,
    now: &str,
    existing: Option<Existing>,
    occurrences: i64,
    listed: bool,
) -> Result<(i64, Recorded, Option<StagedDraft>)> {
    let accumulate = ev.kind == EvidenceKind::Signature;
    let name = match &existing {
        Some(e) => e.name.clone(),
        None => unique_name(conn, ev)?,
    };
    let sequence_json = serde_json::to_string(&ev.steps)?;
    let keys_json = if listed { Some(serde_json::to_string(&ev.session_keys)?) } else { None };
    let examples_json = serde_json::to_string(&ev.examples)?;
    let reason_json = ev.workflow.as_ref().map(|w| serde_json::to_string(&w.reason)).transpose()?;
    let workflow_json = ev.workflow.as_ref().map(serde_json::to_string).transpose()?;
    // A reviewed candidate, or one lifecycle turned into a proposed version of a skill, keeps its
    // text: only the evidence counts move.
    if let Some(e) = &existing
        && (e.status != CandidateStatus::Candidate || e.target_skill_id.is_some())
    {
        let mut stmt = conn.prepare_cached(
            "UPDATE skill_candidates SET occurrences = ?2,
             session_keys = coalesce(?3, session_keys) WHERE id = ?1",
        )?;
        stmt.execute(params![e.id, occurrences, keys_json])?;
        return Ok((e.id, Recorded::Counted(e.id), None));
    }
    // Evidence only: the row keeps what was seen, with no draft and no place in the queue.
    if ev.evidence_only {
        let id = match &existing {
            Some(e) => {
                let mut stmt = conn.prepare_cached(
                    "UPDATE skill_candidates SET occurrences = ?2,
                     session_keys = coalesce(?3, session_keys), examples = ?4, tool_sequence = ?5,
                     reason = ?6, workflow = ?7, evidence_only = 1,
                     workflow_id = coalesce(?8, workflow_id) WHERE id = ?1",
                )?;
                stmt.execute(params![
                    e.id,
                    occurrences,
                    keys_json,
                    examples_json,
                    sequence_json,
                    reason_json,
                    workflow_json,
                    ev.workflow_id
                ])?;
                e.id
            }
            None => {
                let mut stmt = conn.prepare_cached(
                    "INSERT INTO skill_candidates (agent_id, hash, name, tool_sequence, session_keys,
                     occurrences, status, created_at, source, signature, examples, evidence_only,
                     reason, workflow, workflow_id)
                     VALUES (?1, ?2, ?3, ?4, coalesce(?5, '[]'), ?6, ?14, ?7, ?8, ?9, ?10, 1, ?11,
                             ?12, ?13)",
                )?;
                stmt.execute(params![
                    ev.agent_id,
                    ev.hash,
                    name,
                    sequence_json,
                    keys_json,
                    occurrences,
                    now,
                    CandidateSource::of(ev.kind),
                    ev.signature,
                    examples_json,
                    reason_json,
                    workflow_json,
                    ev.workflow_id,
                    CandidateStatus::Candidate
                ])?;
                conn.last_insert_rowid()
            }
        };
        return Ok((id, Recorded::Evidence(id), None));
    }
    // The draft shows this streak's successes; a sequence shows its distinct sessions.
    let doc = DraftDoc {
        name: &name,
        source: CandidateSource::of(ev.kind),
        signature: ev.signature.as_deref(),
        evidence_count: if accumulate { ev.occurrences } else { occurrences },
        examples: &ev.examples,
        steps: &ev.steps,
        workflow: ev.workflow.as_ref(),
    };
    let skill_md = render::skill_md(&doc);
    let description = render::description(&doc);
    let folder = staging_dir.join(&name);
    let manifest = ev
        .signature
        .as_deref()
        .filter(|_| accumulate)
        .map(|sig| render::manifest_json(&name, sig, ev.occurrences, now));
    let staged = folder.to_string_lossy().into_owned();
    let draft = StagedDraft {
        folder,
        skill_md,
        manifest,
        workflow: ev.workflow.clone(),
        examples: ev.examples.clone(),
    };
    let skill_md = &draft.skill_md;
    match existing {
        Some(e) => {
            let mut stmt = conn.prepare_cached(
                "UPDATE skill_candidates SET occurrences = ?2,
                 session_keys = coalesce(?3, session_keys), examples = ?4, tool_sequence = ?5,
                 skill_md = ?6, description = ?7, staged_path = ?8, reason = ?9, workflow = ?10,
                 evidence_only = 0, workflow_id = coalesce(?11, workflow_id)
                 WHERE id = ?1",
            )?;
            stmt.execute(params![
                e.id,
                occurrences,
                keys_json,
                examples_json,
                sequence_json,
                skill_md,
                description,
                staged,
                reason_json,
                workflow_json,
                ev.workflow_id
            ])?;
            Ok((e.id, Recorded::Redrafted(e.id), Some(draft)))
        }
        None => {
            let mut stmt = conn.prepare_cached(
                "INSERT INTO skill_candidates (agent_id, hash, name, description, tool_sequence,
                 session_keys, occurrences, status, created_at, source, signature, examples,
                 skill_md, staged_path, reason, workflow, workflow_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6, '[]'), ?7, ?14, ?8, ?9, ?10, ?11, ?12,
                         ?13, ?15, ?16, ?17)",
            )?;
            stmt.execute(params![
                ev.agent_id,
                ev.hash,
                name,
                description,
                sequence_json,
                keys_json,
                occurrences,
                now,
                CandidateSource::of(ev.kind),
                ev.signature,
                examples_json,
                skill_md,
                staged,
                CandidateStatus::Candidate,
                reason_json,
                workflow_json,
                ev.workflow_id
            ])?;
            let id = conn.last_insert_rowid();
            Ok((id, Recorded::Created(id), Some(draft)))
        }
    }
}

/// The mechanical name, with a hash suffix when another candidate (of any agent: staging and
/// live folders are shared) already holds it.
fn unique_name(conn: &Connection, ev: &Evidence) -> Result<String> {
    // A streak keeps its `auto-<signature>` name whatever its draft shows.
    let base = match &ev.workflow {
        // A workflow, mined or learnt from one session, is named by its requests and steps.
        Some(w) if matches!(ev.kind, EvidenceKind::Workflow | EvidenceKind::Learn) => {
            render::workflow_name(w)
        }
        _ => render::base_name(
            CandidateSource::of(ev.kind),
            ev.signature.as_deref(),
            &ev.steps,
            &ev.hash,
        ),
    };
    let taken: bool = conn
        .prepare_cached("SELECT EXISTS(SELECT 1 FROM skill_candidates WHERE name = ?1)")?
        .query_row([&base], |r| r.get(0))?;
    Ok(if taken {
        render::disambiguated(&base, &format!("{}/{}", ev.agent_id, ev.hash))
    } else {
        base
    })
}

/// The step keys of the workflow a candidate was drafted from, when discovery recorded one.
pub fn workflow_steps(conn: &Connection, candidate_id: i64) -> Result<Option<Vec<String>>> {
    let json: Option<String> = conn
        .query_row("SELECT workflow FROM skill_candidates WHERE id = ?1", [candidate_id], |r| {
            r.get(0)
        })
        .optional()?
        .flatten();
    let Some(json) = json else { return Ok(None) };
    let evidence: workflow::WorkflowEvidence = match serde_json::from_str(&json) {
        Ok(e) => e,
        Err(_) => return Ok(None),
    };
    Ok(Some(evidence.steps.into_iter().map(|s| s.key).collect()))
}

/// Open candidates that do not propose a version yet: (id, agent, tool sequence JSON).
pub fn open_unlinked(conn: &Connection) -> Result<Vec<(i64, String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, tool_sequence FROM skill_candidates
         WHERE status = ?1 AND target_skill_id IS NULL",
    )?;
    let rows =
        stmt.query_map([CandidateStatus::Candidate], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The candidate now proposes a new version of `skill_id`.
pub fn set_target(conn: &Connection, candidate_id: i64, skill_id: i64) -> Result<()> {
    conn.execute(
        &format!("UPDATE skill_candidates SET target_skill_id = ?1, base_sha256 = {LIVE_SHA} WHERE id = ?2"),
        params![skill_id, candidate_id],
    )?;
    Ok(())
}

/// The sha256 of the newest version of skill `?1`: the text a proposal is made against.
const LIVE_SHA: &str =
    "(SELECT sha256 FROM skill_versions WHERE skill_id = ?1 ORDER BY version DESC LIMIT 1)";

/// The sha256 of the live text candidate `candidate_id` was proposed against (`None` for a new
/// skill, or a proposal recorded before this was kept).
pub fn base_sha(conn: &Connection, candidate_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT base_sha256 FROM skill_candidates WHERE id = ?1", [candidate_id], |r| {
            r.get(0)
        })
        .optional()?
        .flatten())
}

/// The proposal now stands against the live text with `sha` (its reviewer was shown it).
pub fn set_base(conn: &Connection, candidate_id: i64, sha: &str) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET base_sha256 = ?2 WHERE id = ?1",
        params![candidate_id, sha],
    )?;
    Ok(())
}

/// A proposal's text rewritten (`rebase`: it follows the skill's live text).
pub fn set_skill_md(conn: &Connection, candidate_id: i64, text: &str) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET skill_md = ?2 WHERE id = ?1",
        params![candidate_id, text],
    )?;
    Ok(())
}

/// Promoted (live, or approved as a version). `unstage`: its draft left the staging folder.
pub fn set_promoted(conn: &Connection, candidate_id: i64, now: &str, unstage: bool) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET status = ?3, promoted_at = ?2,
             staged_path = CASE WHEN ?4 THEN NULL ELSE staged_path END
         WHERE id = ?1",
        params![candidate_id, now, CandidateStatus::Promoted, unstage],
    )?;
    Ok(())
}

/// Dismisses an open candidate; `parked` is where its draft went, if it was moved. Returns
/// whether the candidate was still open.
pub fn set_dismissed(
    conn: &Connection,
    candidate_id: i64,
    now: &str,
    parked: Option<Option<&str>>,
) -> Result<bool> {
    let n = match parked {
        Some(path) => conn.execute(
            "UPDATE skill_candidates SET status = ?4, dismissed_at = ?2, staged_path = ?3
             WHERE id = ?1 AND status = ?5",
            params![
                candidate_id,
                now,
                path,
                CandidateStatus::Dismissed,
                CandidateStatus::Candidate
            ],
        )?,
        None => conn.execute(
            "UPDATE skill_candidates SET status = ?3, dismissed_at = ?2 WHERE id = ?1 AND status = ?4",
            params![candidate_id, now, CandidateStatus::Dismissed, CandidateStatus::Candidate],
        )?,
    };
    Ok(n > 0)
}

/// Opens a dismissed candidate again, its draft back at `staged`.
pub fn reopen_dismissed(conn: &Connection, candidate_id: i64, staged: Option<&str>) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET status = ?3, dismissed_at = NULL, staged_path = ?2
         WHERE id = ?1",
        params![candidate_id, staged, CandidateStatus::Candidate],
    )?;
    Ok(())
}

/// Opens a promoted candidate again, its draft back at `staged` (with the live text, if read).
pub fn reopen_promoted(
    conn: &Connection,
    candidate_id: i64,
    staged: &str,
    skill_md: Option<&str>,
) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET status = ?4, promoted_at = NULL, staged_path = ?2,
         skill_md = COALESCE(?3, skill_md) WHERE id = ?1",
        params![candidate_id, staged, skill_md, CandidateStatus::Candidate],
    )?;
    Ok(())
}

/// An approved proposed version is open for review again (its approval was undone).
pub fn reopen_approved(conn: &Connection, candidate_id: i64) -> Result<()> {
    conn.execute(
        "UPDATE skill_candidates SET status = ?2, promoted_at = NULL WHERE id = ?1",
        params![candidate_id, CandidateStatus::Candidate],
    )?;
    Ok(())
}

/// The candidate's tool sequence as stored (a JSON array).
pub fn tool_sequence_json(conn: &Connection, candidate_id: i64) -> Result<String> {
    conn.query_row(
        "SELECT tool_sequence FROM skill_candidates WHERE id = ?1",
        [candidate_id],
        |r| r.get(0),
    )
    .with_context(|| format!("no candidate with id {candidate_id}"))
}

/// A proposal to record for a skill that exists: a merge (the merged SKILL.md as a proposed
/// version of `survivor` that absorbs `absorbed`, `draft::merge`), a trigger rewrite or a
/// restore (`draft::fixes`).
pub struct NewMerge<'a> {
    pub agent: &'a str,
    pub hash: &'a str,
    pub name: &'a str,
    pub description: &'a str,
    pub skill_md: &'a str,
    pub tool_sequence: &'a str,
    pub source: CandidateSource,
    pub survivor: i64,
    pub absorbed: Option<i64>,
    /// The sessions (each once) and requests behind it, and how many times it was seen.
    pub sessions: &'a [String],
    pub occurrences: usize,
    pub examples: &'a [String],
    pub reason: &'a Reason,
    pub drafted_by: DraftedBy,
    pub draft_note: Option<&'a str>,
    pub now: &'a str,
}

/// Whether `agent` ever had a candidate with `hash`, in any status (a dismissed merge pair is
/// never proposed again).
pub fn hash_known(conn: &Connection, agent: &str, hash: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM skill_candidates WHERE agent_id = ?1 AND hash = ?2",
            params![agent, hash],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Records a proposal; `None` when its key was already recorded.
pub fn record_merge(conn: &Connection, m: &NewMerge) -> Result<Option<i64>> {
    let n = conn.execute(
        "INSERT INTO skill_candidates (agent_id, hash, name, description, tool_sequence,
             session_keys, occurrences, status, created_at, source, skill_md, target_skill_id,
             absorbs_skill_id, reason, drafted_by, draft_note, examples)
         VALUES (?1, ?2, ?3, ?4, ?5, ?15, ?16, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?17)
         ON CONFLICT(agent_id, hash) DO NOTHING",
        params![
            m.agent,
            m.hash,
            m.name,
            m.description,
            m.tool_sequence,
            CandidateStatus::Candidate,
            m.now,
            m.source,
            m.skill_md,
            m.survivor,
            m.absorbed,
            serde_json::to_string(m.reason)?,
            m.drafted_by,
            m.draft_note,
            serde_json::to_string(m.sessions)?,
            m.occurrences.max(m.sessions.len()).max(1) as i64,
            serde_json::to_string(m.examples)?,
        ],
    )?;
    let id = (n > 0).then(|| conn.last_insert_rowid());
    if let Some(id) = id {
        conn.execute(
            &format!("UPDATE skill_candidates SET base_sha256 = {LIVE_SHA} WHERE id = ?2"),
            params![m.survivor, id],
        )?;
    }
    Ok(id)
}

/// A candidate written whole, as it stands: an import of reviewed work or a test's fixture.
/// Detection goes through [`record`], which names and drafts it from its evidence.
pub struct NewCandidate<'a> {
    pub agent: &'a str,
    pub hash: &'a str,
    pub name: &'a str,
    pub description: Option<&'a str>,
    /// JSON array of the tool steps.
    pub tool_sequence: &'a str,
    pub sessions: &'a [String],
    pub occurrences: i64,
    pub source: CandidateSource,
    pub signature: Option<&'a str>,
    pub examples: &'a [String],
    pub skill_md: Option<&'a str>,
    pub staged_path: Option<&'a str>,
    /// A proposed version of this skill.
    pub target_skill_id: Option<i64>,
    pub workflow: Option<&'a WorkflowEvidence>,
    pub now: &'a str,
}

/// Writes an open candidate; returns its id.
pub fn insert(conn: &Connection, c: &NewCandidate) -> Result<i64> {
    conn.execute(
        "INSERT INTO skill_candidates (agent_id, hash, name, description, tool_sequence,
             session_keys, occurrences, status, created_at, source, signature, examples, skill_md,
             staged_path, target_skill_id, workflow, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        params![
            c.agent,
            c.hash,
            c.name,
            c.description,
            c.tool_sequence,
            serde_json::to_string(c.sessions)?,
            c.occurrences,
            CandidateStatus::Candidate,
            c.now,
            c.source,
            c.signature,
            serde_json::to_string(c.examples)?,
            c.skill_md,
            c.staged_path,
            c.target_skill_id,
            c.workflow.map(serde_json::to_string).transpose()?,
            c.workflow.map(|w| serde_json::to_string(&w.reason)).transpose()?,
        ],
    )
    .with_context(|| format!("writing candidate {:?}", c.name))?;
    Ok(conn.last_insert_rowid())
}

/// The skill a merge proposal would absorb (archive on approval), if it is one.
pub fn absorbs(conn: &Connection, candidate_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT absorbs_skill_id FROM skill_candidates WHERE id = ?1",
            [candidate_id],
            |r| r.get(0),
        )
        .optional()?
        .flatten())
}

/// The newest approved proposal of `source` for `skill_id`: (candidate id, approved at).
pub fn latest_approved(
    conn: &Connection,
    skill_id: i64,
    source: CandidateSource,
) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, promoted_at FROM skill_candidates
             WHERE target_skill_id = ?1 AND source = ?2 AND status = ?3 AND promoted_at IS NOT NULL
             ORDER BY promoted_at DESC, id DESC LIMIT 1",
            params![skill_id, source, CandidateStatus::Promoted],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The newest candidate row's id (0 with none): the rows a pass creates come after it.
pub fn last_id(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COALESCE(MAX(id), 0) FROM skill_candidates", [], |r| r.get(0))?)
}

/// The rows created after `after` that `candidates --all` lists (not evidence only): new skills
/// and proposed versions of live skills.
pub fn listed_after(conn: &Connection, after: i64) -> Result<(u64, u64)> {
    let (new, versions): (i64, i64) = conn.query_row(
        "SELECT COALESCE(SUM(target_skill_id IS NULL), 0), COALESCE(SUM(target_skill_id IS NOT NULL), 0)
           FROM skill_candidates WHERE id > ?1 AND evidence_only = 0",
        [after],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((new.max(0) as u64, versions.max(0) as u64))
}
