//! Pending turns handed to detection in batches, with each turn's order-free work done before
//! the walk that needs their order.

use anyhow::Result;
use rusqlite::Connection;

use super::sequence::{self, Call, Skip, Step};
use super::{Turn, as_calls, mine, workflows};
use crate::ingest;
use crate::text::signature::task_signature;

/// A pending turn's work that needs no order: its signature (used unless it is a steering
/// reply), its calls, whether its prompt is a smoke test, and for a main-stream turn that is not
/// one, its calls as mining reads them and its own step sequence.
pub(super) struct Prepared {
    pub signature: String,
    pub calls: Vec<Call>,
    pub smoke: bool,
    pub mined: Option<(Vec<mine::RawCall>, mine::TurnSeq)>,
    /// Unless it is a smoke test: the tool sequences it ran and the runs of one tool repeated
    /// (polling) left out of them.
    pub sequences: Vec<Found>,
    pub polling_runs: u64,
}

/// A tool sequence a turn ran: its steps, their hash and their JSON as a sighting stores it.
pub(super) struct Found {
    pub steps: Vec<Step>,
    pub hash: String,
    pub json: String,
}

/// Turns in detection order, each with its prepared work.
pub(super) type Batch = Vec<(Turn, Prepared)>;

/// Fewest turns worth handing half of to a second thread.
const SPLIT_FROM: usize = 64;

/// The next `room` pending turns, in detection order, with their calls, each turn's order-free
/// work done. Read inside the batch's own transaction: a turn another pass detected is no
/// longer pending. The second half of a large batch is prepared on a second thread while this
/// one prepares the first: the walk after it runs on one thread and leaves the other core idle.
/// (With glibc's allocator that was slower: its arenas made both threads' allocations dearer.)
pub(super) fn next_batch(conn: &Connection, room: usize, min_sequence_len: usize) -> Result<Batch> {
    let turns = ingest::pending_turns(conn, room)?;
    let ids: Vec<i64> = turns.iter().map(|t| t.id).collect();
    let mut calls = ingest::tool_calls_of(conn, &ids)?;
    let mut read: Vec<(Turn, Vec<ingest::ToolCallRow>)> = turns
        .into_iter()
        .map(|t| {
            let c = calls.remove(&t.id).unwrap_or_default();
            (t, c)
        })
        .collect();
    let prepare_all = |part: Vec<(Turn, Vec<ingest::ToolCallRow>)>| -> Result<Batch> {
        part.into_iter().map(|item| prepare(item, min_sequence_len)).collect()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if read.len() < SPLIT_FROM || cores < 2 {
        return prepare_all(read);
    }
    let back = read.split_off(read.len() / 2);
    let (front, back) = std::thread::scope(|s| {
        let helper = s.spawn(|| prepare_all(back));
        (prepare_all(read), helper.join())
    });
    let mut batch = front?;
    batch.extend(back.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?);
    Ok(batch)
}

fn prepare(
    (turn, rows): (Turn, Vec<ingest::ToolCallRow>),
    min_len: usize,
) -> Result<(Turn, Prepared)> {
    let smoke = sequence::is_smoke_test(&turn.user_input);
    let calls = as_calls(&rows);
    let mined = (!turn.is_sidechain && !smoke).then(|| {
        let raw = workflows::as_raw_calls(rows);
        let own = mine::turn_sequence(&raw);
        (raw, own)
    });
    let (mut sequences, mut polling_runs) = (Vec::new(), 0);
    if !smoke {
        let (found, skipped) = sequence::sequences(&calls, min_len);
        polling_runs = skipped.iter().filter(|s| **s == Skip::OneTool).count() as u64;
        for steps in found {
            let (hash, json) = (sequence::hash(&steps), serde_json::to_string(&steps)?);
            sequences.push(Found { steps, hash, json });
        }
    }
    let signature = task_signature(&turn.user_input);
    Ok((turn, Prepared { signature, calls, smoke, mined, sequences, polling_runs }))
}
