pub mod detail;
pub mod diff;
pub mod help;
pub mod history;
pub mod lessons;
pub mod queue;
pub mod skills;
pub mod timeline;
