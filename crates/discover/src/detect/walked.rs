//! What the walk keeps of each turn it walked, so that a later turn of the same session judges
//! it as an earlier turn (where a task's investigation began, whether the agent was asking
//! something) without reading it back and mining its calls again. Sessions run side by side
//! (an orchestrator's agents, parallel terminals), so a session's turn before may be thousands
//! of turns back in the walk's order: these few flags are kept for many more turns than the
//! calls `Recent` keeps. A turn not kept is read from the database and judged the same way.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use anyhow::Result;
use rusqlite::Connection;

use super::{mine, requests, sequence};
use crate::ingest;
use crate::step;
use crate::text::signature::{asks, is_steering};

/// How an earlier turn stands in an exchange with the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Seen {
    /// The agent's last message in it asks the user something.
    pub asked: bool,
    /// Whether its prompt steers: when nothing was asked before it, and when something was.
    steers: [bool; 2],
}

impl Seen {
    pub fn of(user_input: &str, summary: Option<&str>) -> Seen {
        Seen {
            asked: summary.is_some_and(asks),
            steers: [is_steering(user_input, false), is_steering(user_input, true)],
        }
    }

    /// Whether its prompt steers the task, given whether the turn before asked or steered.
    pub fn steering(&self, before: bool) -> bool {
        self.steers[usize::from(before)]
    }
}

/// How an earlier turn stands at the start of a later task: whether the walk back to where the
/// task's investigation began goes past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lead {
    /// The walk stops at it: a smoke test, a turn that changed something, used a skill, or did
    /// work enough to stand alone.
    Ends,
    /// The walk may go past it. `typed`: its prompt is a command typed for the agent to run (it
    /// asks for work even as a reply). `prepared`: it did a little or only looked (it may open
    /// the task); otherwise it did nothing at all.
    Passes { typed: bool, prepared: bool },
}

impl Lead {
    /// A main-stream turn's standing (not a smoke test's), from its own step sequence and
    /// whether its prompt is a command typed for the agent to run (`requests::command_key`).
    pub fn of(seq: &mine::TurnSeq, typed: bool) -> Lead {
        // A turn that edited files changed something, whatever else it ran.
        if seq.steps.is_empty() && seq.all_keys.iter().any(|k| k.starts_with("file:Edit:")) {
            return Lead::Ends;
        }
        // A skill used does a whole procedure: that turn stood alone.
        if seq.steps.iter().any(|o| o.0.starts_with("skill:")) {
            return Lead::Ends;
        }
        let prepared = !seq.steps.is_empty();
        if prepared {
            let work: Vec<&str> = seq.keys();
            let small = work.len() < 2;
            let looked = work.len() == seq.steps.len() && work.iter().all(|k| step::only_looks(k));
            if !(small || looked) {
                return Lead::Ends;
            }
        }
        Lead::Passes { typed, prepared }
    }
}

/// An earlier turn of a session, as kept or read back.
pub(super) struct Earlier {
    pub id: i64,
    pub seen: Seen,
    lead: Option<Lead>,
    /// Its prompt, when it was read back.
    user_input: Option<String>,
}

impl Earlier {
    /// Its standing at the start of a later task, mined again when it was not kept.
    pub fn lead(&self, conn: &Connection) -> Result<Lead> {
        if let Some(lead) = self.lead {
            return Ok(lead);
        }
        let text = self.user_input.as_deref().unwrap_or_default();
        if sequence::is_smoke_test(text) {
            return Ok(Lead::Ends);
        }
        let seq = mine::turn_sequence(&super::workflows::load_calls(conn, self.id)?);
        let typed = requests::command_key(text, &seq.all_keys).is_some();
        Ok(Lead::of(&seq, typed))
    }

    /// Its prompt, read back when it was not.
    pub fn user_input(&self, conn: &Connection) -> Result<String> {
        if let Some(text) = &self.user_input {
            return Ok(text.clone());
        }
        let mut read = ingest::earlier_turns(conn, &[self.id])?;
        Ok(read.remove(&self.id).map(|(_, t)| t.user_input).unwrap_or_default())
    }
}

enum Kept {
    /// A subagent's turn: never an earlier turn of the session.
    Side,
    Main(Seen, Lead),
}

/// Values by turn id: the latest `keep` turns inserted (the oldest go first).
pub(super) struct ByTurn<V> {
    values: HashMap<i64, V>,
    order: VecDeque<i64>,
    keep: usize,
}

