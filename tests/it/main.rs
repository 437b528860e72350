//! One integration-test binary (links once); each area adds a `mod` line here.

mod acquire;
mod console;
mod console_cli_twins;
mod console_detail;
mod console_fixture;
mod console_keys;
mod console_tmux;
mod demo;
mod detect;
mod draft;
mod draft_command;
mod drafting;
mod identity;
mod ingest;
mod ingest_incremental;
mod ingest_outcomes;
mod lifecycle;
mod lifecycle_router;
mod lifecycle_versions;
mod packages;
mod packages_run;
mod packages_validation;
mod pipeline;
mod support;
mod validate;
