//! Pending turns handed to detection in batches, with each turn's order-free work done before
//! the walk that needs their order.

use std::sync::Arc;

use anyhow::Result;
use rusqlite::Connection;

use super::sequence::{self, Call, Skip, Step};
use super::walked::Seen;
use super::{Turn, as_calls, mine, requests, workflows};
use crate::ingest;
use crate::store::{cores, reader};
use crate::text::signature::{short_reply, task_signature};

/// A pending turn's work that needs no order: its signature (used unless it is a steering
/// reply), its calls, whether its prompt is a smoke test, and for a main-stream turn that is not
/// one, its calls as mining reads them and its own step sequence.
pub(super) struct Prepared {
    pub signature: String,
    /// The signature stored with the turn, as read.
    pub stored: Option<String>,
    pub calls: Vec<Call>,
    pub smoke: bool,
    pub mined: Option<(Arc<mine::Expanded>, mine::TurnSeq)>,
    /// A main-stream turn's prompt and last message as an exchange reads them, and whether the
    /// prompt is a short reply (`signature::short_reply`); `None` for a subagent's turn.
    pub main: Option<(Seen, bool)>,
    /// Its prompt is a command typed for the agent to run (`requests::command_key`, over the
    /// steps it ran); false for a turn not mined.
    pub typed: bool,
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
/// work done, and whether they were read ahead. Checked inside the batch's own transaction: a
/// turn another pass detected is no longer pending. `ahead`, read while the batch before was
/// walked, is taken when the next pending turns are still the ones it holds; otherwise the batch
/// is read now.
pub(super) fn next_batch(
    conn: &Connection,
    room: usize,
    min_sequence_len: usize,
    ahead: Option<Ahead>,
) -> Result<(Batch, bool)> {
    if let Some(ahead) = ahead
        && ingest::pending_turn_ids(conn, room)? == ahead.ids
    {
        return Ok((ahead.batch, true));
    }
    Ok((read_now(conn, room, min_sequence_len)?, false))
}

/// The next `room` pending turns, read and prepared now. The second half of a large batch is
/// prepared on a second thread while this one prepares the first. (With glibc's allocator that
/// was slower: its arenas made both threads' allocations dearer.)
fn read_now(conn: &Connection, room: usize, min_sequence_len: usize) -> Result<Batch> {
    let mut read = read_turns(conn, ingest::pending_turns(conn, room)?)?;
    let prepare_all = |part: Vec<(Turn, Vec<ingest::ToolCallRow>)>| -> Result<Batch> {
        part.into_iter().map(|item| prepare(item, min_sequence_len)).collect()
    };
    if read.len() < SPLIT_FROM || cores() < 2 {
        return prepare_all(read);
    }
    // Taken by the helper, or here when no thread could be started.
    let back = std::sync::Mutex::new(Some(read.split_off(read.len() / 2)));
    let take = || back.lock().map(|mut b| b.take().unwrap_or_default()).unwrap_or_default();
    let (front, back) = std::thread::scope(|s| {
        let helper = std::thread::Builder::new().spawn_scoped(s, || prepare_all(take()));
        let front = prepare_all(read);
        let back = match helper {
            Ok(helper) => helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => prepare_all(take()),
        };
        (front, back)
    });
    let mut batch = front?;
    batch.extend(back?);
    Ok(batch)
}

/// `turns` with their calls, read in one statement.
fn read_turns(
    conn: &Connection,
    turns: Vec<Turn>,
) -> Result<Vec<(Turn, Vec<ingest::ToolCallRow>)>> {
    let ids: Vec<i64> = turns.iter().map(|t| t.id).collect();
    let mut calls = ingest::tool_calls_of(conn, &ids)?;
    Ok(turns
        .into_iter()
        .map(|t| {
            let c = calls.remove(&t.id).unwrap_or_default();
            (t, c)
        })
        .collect())
}

/// A batch read and prepared ahead of the walk.
pub(super) struct Ahead {
    ids: Vec<i64>,
    batch: Batch,
}

/// A read-only connection to the database, for reading ahead.
pub(super) struct Reader(Connection);

/// Its page cache, KiB: the file's pages are in the system's cache, and the walk's connection
/// keeps the larger one.
const READER_CACHE_KIB: i64 = 256;

/// Batches the read-ahead may hold prepared, waiting for the walk, besides the one it is handing
/// over: some batches take longer to prepare than to walk (a turn with hundreds of calls), and
/// with one batch ahead the walk waited for them (a seventh of detection on the 1.5 GB tree).
const QUEUED: usize = 1;

/// The read-ahead under way: its batches in order, and its thread, which gives the connection
/// back when it stops.
pub(super) struct Reading {
    batches: std::sync::mpsc::Receiver<Ahead>,
    thread: std::thread::JoinHandle<Reader>,
}

impl Reading {
    /// The next batch read ahead; `None` once the read-ahead has stopped (no more turns, a
    /// short batch, a failed read).
    pub(super) fn next(&self) -> Option<Ahead> {
        self.batches.recv().ok()
    }

