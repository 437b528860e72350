//! What leaves a machine for the team's server, item by item: the payloads are exactly what is
//! queued, printed by `team push --dry-run` and stored on the server. Every string in them was
//! redacted at ingest (step keys, command details, requests); session and project identifiers
//! are hashed unless the member turned hashing off.

use serde::{Deserialize, Serialize};

use crate::catalog::InvocationSource;
use crate::model::Outcome;
use crate::text::hex::sha256_hex;
use crate::text::safe;

/// One tool call of a turn: its step keys (one per line), its redacted detail, whether it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallItem {
    pub step: String,
    pub detail: Option<String>,
    pub error: bool,
}

/// One turn of a member's agent: the redacted request, its outcome and its tool calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnItem {
    pub agent: String,
    pub session: String,
    pub project: Option<String>,
    pub request: String,
    pub at: Option<String>,
    pub success: bool,
    /// The agent's last message in the turn asked the user something (a question, a menu): the
    /// reply after it may only steer the task. The message itself never leaves.
    #[serde(default)]
    pub asked: bool,
    pub calls: Vec<CallItem>,
}

/// One use of a team skill by a member's agent, with its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UseItem {
    pub skill: String,
    pub outcome: Outcome,
    /// How the outcome was known: transcript, explicit, implicit, check, acquire_test.
    pub source: InvocationSource,
    pub session: Option<String>,
    pub at: String,
}

/// A queued item as the outbox holds it and the server receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    Turn(TurnItem),
    Use(UseItem),
}

impl Item {
    pub fn kind(&self) -> &'static str {
        match self {
            Item::Turn(_) => "turn",
            Item::Use(_) => "use",
        }
    }
}

/// A server row that was not used, named so a member can find it: its table, its key and why.
/// The rest of the rows proceed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub table: &'static str,
    pub key: String,
    pub reason: String,
}

impl Skipped {
    pub fn new(
        table: &'static str,
        key: impl std::fmt::Display,
        column: &str,
        e: &dyn std::fmt::Display,
    ) -> Skipped {
        let reason = safe::inline(&format!("{column}: {e}")).into_owned();
        Skipped { table, key: safe::inline(&key.to_string()).into_owned(), reason }
    }
}

/// How identifiers leave the machine: salted by the team's name, so one member's sessions keep
/// one identity on the server while the value itself (a path, a session id) stays here.
#[derive(Debug, Clone)]
pub struct Hasher {
    pub team: String,
    pub on: bool,
}

impl Hasher {
    pub fn id(&self, value: &str) -> String {
        if !self.on {
            return value.to_string();
        }
        let digest = sha256_hex(format!("skilldeck-team\0{}\0{value}", self.team).as_bytes());
        format!("h:{}", &digest[..24])
    }

    /// An item's identity: stable across runs and machines, never showing what it hashes.
    pub fn key(&self, parts: &[&str]) -> String {
        sha256_hex(parts.join("\0").as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_ids_are_stable_salted_and_opaque() {
        let h = Hasher { team: "core".into(), on: true };
        let a = h.id("/home/ann/src/secret-project");
        assert_eq!(a, h.id("/home/ann/src/secret-project"));
        assert!(a.starts_with("h:") && !a.contains("secret"));
        assert_ne!(a, Hasher { team: "other".into(), on: true }.id("/home/ann/src/secret-project"));
        assert_eq!(Hasher { team: "core".into(), on: false }.id("s1"), "s1");
    }
}
