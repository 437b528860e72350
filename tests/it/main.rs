//! One integration-test binary (links once); each area adds a `mod` line here.

mod lifecycle;
mod lifecycle_router;
mod lifecycle_versions;
mod support;
