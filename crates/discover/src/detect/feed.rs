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

/// The batch after the one being walked, read and prepared on a second connection and thread.
pub(super) struct Ahead {
    ids: Vec<i64>,
    batch: Batch,
}

/// A read-only connection to the database, for reading ahead.
pub(super) struct Reader(Connection);

/// Its page cache, KiB: the file's pages are in the system's cache, and the walk's connection
/// keeps the larger one.
const READER_CACHE_KIB: i64 = 256;

impl Reader {
    /// A second connection to the database at `path`; `None` where there is one core, or the
    /// database cannot be opened again (reading ahead is then skipped).
    pub(super) fn open(path: &std::path::Path) -> Option<Reader> {
        reader(path, READER_CACHE_KIB).map(Reader)
    }

    /// Reads and prepares, on a thread of its own, the `room` pending turns after `current`
    /// (the batch about to be walked). Gives the connection back with them, or with none when
    /// the read failed; the walk takes them only if they are still the next pending turns.
    /// `None` when no thread could be started.
    pub(super) fn read_ahead(
        self,
        current: Vec<i64>,
        room: usize,
        min_sequence_len: usize,
    ) -> Option<std::thread::JoinHandle<(Reader, Option<Ahead>)>> {
        let read = move || {
            let Reader(mut conn) = self;
            let ahead = read_after(&mut conn, &current, room, min_sequence_len).ok().flatten();
            (Reader(conn), ahead)
        };
        // No thread, no reading ahead: the walk reads each batch itself.
        std::thread::Builder::new().name("detect-read-ahead".into()).spawn(read).ok()
    }
}

fn read_after(
    conn: &mut Connection,
    current: &[i64],
    room: usize,
    min_sequence_len: usize,
) -> Result<Option<Ahead>> {
    // One read transaction: the turns and their calls from the same snapshot.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)?;
    // Before the walk commits, `current` is still pending here; after, it is not.
    let mut after = ingest::pending_turns(&tx, current.len() + room)?;
    let current: std::collections::HashSet<i64> = current.iter().copied().collect();
    after.retain(|t| !current.contains(&t.id));
    after.truncate(room);
    if after.is_empty() {
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
