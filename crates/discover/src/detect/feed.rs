//! Pending turns handed to detection in batches, each turn's order-free work done: another
//! thread does the next batch's text work while detection walks this one.

use anyhow::Result;
use rusqlite::Connection;

use super::sequence::{self, Call, Skip, Step};
use super::{Turn, as_calls, mine, workflows};
use crate::ingest;
use crate::store::Store;
use crate::text::signature::task_signature;

/// A pending turn's work that needs no order: its signature (used unless it is a steering
/// reply), its calls, whether its prompt is a smoke test, and for a main-stream turn that is not
/// one, its calls as mining reads them and its own step sequence.
#[derive(Default)]
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

/// Calls `walk` with the batches of `ids` (`size` turns each), in order, and the store's
/// connection to write with. Each batch's rows are read on this thread; their text work is done
/// on another while `walk` works on the batch before (the first batch is shared between both).
pub(super) fn each_batch(
    store: &mut Store,
    (ids, size): (&[i64], usize),
    min_sequence_len: usize,
    mut walk: impl FnMut(&mut Connection, Batch) -> Result<()>,
) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut chunks = ids.chunks(size);
    let Some(first) = chunks.next() else { return Ok(()) };
    if cores < 2 {
        let mut batch = prepared(read(store.conn(), first)?, min_sequence_len, 1)?;
        for chunk in chunks {
            walk(store.conn_mut(), batch)?;
            batch = prepared(read(store.conn(), chunk)?, min_sequence_len, 1)?;
        }
        return walk(store.conn_mut(), batch);
    }
    let mut batch = prepared(read(store.conn(), first)?, min_sequence_len, 2)?;
    std::thread::scope(|scope| {
        for chunk in chunks {
            let rows = read(store.conn(), chunk)?;
            let next = scope.spawn(move || prepared(rows, min_sequence_len, 1));
            walk(store.conn_mut(), batch)?;
            batch = next.join().map_err(|_| anyhow::anyhow!("a detection thread panicked"))??;
        }
        walk(store.conn_mut(), batch)
    })
}

/// Turns `ids` (those still there) and their calls.
fn read(conn: &Connection, ids: &[i64]) -> Result<Vec<(Turn, Vec<ingest::ToolCallRow>)>> {
    let mut rows = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Some(turn) = ingest::pending_turn(conn, id)? {
            let calls = ingest::tool_calls(conn, id)?;
            rows.push((turn, calls));
        }
    }
    Ok(rows)
}

/// Each turn's text work, on `threads` threads (at most two).
fn prepared(
    mut rows: Vec<(Turn, Vec<ingest::ToolCallRow>)>,
    min_len: usize,
    threads: usize,
) -> Result<Batch> {
    let one = |row| prepare(row, min_len);
    if threads < 2 || rows.len() < 16 {
        return rows.into_iter().map(one).collect();
    }
    let rest = rows.split_off(rows.len() / 2);
    let (first, second) = std::thread::scope(|scope| {
        let later = scope.spawn(|| rest.into_iter().map(one).collect::<Result<Batch>>());
        let first = rows.into_iter().map(one).collect::<Result<Batch>>();
        (first, later.join())
    });
    let mut all = first?;
    all.extend(second.map_err(|_| anyhow::anyhow!("a detection thread panicked"))??);
    Ok(all)
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
