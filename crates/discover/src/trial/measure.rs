//! What a run's stdout shows, when it is a transcript skilldeck reads (Claude Code's
//! `stream-json`, Codex's `exec --json` events, a native trajectory): read in memory by the
//! ingest parsers, never stored. Anything else leaves the run measured by its checks and time.

use crate::ingest::{RunTranscript, read_transcript};

/// The run's transcript, and whether it shows `skill` used (`None` without a transcript).
pub fn read(stdout: &str, skill: &str) -> (Option<RunTranscript>, Option<bool>) {
    let Some(t) = read_transcript(stdout.as_bytes()) else { return (None, None) };
    let loaded = t.skills.iter().any(|s| s == skill);
    (Some(t), Some(loaded))
}

/// Wall time in whole seconds: an agent's runs take tens of seconds to minutes, and finer
/// differences between two of them are the machine's load, not the skill.
pub fn whole_seconds(d: std::time::Duration) -> f64 {
    d.as_secs_f64().round()
}
