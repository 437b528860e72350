//! How live skills are taken up by the agent: missed triggers and consolidation. `steps`,
//! `triggers`, `overlap` and `merge` are pure (steps, texts, numbers in; judgements out);
//! `missed` and `consolidate` read the tables through their owners, and `triggering` writes
//! "not triggering" events through `catalog::events` (see docs/lifecycle.md).
//!
//! - `steps`: the workflow a skill stands for, as step keys (`sh:cargo test`), from the workflow
//!   it was drafted from or, hand-written, from the commands its body names in code.
//! - `triggers`: whether a turn's steps repeat a skill's workflow (a missed trigger when the skill
//!   was live and not used in that turn).
//! - `overlap`: how strongly two live skills overlap, by workflow and by description.
//! - `merge`: the mechanical merged SKILL.md of two overlapping skills.
//! - `missed`: a skill's uses and missed triggers since it went live.
//! - `consolidate`: the pairs of live skills that overlap strongly.
//! - `triggering`: the sweep's pass that records "not triggering" transitions as skill events.
//! - `effect`: runs of a skill's workflow with the skill against runs without it, measure by
//!   measure, with 95% intervals from `interval`; `effects` keeps each skill's last result.

use crate::workspace;

pub mod consolidate;
pub mod effect;
pub mod effects;
pub mod interval;
pub mod merge;
pub mod missed;
pub mod overlap;
pub mod steps;
pub mod triggering;
pub mod triggers;

/// Whether `name` is skilldeck's own lessons playbook (`lessons.playbook_name`): written from the
/// approved lessons and meant for every workflow rather than one, so it is never judged for
/// triggering, proposed a fix, or paired for a merge.
pub fn is_own_playbook(ws: &workspace::Workspace, name: &str) -> bool {
    name == ws.config.lessons.playbook_name
}
