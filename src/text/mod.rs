//! Text from outside (transcripts, skill folders, paths, config): made safe before it is
//! printed to a terminal or written into a draft.

pub mod hex;
pub mod injection;
pub mod redact;
pub mod safe;
pub mod slug;
