//! The one pass every door runs, the agents' hooks, the demo and the console's engine.
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
pub use skilldeck_discover::{detect, draft, lessons, procedures, trial};
#[doc(hidden)]
pub use skilldeck_ingest::ingest;
#[doc(hidden)]
pub use skilldeck_lifecycle::{acquire, identity, lifecycle, packages, usage};
#[doc(hidden)]
pub use skilldeck_synth::synth;
#[doc(hidden)]
pub use skilldeck_team::team;

pub mod demo;
pub mod engine;
pub mod hooks;
pub mod pipeline;
