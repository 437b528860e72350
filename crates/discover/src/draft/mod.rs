//! Staged drafts and a person's review of them: candidates, evolution into proposed versions,
//! and every review decision (promote, dismiss, approve, reject, undo) in `review`.

pub(crate) mod asks;
pub mod candidates;
mod checks;
mod evolve;
pub mod finish;
pub mod fixes;
pub mod folder;
pub mod lint;
pub mod live;
pub mod merge;
pub mod model;
pub mod naming;
mod outline;
mod paths;
mod placeholder;
mod quote;
mod rebase;
pub mod recorder;
pub mod render;
mod review;
pub mod skill;
pub mod stage;
mod steps;

pub use candidates::{
    CandidateSource, CandidateStatus, CandidateView, get_candidate, last_id, list_candidates,
    list_with_evidence, listed_after, open_candidate_named,
};
pub use evolve::{link_evolutions, sequence_overlap};
pub use merge::{MergeReport, propose_merges};
pub use recorder::{PendingDrafts, Recorder};
pub use review::{
    Promoted, approval_text, approve, approve_current, decision_text, dismiss, draft_file,
    ensure_seen, finish_merge, promote, reject, staged_text, undo_approve, undo_dismiss,
    undo_promote,
};
