//! Staged drafts and a person's review of them: candidates, promotion, dismissal, and undo.

pub mod candidates;
pub mod finish;
pub mod model;
pub mod naming;
mod quote;
pub mod render;
mod review;
pub mod skill;
pub mod stage;

pub use candidates::{CandidateView, get_candidate, list_candidates};
pub use review::{Promoted, dismiss, promote, undo_dismiss, undo_promote};
