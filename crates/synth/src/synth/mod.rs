//! Synthetic data, shared by the demo and the benchmarks: writers of transcripts in the formats
//! skilldeck reads (`transcripts`) and the discovery benchmark's planted corpus and its scoring
//! (`plant`). Deterministic for a given seed.

pub mod plant;
pub mod transcripts;
