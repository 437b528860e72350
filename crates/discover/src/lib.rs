//! Discovery and review: candidates and drafts, detection, trials and lessons.
//!
//! A layer of skilldeck's workspace (docs/architecture.md); the crates below are
//! re-exported so its modules name them as `crate::<module>`, as in one crate.

pub use skilldeck_core::text_enum;
#[doc(hidden)]
pub use skilldeck_core::{
    catalog, config, editor, fsio, journal, model, process, spec, step, store, text, workflow,
    workspace,
};
#[doc(hidden)]
pub use skilldeck_ingest::ingest;
#[doc(hidden)]
pub use skilldeck_lifecycle::{acquire, identity, lifecycle, packages, usage};

pub mod detect;
pub mod draft;
pub mod lessons;
pub mod procedures;
pub mod trial;
