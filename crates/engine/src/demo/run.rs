//! Builds the demo workspace and runs the pipeline over it the way a person would over weeks:
//! ingest and detect, pin a skill, promote the drafted release workflow, let the agent work on,
//! sweep.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::scenario::{self, Layout, write_phase_one, write_phase_two};
use crate::catalog::skills;
use crate::config::Config;
use crate::draft;
use crate::lifecycle::{self, SkillView};
use crate::pipeline::{self, PassReport};
use crate::trial::verdict;
use crate::workspace::{Paths, Workspace};

/// Marks a folder as made by `demo`, so a later run may wipe and rebuild it.
const MARKER: &str = ".skilldeck-demo";

#[derive(Debug, Serialize)]
pub struct DemoReport {
    pub root: PathBuf,
    pub db: PathBuf,
    pub config: PathBuf,
    /// The hand-written skill pinned as protected before the sweep.
    pub pinned: String,
    /// The drafted release workflow promoted between the two phases.
    pub promoted: String,
    pub first_pass: PassReport,
    pub second_pass: PassReport,
    /// Rows in the review queue: new skills and proposed versions.
    pub open_candidates: usize,
    /// Of them, proposed versions of live skills.
    pub open_versions: usize,
    pub skills: Vec<SkillView>,
    /// The backup skill's trial with a stand-in agent, in one line.
    pub trial: String,
}

/// The default demo folder: `<temp>/skilldeck-demo`.
pub fn default_root() -> PathBuf {
    std::env::temp_dir().join("skilldeck-demo")
}

/// Writes the demo workspace under `root` (rebuilding an earlier demo there) and runs the
/// pipeline over it. Refuses a non-empty folder that an earlier demo did not make.
pub fn build(root: &Path) -> Result<(Workspace, DemoReport)> {
    prepare(root)?;
    let layout = Layout::under(root);
    write_phase_one(&layout)?;
    let config = Config::load(&layout.config_file)?;
    let mut paths = Paths::under(root);
    paths.config_file = layout.config_file.clone();
    let mut ws = Workspace::with_paths(config, paths)?;
    let agent = ws.config.agent_id.clone();

    // A person pins the linter skill they rely on before anything judges it.
    let read = pipeline::Pass::ingest(pipeline::Read::default());
    let mut first_pass = pipeline::run(&mut ws, &read, &mut |_| {})?;
    let pinned = "lint-fix".to_string();
    lifecycle::set_protected(&mut ws, &agent, &pinned, true)?;
    let judge = pipeline::Pass { judge: true, ..Default::default() };
    let judged = pipeline::run(&mut ws, &judge, &mut |_| {})?;
    first_pass.steps.extend(judged.steps.into_iter().filter(|s| *s != pipeline::Step::Recover));
    first_pass.sweep = judged.sweep;

    // The hand-written backup skill has been live since the day before (see the scenario).
    let backup = skills::find(ws.store.conn(), &agent, scenario::BACKUP_SKILL)?
        .context("the demo's backup skill was not adopted")?;
    let since = scenario::backup_live_since();
    let since = since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    skills::set_live_since(ws.store.conn(), backup.id, &since)?;

    // ... and promotes the drafted crate-release workflow.
    let candidate = release_candidate(&ws, &agent)?;
    let promoted = draft::promote(&mut ws, candidate)?.name;

    // Later sessions release with one more step: a proposed new version.
    write_phase_two(&layout)?;
    let second_pass = pipeline::run(&mut ws, &pipeline::Pass::full(), &mut |_| {})?;

    // ... and tries the backup skill on a project with a stand-in agent.
    let trial = verdict::headline(&super::trial::run(&mut ws, &layout)?);

    let open: Vec<draft::CandidateView> = draft::list_candidates(&ws.store, None)?
        .into_iter()
        .filter(|c| c.status == draft::CandidateStatus::Candidate)
        .collect();
    let open_versions = open.iter().filter(|c| c.target_skill_id.is_some()).count();
    let open_candidates = open.len();
    let skills = lifecycle::audit(&ws.store, None)?;
    let report = DemoReport {
        root: root.to_path_buf(),
        db: ws.paths.db.clone(),
        config: layout.config_file,
        pinned,
        promoted,
        first_pass,
        second_pass,
        open_candidates,
        open_versions,
        skills,
        trial,
    };
    Ok((ws, report))
}

/// The open workflow candidate whose steps publish a crate.
fn release_candidate(ws: &Workspace, agent: &str) -> Result<i64> {
    draft::list_candidates(&ws.store, Some(agent))?
        .into_iter()
        .filter(|c| {
            c.source == draft::CandidateSource::Workflow
                && c.status == draft::CandidateStatus::Candidate
                && !c.evidence_only
                && c.tool_sequence.to_string().contains("sh:cargo publish")
        })
        .map(|c| c.id)
        .min()
        .context("the demo transcripts produced no release workflow to promote")
}

fn prepare(root: &Path) -> Result<()> {
    if root.exists() {
        let empty = std::fs::read_dir(root)
            .with_context(|| format!("reading {}", root.display()))?
            .next()
            .is_none();
        if !empty && !root.join(MARKER).exists() {
            bail!(
                "{} is not empty and was not made by `skilldeck demo`; choose another --dir",
                root.display()
            );
        }
        std::fs::remove_dir_all(root).with_context(|| format!("clearing {}", root.display()))?;
    }
    std::fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    std::fs::write(root.join(MARKER), "made by skilldeck demo; safe to delete\n")
        .with_context(|| format!("writing {}", root.join(MARKER).display()))
}
