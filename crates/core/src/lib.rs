//! Skilldeck's core: typed words, text safety, configuration, the store and its migrations, the disk helpers, the Agent Skills spec, the workspace, the journal and the skill catalog.
//!
//! A layer of skilldeck's workspace (docs/architecture.md); the crates below are
//! re-exported so its modules name them as `crate::<module>`, as in one crate.

pub mod catalog;
pub mod config;
pub mod editor;
pub mod fsio;
pub mod journal;
pub mod model;
pub mod process;
pub mod spec;
pub mod step;
pub mod store;
pub mod text;
pub mod workflow;
pub mod workspace;
