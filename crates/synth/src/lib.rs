//! Synthetic transcripts and the planted corpus (the demo and the benchmarks).
//!
//! A layer of skilldeck's workspace (docs/architecture.md); the crates below are
//! re-exported so its modules name them as `crate::<module>`, as in one crate.

pub mod synth;