impl<V> ByTurn<V> {
    pub fn new(keep: usize) -> Self {
        ByTurn { values: HashMap::new(), order: VecDeque::new(), keep }
    }

    pub fn insert(&mut self, turn: i64, value: V) {
        if self.values.insert(turn, value).is_none() {
            self.order.push_back(turn);
        }
        if self.order.len() > self.keep
            && let Some(old) = self.order.pop_front()
        {
            self.values.remove(&old);
        }
    }

    pub fn get(&self, turn: &i64) -> Option<&V> {
        self.values.get(turn)
    }
}

/// The turns walked lately, by id, and the turn ids of the sessions they belong to.
pub(super) struct Walked(ByTurn<Kept>, RefCell<Sessions>);

impl Default for Walked {
    fn default() -> Self {
        Walked(ByTurn::new(Self::KEEP), RefCell::default())
    }
}

/// Every turn id of the sessions whose earlier turns were asked for, read once a session: the
/// walk asks for a turn's session's earlier turns at nearly every turn, and reading the ids
/// from the session's index each time was a twentieth of the walk on the 1.5 GB tree. Read
/// again after another connection's commit (a turn may have been added).
#[derive(Default)]
struct Sessions {
    lists: Vec<Rc<Vec<i64>>>,
    /// Each turn id of the lists, with its list.
    of: HashMap<i64, usize>,
}

/// Turn ids kept in [`Sessions`] before all are dropped and read again.
const SESSION_IDS_KEPT: usize = 1 << 16;

impl Sessions {
    fn ids(&mut self, conn: &Connection, turn: i64) -> Result<Rc<Vec<i64>>> {
        if let Some(&at) = self.of.get(&turn) {
            return Ok(self.lists[at].clone());
        }
        if self.of.len() >= SESSION_IDS_KEPT {
            *self = Sessions::default();
        }
        let ids = Rc::new(ingest::session_turn_ids(conn, turn)?);
        let at = self.lists.len();
        for &id in ids.iter() {
            self.of.insert(id, at);
        }
        self.lists.push(ids.clone());
        Ok(ids)
    }
}

/// Fewest earlier turns looked at at a time (those not kept are read back together).
const IDS_AT_A_TIME: usize = 8;

impl Walked {
    /// Turns kept: a few bytes each.
    const KEEP: usize = 16_384;

    /// Another connection committed: the sessions' turn ids are read again.
    pub fn changed_elsewhere(&self) {
        *self.1.borrow_mut() = Sessions::default();
    }

    /// A subagent's turn walked.
    pub fn side(&mut self, id: i64) {
        self.0.insert(id, Kept::Side);
    }

    /// A main-stream turn walked, with its standing.
    pub fn main(&mut self, id: i64, seen: Seen, lead: Lead) {
        self.0.insert(id, Kept::Main(seen, lead));
    }

    /// Up to `limit` turns of turn `id`'s session before it, not a subagent's, latest first:
    /// their ids from the session's index, the rest from what is kept where it can.
    pub fn earlier(&self, conn: &Connection, id: i64, limit: usize) -> Result<Vec<Earlier>> {
        let mut out = Vec::new();
        let session = self.1.borrow_mut().ids(conn, id)?;
        let mut before = session[..session.partition_point(|&t| t < id)].iter().rev();
        let at_a_time = limit.max(IDS_AT_A_TIME);
        while out.len() < limit {
            let ids: Vec<i64> = before.by_ref().take(at_a_time).copied().collect();
            // Those not kept are read back together.
            let unknown: Vec<i64> =
                ids.iter().copied().filter(|prev| self.0.get(prev).is_none()).collect();
            let mut read = if unknown.is_empty() {
                Default::default()
            } else {
                ingest::earlier_turns(conn, &unknown)?
            };
            for &prev in &ids {
                let earlier = match self.0.get(&prev) {
                    Some(Kept::Side) => None,
                    Some(&Kept::Main(seen, lead)) => {
                        Some(Earlier { id: prev, seen, lead: Some(lead), user_input: None })
                    }
                    None => match read.remove(&prev) {
                        Some((false, t)) => Some(Earlier {
                            id: prev,
                            seen: Seen::of(&t.user_input, t.summary.as_deref()),
                            lead: None,
                            user_input: Some(t.user_input),
                        }),
                        _ => None,
                    },
                };
                out.extend(earlier);
                if out.len() == limit {
                    break;
                }
            }
            if ids.len() < at_a_time {
                break;
            }
        }
        Ok(out)
    }
}
