//! One integration-test binary (links once); each area adds a `mod` line here.

mod ingest;
mod ingest_incremental;
mod ingest_outcomes;
mod support;
