//! skilldeck: ingest agent transcripts, detect repeated work, draft skills for review,
//! score and sweep them, keep every version, and review it all in a terminal console.
//!
//! This crate is the binary and a facade: each module is one of the layer crates under
//! `crates/` (docs/architecture.md), re-exported here under the names it always had.

pub use skilldeck_bench::bench;
#[cfg(feature = "cli")]
pub use skilldeck_console::cli;
pub use skilldeck_console::tui;
pub use skilldeck_core::catalog;
pub use skilldeck_core::config;
pub use skilldeck_core::editor;
pub use skilldeck_core::fsio;
pub use skilldeck_core::journal;
pub use skilldeck_core::model;
pub use skilldeck_core::process;
pub use skilldeck_core::spec;
pub use skilldeck_core::step;
pub use skilldeck_core::store;
pub use skilldeck_core::text;
pub use skilldeck_core::text_enum;
pub use skilldeck_core::workflow;
pub use skilldeck_core::workspace;
pub use skilldeck_discover::detect;
pub use skilldeck_discover::draft;
pub use skilldeck_discover::lessons;
pub use skilldeck_discover::trial;
pub use skilldeck_engine::demo;
pub use skilldeck_engine::engine;
pub use skilldeck_engine::hooks;
pub use skilldeck_engine::pipeline;
pub use skilldeck_ingest::ingest;
pub use skilldeck_lifecycle::acquire;
pub use skilldeck_lifecycle::identity;
pub use skilldeck_lifecycle::lifecycle;
pub use skilldeck_lifecycle::packages;
pub use skilldeck_lifecycle::usage;
pub use skilldeck_synth::synth;
pub use skilldeck_team::team;
