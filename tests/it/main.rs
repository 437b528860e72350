//! One integration-test binary (links once); each area adds a `mod` line here.

mod acquire;
mod detect;
mod draft;
mod identity;
mod packages;
mod packages_run;
mod packages_validation;
mod support;
mod validate;
