//! Skills after they go live: registration, outcomes, versions, the health sweep, identity, acquired code, packages and what uses show.
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

pub mod acquire;
pub mod identity;
pub mod lifecycle;
pub mod packages;
pub mod usage;
