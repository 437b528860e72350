//! One integration-test binary (links once); each area adds a `mod` line here.

mod detect;
mod draft;
mod acquire;
mod identity;
mod packages;
mod packages_run;
mod packages_validation;
mod support;
mod validate;
