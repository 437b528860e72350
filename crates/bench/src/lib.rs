//! The discovery benchmark's runner.
//!
//! A layer of skilldeck's workspace (docs/architecture.md); the crates below are
//! re-exported so its modules name them as `crate::<module>`, as in one crate.

#[doc(hidden)]
pub use skilldeck_synth::synth;

pub mod bench;
