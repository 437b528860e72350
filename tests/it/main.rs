//! One integration-test binary (links once); each area adds a `mod` line here.

mod console;
mod console_fixture;
mod console_keys;
mod console_tmux;
mod support;
