//! The evidence of one repeated workflow, as discovery hands it to drafting.
//!
//! Discovery (`detect`) fills these from ingested turns; drafting (`draft`) turns them into a
//! SKILL.md. Neither side imports the other for them. Every string here that came from a
//! transcript has already had its secrets replaced by placeholders (`text::redact`), but is still
//! untrusted: drafts quote it, never obey it.

use serde::{Deserialize, Serialize};

pub mod candidates;

pub use candidates::{CandidateEvidence, Candidates, EvidenceKind, Recorded, SequenceTally};

/// What kind of work a step is, by the tool that did it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A shell command (Claude `Bash`, Codex `exec_command` / `shell` / `local_shell`).
    Shell,
    /// Reading or changing a file (Read, Edit, Write, apply_patch, ...).
    File,
    /// A tool of an MCP server, by full name.
    Mcp,
    /// A subagent call, by its type.
    Subagent,
    /// Any other tool, by name.
    Other,
    /// The change the request asked for: plain source files edited between the workflow's
    /// steps (`observed` holds files edited). Never part of the workflow's identity.
    Change,
}

/// What a check step verifies, when it is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Build,
    Test,
    Lint,
    Format,
}

/// One step of a workflow, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowStep {
    /// The step's identity, never holding a value: `sh:git commit`, `file:Edit:Cargo.toml`,
    /// `file:Edit:*.rs`, `mcp:mcp__github__create_pull_request`, `agent:code-reviewer`.
    pub key: String,
    pub kind: StepKind,
    /// The tool that ran it (`Bash`, `Edit`, `exec_command`, ...).
    pub tool: String,
    /// The observed commands or targets with the parts that varied between sessions as
    /// placeholders: `git tag v<version>`, `bd close <id>`, `Edit Cargo.toml`.
    pub template: String,
    /// Up to three concrete observations (redacted), for the reader.
    pub observed: Vec<String>,
    pub check: Option<CheckKind>,
    /// Sessions (of the workflow's support) in which this step was seen.
    pub sessions: usize,
    /// Times (loop iterations and turns) it was seen in (0 in evidence recorded before loops).
    #[serde(default)]
    pub times: usize,
    /// Seen in fewer than all supporting sessions.
    pub optional: bool,
}

/// How a fix list marks the passing command of a failed step that was run differently the second
/// time (`git push` → `again:git push --set-upstream origin <branch>`).
pub const RERUN_AS: &str = "again:";

/// A step that failed in some session and what followed until it passed again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureFix {
    /// The failing step's template (`cargo test`).
    pub step: String,
    /// Sessions in which it failed at least once.
    pub sessions: usize,
    /// Step templates between the failure and the passing re-run (`Edit *.rs`).
    pub fixed_by: Vec<String>,
}

/// One session the workflow was seen in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sighting {
    pub session_key: String,
    pub project: Option<String>,
    pub turn_id: i64,
    pub at: Option<String>,
    pub success: bool,
}

/// Why the workflow is proposed, in numbers a reviewer can check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    /// Distinct sessions the workflow was seen in.
    pub support: usize,
    /// Times it was done: loop iterations and turns (0 in evidence recorded before loops).
    #[serde(default)]
    pub iterations: usize,
    /// The support threshold in force (`detect.min_sessions`).
    pub min_support: usize,
    /// 0..1: how far the steps are from what every turn of this agent does.
    pub specificity: f64,
    /// Steps that are not generic, by key.
    pub specific_steps: Vec<String>,
    /// The candidate's score (support x specificity), for ordering the queue.
    pub score: f64,
    /// One sentence for the console: "seen in 4 sessions of 3 projects; 3 specific steps
    /// (bd show, bd update, bd close)".
    pub summary: String,
    /// The kind of procedure the person already has that drives this work (`prompt-template`,
    /// `skill`, ...): such work is evidence, never drafted again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driven: Option<String>,
    /// Hosts, folders or files the work's runs in different sessions name and the person rarely
    /// names otherwise: each weighs as a specific step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
}

/// Everything drafting needs to write a skill for one workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowEvidence {
    pub agent_id: String,
    pub steps: Vec<WorkflowStep>,
    /// The users' requests that started the workflow (redacted, opaque ones dropped).
    pub requests: Vec<String>,
    pub sightings: Vec<Sighting>,
    pub failures: Vec<FailureFix>,
    pub reason: Reason,
    pub first_seen: Option<String>,
    pub last_seen: Option<String>,
    /// What starts the work when its requests are a prompt template or a menu code rather than
    /// words: the slash command (`speckit.implement`) or the workflow file it loads
    /// (`_bmad/bmm/workflows/4-implementation/code-review/workflow.yaml`).
    #[serde(default)]
    pub trigger: Option<String>,
    /// The requests are failures the person pasted: the work is running the checks themselves.
    #[serde(default)]
    pub chore: bool,
    /// The agent's titles of the sessions (Claude Code's `ai-title`): what was asked, in words.
    #[serde(default)]
    pub titles: Vec<String>,
}

impl WorkflowEvidence {
    /// Times the work was done, as its reason says it (loop passes and turns; at least once a
    /// session): the one count the queue, `candidates` and the reason show.
    pub fn times(&self) -> usize {
        self.reason.iterations.max(self.reason.support)
    }

    /// The distinct sessions it was seen in, in order of sighting.
    pub fn sessions(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.sightings {
            if !out.contains(&s.session_key) {
                out.push(s.session_key.clone());
            }
        }
        out
    }

    /// Share of sightings whose turn succeeded.
    pub fn success_rate(&self) -> f64 {
        if self.sightings.is_empty() {
            return 0.0;
        }
        let ok = self.sightings.iter().filter(|s| s.success).count();
        ok as f64 / self.sightings.len() as f64
    }
}
