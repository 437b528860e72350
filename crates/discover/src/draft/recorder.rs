//! The candidates detection's evidence is recorded as (`workflow::Candidates`): rows through
//! `candidates`, the owner of the table, and the draft folders they describe, kept to be staged
//! once the transactions that hold the rows have committed (the pipeline's next step).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;
use rusqlite::Connection;

use super::candidates::{self, CandidateStatus, StagedDraft};
use super::render::{DRAFT_SCORE, DRAFT_SCORER};
use crate::catalog::prompts;
use crate::journal;
use crate::model::ToolStep;
use crate::store::now_rfc3339;
use crate::workflow::{
    CandidateEvidence, Candidates, EvidenceKind, Reason, Recorded, SequenceTally,
};

/// Records detection's evidence for one pass and keeps the drafts it makes.
pub struct Recorder {
    staging: PathBuf,
    drafts: PendingDrafts,
}

/// Draft folders the committed candidate rows describe and that are not on disk yet.
#[derive(Default)]
pub struct PendingDrafts {
    /// The latest text of each candidate drafted, by candidate id.
    pub staged: BTreeMap<i64, StagedDraft>,
    /// Staged folders of candidates that became evidence: removed unless drafted again.
    pub stale: Vec<PathBuf>,
    /// The intent a crash before the folders are written leaves for recovery.
    pub intent: Option<i64>,
}

impl Recorder {
    /// A recorder staging drafts under `staging` (the workspace's staging folder).
    pub fn new(staging: PathBuf) -> Recorder {
        Recorder { staging, drafts: PendingDrafts::default() }
    }

    /// The drafts recorded, to be written now that their rows are committed.
    pub fn into_drafts(self) -> PendingDrafts {
        self.drafts
    }

    /// Candidate `id` is evidence now: its draft is not written, and a folder staged earlier goes.
    fn retire(&mut self, conn: &Connection, id: i64) -> Result<()> {
        self.drafts.staged.remove(&id);
        if let Some(path) = candidates::staged_path(conn, id)? {
            let path = PathBuf::from(path);
            if path.starts_with(&self.staging) {
                self.drafts.stale.push(path);
            }
        }
        Ok(())
    }
}

impl Candidates for Recorder {
    fn record(&mut self, conn: &Connection, ev: &CandidateEvidence) -> Result<Recorded> {
        let now = now_rfc3339();
        let (recorded, draft) = candidates::record(conn, &self.staging, ev, &now)?;
        if let (Recorded::Created(id) | Recorded::Redrafted(id), Some(draft)) = (&recorded, draft) {
            self.drafts.staged.insert(*id, draft);
        }
        match recorded {
            Recorded::Evidence(id) => self.retire(conn, id)?,
            // The prompt store keeps one row per streak draft, under a fresh UUID v4 key.
            Recorded::Created(id) | Recorded::Redrafted(id)
                if ev.kind == EvidenceKind::Signature =>
            {
                if let Some((name, skill_md)) = candidates::draft_text(conn, id)? {
                    prompts::add(
                        conn,
                        &ev.agent_id,
                        &name,
                        &skill_md,
                        DRAFT_SCORE,
                        DRAFT_SCORER,
                        &now,
                    )?;
                }
            }
            _ => {}
        }
        // A crash before the drafts are written leaves this for the next command's recovery,
        // which writes them from the rows.
        if self.drafts.intent.is_none() && !self.drafts.staged.is_empty() {
            self.drafts.intent = Some(journal::drafts_pending(conn)?);
        }
        Ok(recorded)
    }

    fn supersede(&mut self, conn: &Connection, ids: &[i64]) -> Result<()> {
        candidates::make_evidence(conn, ids)?;
        for &id in ids {
            self.retire(conn, id)?;
        }
        Ok(())
    }

    fn sequence_tally(
        &self,
        conn: &Connection,
        agent: &str,
        hash: &str,
    ) -> Result<Option<SequenceTally>> {
        Ok(candidates::sequence_tally(conn, agent, hash)?
            .map(|t| SequenceTally { occurrences: t.occurrences, examples: t.examples }))
    }

    fn promoted_otherwise(&self, conn: &Connection, id: i64, steps: &[ToolStep]) -> Result<bool> {
        candidates::promoted_otherwise(conn, id, steps)
    }

    fn move_workflow_links(&self, conn: &Connection, from: i64, into: i64) -> Result<()> {
        candidates::move_workflow_links(conn, from, into)
    }

    fn proposed_workflows(
        &self,
        conn: &Connection,
        agent: &str,
        except: i64,
    ) -> Result<Vec<(i64, bool, Reason)>> {
        Ok(candidates::proposed_workflow_reasons(conn, agent, except)?
            .into_iter()
            .map(|(id, status, reason)| (id, status == CandidateStatus::Candidate, reason))
            .collect())
    }

    fn is_proposed(&self, conn: &Connection, id: i64) -> Result<bool> {
        candidates::is_proposal(conn, id)
    }

    fn open_sequences(
        &self,
        conn: &Connection,
        agent: &str,
        hashes: &[String],
    ) -> Result<Vec<i64>> {
        candidates::open_sequences(conn, agent, hashes)
    }

    fn open_streaks(&self, conn: &Connection, workflow: i64) -> Result<Vec<i64>> {
        candidates::open_streaks(conn, workflow)
    }
}
