//! The part of the history procedures are recognised from: every main-thread turn's request,
//! session, outcome and time, and the tool calls of the turns a channel asks about.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use rusqlite::{Connection, params, params_from_iter};

use super::FollowUp;
use crate::ingest::Format;
use crate::model::Outcome;
use crate::text::signature::is_steering;

/// One turn as procedures read it.
#[derive(Debug, Clone)]
pub struct Turn {
    pub id: i64,
    pub agent: String,
    pub session: String,
    /// The session's source (`claude`, `stream-json`, `codex`, `native`); `None` for a word
    /// this skilldeck does not know.
    pub source: Option<Format>,
    pub project: Option<String>,
    pub request: String,
    pub failed: bool,
    pub at: Option<String>,
}

/// A tool call's step key and detail (the command or path).
#[derive(Debug, Clone)]
pub struct Call {
    pub step: String,
    pub detail: Option<String>,
}

pub struct History<'c> {
    conn: &'c Connection,
    /// Turns in session order, then in the order they were said.
    pub turns: Vec<Turn>,
    /// Each session's turns, as indexes into `turns`.
    pub by_session: BTreeMap<(String, String), Vec<usize>>,
    /// Each turn's index into `turns`, by id.
    by_id: HashMap<i64, usize>,
    agent: Option<String>,
}

impl<'c> History<'c> {
    pub fn load(conn: &'c Connection, agent: Option<&str>) -> Result<Self> {
        let mut stmt = conn.prepare(
            "SELECT t.id, t.agent_id, s.session_key, s.source, s.project, t.user_input,
                    t.outcome = ?2, COALESCE(t.ended_at, t.started_at, s.ended_at)
             FROM turns t JOIN sessions s ON s.id = t.session_id
             WHERE t.is_sidechain = 0 AND (?1 IS NULL OR t.agent_id = ?1)
             ORDER BY t.agent_id, s.session_key, t.id",
        )?;
        let turns = stmt
            .query_map(params![agent, Outcome::Failure], |r| {
                Ok(Turn {
                    id: r.get(0)?,
                    agent: r.get(1)?,
                    session: r.get(2)?,
                    source: Format::parse(r.get_ref(3)?.as_str()?),
                    project: r.get(4)?,
                    request: r.get(5)?,
                    failed: r.get(6)?,
                    at: r.get(7)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut by_session: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for (i, t) in turns.iter().enumerate() {
            by_session.entry((t.agent.clone(), t.session.clone())).or_default().push(i);
        }
        let by_id = turns.iter().enumerate().map(|(i, t)| (t.id, i)).collect();
        Ok(History { conn, turns, by_session, by_id, agent: agent.map(str::to_string) })
    }

    /// The tool calls of `turns`, in order, by turn id.
    pub fn calls(&self, turns: &[i64]) -> Result<HashMap<i64, Vec<Call>>> {
        let mut out: HashMap<i64, Vec<Call>> = HashMap::new();
        for chunk in turns.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let sql = format!(
                "SELECT turn_id, COALESCE(step, 'tool:' || name), detail FROM tool_calls
                 WHERE turn_id IN ({marks}) ORDER BY turn_id, ordinal"
            );
            let mut stmt = self.conn.prepare(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk), |r| {
                Ok((r.get::<_, i64>(0)?, Call { step: r.get(1)?, detail: r.get(2)? }))
            })?;
            for row in rows {
                let (turn, call) = row?;
                out.entry(turn).or_default().push(call);
            }
        }
        Ok(out)
    }

    /// Calls whose step or detail names a skill: `Skill` calls and any path to a `SKILL.md`.
    pub fn skill_calls(&self) -> Result<Vec<(i64, Call)>> {
        let mut stmt = self.conn.prepare(
            "SELECT c.turn_id, COALESCE(c.step, 'tool:' || c.name), c.detail
             FROM tool_calls c JOIN turns t ON t.id = c.turn_id
             WHERE t.is_sidechain = 0 AND (?1 IS NULL OR t.agent_id = ?1)
               AND (c.step LIKE 'skill:%' OR c.detail LIKE '%SKILL.md%')
             ORDER BY c.turn_id, c.ordinal",
        )?;
        let rows = stmt.query_map([&self.agent], |r| {
            Ok((r.get::<_, i64>(0)?, Call { step: r.get(1)?, detail: r.get(2)? }))
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    pub fn turn(&self, id: i64) -> Option<&Turn> {
        self.by_id.get(&id).map(|&i| &self.turns[i])
    }

    /// The first request said in each session that is not a steering reply: what opened it.
    pub fn openings(&self) -> impl Iterator<Item = &Turn> {
        self.by_session.values().filter_map(|ix| {
            ix.iter().map(|&i| &self.turns[i]).find(|t| !t.request.trim().is_empty())
        })
    }

    /// What the person asked next after each run, said after runs in two sessions or more.
    pub fn follow_ups(&self, runs: &[i64]) -> Vec<FollowUp> {
        let run_set: std::collections::HashSet<i64> = runs.iter().copied().collect();
        let mut said: BTreeMap<String, (String, std::collections::HashSet<&str>)> = BTreeMap::new();
        for ix in self.by_session.values() {
            for (n, &i) in ix.iter().enumerate() {
                if !run_set.contains(&self.turns[i].id) {
                    continue;
                }
                let next = ix[n + 1..].iter().map(|&j| &self.turns[j]).find(|t| {
                    let r = t.request.trim();
                    !r.is_empty() && !is_steering(r, false)
                });
                if let Some(next) = next.filter(|t| !run_set.contains(&t.id)) {
                    let key = follow_up_key(&next.request);
                    if key.is_empty() {
                        continue;
                    }
                    let quoted: String = next.request.trim().chars().take(160).collect();
                    said.entry(key)
                        .or_insert_with(|| (quoted, Default::default()))
                        .1
                        .insert(&next.session);
                }
            }
        }
        let mut out: Vec<FollowUp> = said
            .into_values()
            .filter(|(_, s)| s.len() >= 2)
            .map(|(request, s)| FollowUp { request, sessions: s.len() })
            .collect();
        out.sort_by(|a, b| b.sessions.cmp(&a.sessions).then_with(|| a.request.cmp(&b.request)));
        out.truncate(5);
        out
    }
}

/// A follow-up's words compared across sessions: lower case, values (words with digits) masked.
pub fn follow_up_key(request: &str) -> String {
    request
        .split_whitespace()
        .take(24)
        .map(
            |w| {
                if w.chars().any(|c| c.is_ascii_digit()) {
                    "#".to_string()
                } else {
                    w.to_lowercase()
                }
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}
