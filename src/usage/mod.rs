//! How live skills are taken up by the agent: the measures behind missed triggers and
//! consolidation. Everything here is pure (steps, texts, numbers in; judgements out); the
//! passes that read the tables and write events call it (see docs/lifecycle.md).
//!
//! - `steps`: the workflow a skill stands for, as step keys (`sh:cargo test`), from the workflow
//!   it was drafted from or, hand-written, from the commands its body names in code.
//! - `triggers`: whether a turn's steps repeat a skill's workflow (a missed trigger when the skill
//!   was live and not used in that turn).
//! - `overlap`: how strongly two live skills overlap, by workflow and by description.
//! - `merge`: the mechanical merged SKILL.md of two overlapping skills.
//! - `triggering`: the sweep's pass that records "not triggering" transitions as skill events.

pub mod consolidate;
pub mod merge;
pub mod missed;
pub mod overlap;
pub mod steps;
pub mod triggering;
pub mod triggers;
