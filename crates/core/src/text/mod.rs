//! Text from outside (transcripts, skill folders, paths, config): made safe before it is
//! printed to a terminal or written into a draft.

pub mod danger;
pub mod hex;
pub mod injection;
pub mod managed;
pub mod paste;
pub mod redact;
pub mod safe;
pub mod signature;
pub mod slug;

/// `1 skill`, `2 skills`: a count with its noun in the right number (`noun` + `s` when plural).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}
