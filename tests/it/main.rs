//! One integration-test binary (links once); each area adds a `mod` line here.

mod detect;
mod draft;
mod support;
mod validate;
