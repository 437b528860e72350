//! What ingestion cannot use, said once instead of line by line: files in another agent's format,
//! and transcripts whose prompts and commands were all taken out before they were shared.

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::turn::TurnRec;

/// The top-level keys that tell another agent's log.
#[derive(Deserialize)]
struct Probe {
    trajectory: Option<IgnoredAny>,
    history: Option<IgnoredAny>,
    info: Option<IgnoredAny>,
    source: Option<IgnoredAny>,
    action: Option<IgnoredAny>,
    observation: Option<IgnoredAny>,
}

/// The agent whose log `data` is, when it is one skilldeck does not read: SWE-agent's
/// trajectory (one JSON document with `trajectory`, or `history` and `info`), or OpenHands'
/// events (objects with `source` and an `action` or `observation`, one per line or in an array).
pub fn other_agent(data: &[u8]) -> Option<&'static str> {
    let text = data.trim_ascii_start();
    let first = match text.first()? {
        b'[' => text[1..].trim_ascii_start(),
        b'{' => text,
        _ => return None,
    };
    let mut values = serde_json::Deserializer::from_slice(first).into_iter::<Probe>();
    match values.next()? {
        Ok(p) => {
            if p.trajectory.is_some() || (p.history.is_some() && p.info.is_some()) {
                Some(SWE_AGENT)
            } else if p.source.is_some() && (p.action.is_some() || p.observation.is_some()) {
                Some(OPENHANDS)
            } else {
                None
            }
        }
        // Only the head of a large document was read: its keys tell.
        Err(e) if e.is_eof() => {
            let has = |key: &[u8]| memchr::memmem::find(first, key).is_some();
            if has(b"\"trajectory\":") {
                Some(SWE_AGENT)
            } else if has(b"\"source\":") && (has(b"\"action\":") || has(b"\"observation\":")) {
                Some(OPENHANDS)
            } else {
                None
            }
        }
        Err(_) => None,
    }
}

pub const SWE_AGENT: &str = "a SWE-agent trajectory";
pub const OPENHANDS: &str = "an OpenHands event log";

/// Why `what` (a file, or files, in another agent's format) is skipped.
pub fn unsupported_reason(what: &str) -> String {
    format!(
        "{what}: not a format skilldeck reads (Claude Code, stream-json, Codex, native); skipped"
    )
}

/// Words a redaction leaves in place of what it took out.
const MARKER_WORDS: &[&str] = &[
    "redacted",
    "removed",
    "omitted",
    "hidden",
    "scrubbed",
    "anonymized",
    "anonymised",
    "censored",
    "masked",
    "elided",
    "filtered",
    "withheld",
    "private",
    "secret",
    "placeholder",
    "prompt",
    "command",
    "text",
    "content",
    "user",
    "input",
    "message",
    "pii",
];

/// Whether `text` holds nothing but redaction markers (`[REDACTED]`, `<redacted:token>`,
/// `***`, `<prompt removed>`) or nothing at all.
pub fn only_markers(text: &str) -> bool {
    text.split_whitespace().all(|token| {
        let token = token.to_lowercase();
        token.contains("redact")
            || token
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .all(|w| (w.len() >= 3 && w.chars().all(|c| c == 'x')) || MARKER_WORDS.contains(&w))
    })
}

/// Whether a turn gives detection anything to learn from: a prompt, or a call with a concrete
/// command or path, that is not only redaction markers.
pub fn minable(turn: &TurnRec) -> bool {
    !only_markers(&turn.user_input)
        || turn.new_calls.iter().any(|c| c.step.detail.as_deref().is_some_and(|d| !only_markers(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_agents_logs_are_told_by_their_keys() {
        let traj = b"{\n  \"environment\": \"swe_main\",\n  \"trajectory\": [\n    {\"action\": \"ls\"}\n  ],\n  \"history\": []\n}\n";
        assert_eq!(other_agent(traj), Some(SWE_AGENT));
        assert_eq!(other_agent(&traj[..60]), Some(SWE_AGENT));
        let events = b"{\"id\": 0, \"source\": \"user\", \"action\": \"message\", \"args\": {}}\n{\"id\": 1}\n";
        assert_eq!(other_agent(events), Some(OPENHANDS));
        let array = b"[\n {\"id\": 3, \"source\": \"agent\", \"observation\": \"run\", \"content\": \"\"}\n]";
        assert_eq!(other_agent(array), Some(OPENHANDS));
        assert_eq!(other_agent(b"{\"type\":\"user\",\"message\":{}}\n"), None);
        assert_eq!(other_agent(b"not json"), None);
    }

    #[test]
    fn markers_alone_are_nothing_to_mine() {
        for text in [
            "",
            "  ",
            "[REDACTED]",
            "<redacted:github-token>",
            "***",
            "<prompt removed>",
            "REDACTED_COMMAND",
            "[user input redacted] [REDACTED]",
            "xxxxxxxx",
        ] {
            assert!(only_markers(text), "{text:?}");
        }
        for text in [
            "fix the login test",
            "ls",
            "oui",
            "1",
            "removed the hidden file",
            "[REDACTED] then push",
        ] {
            assert!(!only_markers(text), "{text:?}");
        }
    }
}
