//! The review console: draws snapshots from the engine and turns keys into actions. It never
//! touches SQL or files; everything goes through `engine`.

pub mod action;
pub mod app;
pub mod draw;
pub mod input;
pub mod keys;
pub mod layout;
pub mod lessons;
pub mod panes;
pub mod procedures;
pub mod state;
pub mod status;
pub mod tabs;
pub mod team;
pub mod terminal;
pub mod theme;
pub mod update;

pub use action::Action;
pub use app::{run_app, run_console};
pub use state::UiState;
