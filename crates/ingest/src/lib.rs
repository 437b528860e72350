//! Transcripts into sessions, turns, tool calls and skill invocations.
//!
//! A layer of skilldeck's workspace (docs/architecture.md); the crates below are
//! re-exported so its modules name them as `crate::<module>`, as in one crate.

pub use skilldeck_core::text_enum;
#[doc(hidden)]
pub use skilldeck_core::{
    catalog, config, editor, fsio, journal, model, process, spec, step, store, text, workflow,
    workspace,
};

pub mod ingest;