    /// Stops reading ahead (what was read is dropped) and gives the connection back.
    pub(super) fn stop(self) -> Option<Reader> {
        drop(self.batches);
        self.thread.join().ok()
    }
}

impl Reader {
    /// A second connection to the database at `path`; `None` where there is one core, or the
    /// database cannot be opened again (reading ahead is then skipped).
    pub(super) fn open(path: &std::path::Path) -> Option<Reader> {
        reader(path, READER_CACHE_KIB).map(Reader)
    }

    /// Reads and prepares, on a thread of its own, the pending turns after `current` (the batch
    /// about to be walked), batch after batch, `room(done)` turns each once `done` are walked
    /// or read (`done` counts `current`), until a batch is short or room is none. The walk takes
    /// each only if it holds the next pending turns then. `None` when no thread could be
    /// started (the walk then reads each batch itself).
    pub(super) fn read_ahead(
        self,
        current: Vec<i64>,
        mut done: usize,
        room: impl Fn(usize) -> usize + Send + 'static,
        min_sequence_len: usize,
    ) -> Option<Reading> {
        let (send, batches) = std::sync::mpsc::sync_channel(QUEUED);
        let read = move || {
            let Reader(mut conn) = self;
            // The batches read that may still be pending: those sent and not taken, the one the
            // walk holds, and those walked since the walk last committed.
            let mut unwalked = std::collections::VecDeque::from([current]);
            loop {
                let room = room(done);
                if room == 0 {
                    break;
                }
                let Ok(Some(ahead)) = read_after(&mut conn, &mut unwalked, room, min_sequence_len)
                else {
                    break;
                };
                let full = ahead.ids.len() == room;
                done += ahead.ids.len();
                unwalked.push_back(ahead.ids.clone());
                if send.send(ahead).is_err() || !full {
                    break;
                }
            }
            Reader(conn)
        };
        let thread =
            std::thread::Builder::new().name("detect-read-ahead".into()).spawn(read).ok()?;
        Some(Reading { batches, thread })
    }
}

/// The `room` pending turns after those of `unwalked`, read in one transaction and prepared.
/// The batches still pending are the head of the queue: the turns after them are read from
/// that offset. A batch the walk has committed is out of the queue, and out of `unwalked` once
/// seen so. When another writer put a turn among them, none are read (the walk then reads its
/// batch itself).
fn read_after(
    conn: &mut Connection,
    unwalked: &mut std::collections::VecDeque<Vec<i64>>,
    room: usize,
    min_sequence_len: usize,
) -> Result<Option<Ahead>> {
    // One read transaction: the turns and their calls from the same snapshot.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)?;
    let held: usize = unwalked.iter().map(Vec::len).sum();
    let queued = ingest::pending_turn_ids(&tx, held + room)?;
    let in_queue: std::collections::HashSet<i64> = queued.iter().copied().collect();
    // Walked and committed: none of its turns is pending any more.
    while unwalked.front().is_some_and(|b| !b.iter().any(|id| in_queue.contains(id))) {
        unwalked.pop_front();
    }
    let skip: std::collections::HashSet<i64> = unwalked.iter().flatten().copied().collect();
    let head = queued.iter().take_while(|id| skip.contains(id)).count();
    let after = ingest::pending_turns_from(&tx, head, room)?;
    if after.is_empty() || after.iter().any(|t| skip.contains(&t.id)) {
        return Ok(None);
    }
    let ids: Vec<i64> = after.iter().map(|t| t.id).collect();
    let read = read_turns(&tx, after)?;
    tx.finish()?;
    let batch =
        read.into_iter().map(|item| prepare(item, min_sequence_len)).collect::<Result<_>>()?;
    Ok(Some(Ahead { ids, batch }))
}

fn prepare(
    (mut turn, rows): (Turn, Vec<ingest::ToolCallRow>),
    min_len: usize,
) -> Result<(Turn, Prepared)> {
    let smoke = sequence::is_smoke_test(&turn.user_input);
    let calls = as_calls(&rows);
    let mined = (!turn.is_sidechain && !smoke).then(|| {
        let expanded = mine::expand(&workflows::as_raw_calls(rows));
        let own = mine::sequence_of(&[&expanded]);
        (Arc::new(expanded), own)
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
    let main = (!turn.is_sidechain).then(|| {
        (Seen::of(&turn.user_input, turn.summary.as_deref()), short_reply(&turn.user_input))
    });
    let typed = mined
        .as_ref()
        .is_some_and(|(_, own)| requests::command_key(&turn.user_input, &own.all_keys).is_some());
    // Stored with the turn by the parse; a database from before that has none for it.
    let stored = turn.signature.take();
    let signature = stored.clone().unwrap_or_else(|| task_signature(&turn.user_input));
    let prepared =
        Prepared { signature, stored, calls, smoke, mined, main, typed, sequences, polling_runs };
    Ok((turn, prepared))
}
