//! The skill lifecycle: outcomes, health sweeps, versions, evolution, scorer features and the
//! deterministic router (`suggest`).
//!
//! Counters on `skills` are a cache: `stats`, `audit` and `sweep` recompute from
//! `skill_invocations`, which is the record every source (transcripts, `record`, implicit retries)
//! writes to.

mod audit;
mod disk;
mod features;
pub mod files;
mod git;
mod implicit;
mod missing;
mod named;
mod outcomes;
pub mod register;
mod rules;
mod staleness;
mod state;
mod suggest;
mod sweep;
mod tally;
mod versions;

pub use audit::{
    DayCount, RatePoint, SkillView, Timeline, TimelineEvent, audit, spec_errors, timeline,
};
pub use disk::{EditScan, disk_changed, reconcile, scan_edits, scan_edits_by_kind};
pub use features::{SkillFeatures, features, to_csv as features_csv};
pub use implicit::implicit_failures;
pub use missing::{Noticed, notice as notice_missing};
pub use named::{Named, named_skill};
pub use outcomes::{SkillStats, record, stats};
pub use register::{
    NewSkill, adopt_folder, adopt_folders, agent_folders, has_unknown_folders, register_skill,
    scope_folders,
};
pub use rules::{Judged, Judgment, judge};
pub use staleness::{StaleReport, staleness, staleness_if_due};
pub use state::{
    absorb, archive, archive_and, archive_with_reason, pin_said, restore, restore_and,
    set_protected, unabsorb,
};
pub use suggest::{SuggestIndex, Suggestion, suggest};
pub use sweep::{
    Phases, ProposedFixes, StatusChange, SweepReport, TriggerChange, judge_skills, ms,
};
pub use tally::{Tally, TallyBuilder};
pub use versions::{diff_text, rollback, versions};
pub use versions::{scan_one, write_version};

pub use crate::catalog::SkillRow;
pub use crate::catalog::SkillStatus;
pub use crate::catalog::versions::VersionView;

pub use crate::catalog::skills::{
    by_id as skill_by_id, find as find_skill, require as require_skill,
};
use crate::workspace;

/// `--agent` default: the configured agent.
pub fn agent_or_default<'a>(agent: Option<&'a str>, ws: &'a workspace::Workspace) -> &'a str {
    agent.unwrap_or(&ws.config.agent_id)
}
