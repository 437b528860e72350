//! The pipeline in one call: what `ingest`, `demo` and the console's engine run after reading
//! transcripts — register hand-made skill folders, detect repeated work and draft it, and turn
//! candidates that overlap a live skill into proposed versions.

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::detect::{self, DetectReport};
use crate::ingest::{self, IngestReport, Progress};
use crate::lifecycle::{self, SweepReport};
use crate::workspace::Workspace;

#[derive(Debug, Serialize)]
pub struct AfterIngest {
    /// Skill folders found in the skills folders that were not registered yet.
    pub skills_registered: usize,
    pub detect: DetectReport,
    /// Open candidates that became proposed new versions of a live skill.
    pub proposed_versions: usize,
}

/// Detection and evolution over whatever ingestion stored and nothing has consumed yet.
pub fn after_ingest(ws: &mut Workspace) -> Result<AfterIngest> {
    let agent = ws.config.agent_id.clone();
    let skills_registered = crate::identity::register_folders(ws, &agent)?;
    let detect = detect::run(ws)?;
    let proposed_versions = lifecycle::link_evolutions(ws)?;
    Ok(AfterIngest { skills_registered, detect, proposed_versions })
}

#[derive(Debug, Serialize)]
pub struct PassReport {
    pub ingest: IngestReport,
    #[serde(flatten)]
    pub after: AfterIngest,
    pub sweep: SweepReport,
}

/// A whole background pass: ingest the given paths (empty: the configured roots), detect,
/// evolve, then sweep (which also records outside edits and implicit failures).
pub fn run_pass(
    ws: &mut Workspace,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(&Progress),
) -> Result<PassReport> {
    let ingest = ingest::run(ws, paths, progress)?;
    let after = after_ingest(ws)?;
    let sweep = lifecycle::sweep(ws)?;
    Ok(PassReport { ingest, after, sweep })
}
