//! skilldeck: ingest agent transcripts, detect repeated work, draft skills for review,
//! score and sweep them, keep every version, and review it all in a terminal console.
//!
//! The domain modules (store, ingest, detect, draft, lifecycle) never import ratatui; the
//! console (`tui`) only draws state and turns keys into actions.

pub mod acquire;
pub mod bench;
pub mod catalog;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod demo;
pub mod detect;
pub mod draft;
pub mod editor;
pub mod engine;
pub mod fsio;
pub mod hooks;
pub mod identity;
pub mod ingest;
pub mod journal;
pub mod lessons;
pub mod lifecycle;
pub mod model;
pub mod packages;
pub mod pipeline;
pub mod process;
pub mod spec;
pub mod step;
pub mod store;
pub mod synth;
pub mod team;
pub mod text;
pub mod trial;
pub mod tui;
pub mod usage;
pub mod workflow;
pub mod workspace;
