//! Benchmark support kept in the library so benches and tests share it: the discovery
//! benchmark's generator and scorer (`synth::plant`) and its runner (`discovery`).

pub mod discovery;
pub mod pg;
