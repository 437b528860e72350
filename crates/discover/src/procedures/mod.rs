//! Procedures the person already has: what drives a run of repeated work when it is not the
//! person's own hands. A slash command or a prompt template expanded as the request, a prompt a
//! daemon or script says word for word, a skill the agent invoked, read or was asked to write, a
//! framework workflow picked from a loaded menu, a loop that starts the agent with a prompt file.
//!
//! Each is recognised from the history as stored (requests, tool calls, sessions), listed with its
//! runs and outcomes, and never drafted again as a new skill: the work it drives stays evidence.

mod history;
mod recognise;

use std::collections::{BTreeMap, HashSet};

use anyhow::Result;
use rusqlite::Connection;
use serde::Serialize;

pub use crate::detect::driven::Kind;
pub use history::{History, follow_up_key};

/// A request the person keeps adding after a procedure's runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FollowUp {
    pub request: String,
    pub sessions: usize,
}

/// One procedure and what its runs show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Procedure {
    pub name: String,
    pub kind: Kind,
    pub agent: String,
    /// Where it is defined, when the history shows it (a SKILL.md, a workflow file, a folder).
    pub defined_at: Option<String>,
    /// The command it runs first or is loaded with, when the history shows one.
    pub command: Option<String>,
    /// Its title or its prompt, when short enough to quote.
    pub prompt: Option<String>,
    /// Sessions with a run.
    pub runs: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub last_run: Option<String>,
    /// What the person keeps asking right after a run, in two sessions or more.
    pub follow_ups: Vec<FollowUp>,
}

/// Every procedure the history shows, for one agent or all, most runs first.
pub fn list(conn: &Connection, agent: Option<&str>) -> Result<Vec<Procedure>> {
    let history = History::load(conn, agent)?;
    let mut out = recognise::all(&history);
    out.sort_by(|a, b| b.runs.cmp(&a.runs).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}

/// Runs seen for one procedure: turn ids with their session, outcome and time.
#[derive(Default)]
pub(crate) struct Runs {
    turns: Vec<i64>,
    sessions: BTreeMap<String, (bool, Option<String>)>,
}

impl Runs {
    pub(crate) fn add(&mut self, turn: &history::Turn) {
        self.turns.push(turn.id);
        let entry = self.sessions.entry(turn.session.clone()).or_insert((true, None));
        entry.0 &= !turn.failed;
        if turn.at > entry.1 {
            entry.1.clone_from(&turn.at);
        }
    }

    pub(crate) fn sessions(&self) -> usize {
        self.sessions.len()
    }

    pub(crate) fn into_procedure(
        self,
        history: &History,
        name: String,
        kind: Kind,
        agent: &str,
    ) -> Procedure {
        let succeeded = self.sessions.values().filter(|(ok, _)| *ok).count();
        let last_run = self.sessions.values().filter_map(|(_, at)| at.clone()).max();
        let follow_ups = history.follow_ups(&self.turns);
        Procedure {
            name,
            kind,
            agent: agent.to_string(),
            defined_at: None,
            command: None,
            prompt: None,
            runs: self.sessions.len(),
            succeeded,
            failed: self.sessions.len() - succeeded,
            last_run,
            follow_ups,
        }
    }
}

/// Names made unique in one list: a second procedure of the same name gets `-2`.
pub(crate) fn unique_names(list: &mut [Procedure]) {
    let mut seen: HashSet<String> = HashSet::new();
    for p in list.iter_mut() {
        let mut name = p.name.clone();
        let mut n = 2;
        while !seen.insert(format!("{}\u{0}{name}", p.agent)) {
            name = format!("{}-{n}", p.name);
            n += 1;
        }
        p.name = name;
    }
}
