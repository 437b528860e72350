//! Transcript ingestion: Claude Code and Codex transcripts as they lie on disk, Claude Code's
//! stream-json output, and a native trajectory JSONL, read incrementally into sessions, turns,
//! tool calls and skill invocations.
//!
//! A run stats every file and reads only new bytes: from the offset stored by the previous run,
//! up to the last complete line. A file that shrank, or whose head changed, is read again from
//! the start. Files are parsed on worker threads; one writer stores each file's rows together
//! with its new offset, in few large transactions.

mod calls;
mod chunks;
mod claude;
mod codex;
mod files;
mod lenient;
mod memory;
mod native;
mod other;
mod parse;
mod pooled;
mod prompt;
mod queue;
mod scan;
mod sessions;
pub mod shape;
mod skill_use;
mod stream;
mod turn;
mod turns;
mod usage;
mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde::Serialize;

pub use calls::{ToolCallRow, session_calls, tool_calls, tool_calls_of, tool_set};
pub use files::{Format, IDLE_CLOSE};
pub use memory::{RunTranscript, read_transcript};
pub use parse::{MAX_PROBLEMS_PER_FILE, Problem};
pub use pooled::{PooledCall, PooledTurn, PooledWriter};
pub use queue::{
    PendingTurn, pending_session_ids, pending_turn_ids, pending_turns, pending_turns_from,
};
pub use sessions::session_titles;
pub use turns::{
    EarlierTurn, SessionTurn, SignedTurn, TurnForTeam, TurnRun, TurnSteps, earlier_turns,
    literal_elsewhere, max_turn_id, session_turn_ids, session_turns, session_turns_without_calls,
    sessions_asking_as, signed_turns, turn_runs, turn_steps_since, turns_after, turns_asking,
    turns_with_step,
};
pub use write::mark_detected;

use crate::store::{cores, rusqlite, rusqlite::TransactionBehavior};
use crate::workspace::Workspace;
use files::{FileRead, Job, Target};

/// Commit after this many bytes read, so a long first run keeps its progress if cut off.
const COMMIT_BYTES: u64 = 64 << 20;
/// A parser thread hands the writer its results after this many files or bytes.
const BATCH_FILES: usize = 32;
const BATCH_BYTES: u64 = 8 << 20;
/// SQLite page cache for an ingest run, in KiB. 6 MiB ran the whole ingest as fast as 24 MiB on
/// the 300 MB and 1.5 GB benchmark trees (alternated in one run: 1.39 against 1.39 s and 8.4
/// against 9.3 s median wall), with 12 and 20 MiB less peak memory (32 and 43 MiB).
const INGEST_CACHE_KIB: i64 = 6 * 1024;
/// Turns a run must read before it says that nothing in them can be mined.
const MIN_TURNS_TO_JUDGE: u64 = 3;
/// Problems kept in a report across all files.
const MAX_PROBLEMS: usize = 200;

/// Files a parser thread read, for the writer to store and hand back.
struct Batch {
    worker: usize,
    /// Each read with its file's place in the run's order.
    reads: Vec<(usize, FileRead)>,
}

/// How far a run has got, for progress bars: files with new bytes to read (unchanged files are
/// not counted) and those bytes. Reported once before reading and after each file is stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Progress {
    pub files_done: u64,
    pub files_total: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// What one run found. Counts are of what this run newly read or stored, except `files`
/// (transcript files seen, changed or not).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestReport {
    /// Transcript files seen.
    pub files: u64,
    /// Files with new bytes that were read.
    pub files_read: u64,
    /// Files that shrank or were replaced, and were read again from the start.
    pub files_reset: u64,
    /// Files with no bytes at all.
    pub empty_files: u64,
    pub bytes_read: u64,
    /// Complete lines read.
    pub lines: u64,
    /// Sessions first stored by this run.
    pub sessions: u64,
    /// Turns first stored by this run.
    pub turns: u64,
    /// Turns left open by an earlier run and continued by this one (same id).
    pub turns_updated: u64,
    pub tool_calls: u64,
    /// Tool calls newly marked as errors.
    pub tool_errors: u64,
    pub skill_invocations: u64,
    /// Lines that are not JSON objects with a `type` (or, native, without `user_input`/`outcome`).
    pub bad_lines: u64,
    /// Lines whose `type` this reader does not know: skipped.
    pub unknown_lines: u64,
    /// Files in another agent's format (SWE-agent, OpenHands), skipped; each format is named
    /// once among the problems.
    pub unsupported_files: u64,
    /// Three turns or more were read, and none of them has a prompt or a command that is not
    /// only redaction markers: detection has nothing to learn from.
    pub nothing_to_mine: bool,
    /// The first problems of each file (path, 1-based line, reason); all are counted above.
    pub problems: Vec<Problem>,
}

/// Ingests `paths` (files or folders; empty means the workspace's transcript roots). A file
/// given by its path belongs to the agent its content names: a Codex rollout to the Codex agent
/// (`codex.agent_id`), any other transcript to the config's `agent_id`.
pub fn run(
    ws: &mut Workspace,
    paths: &[PathBuf],
    progress: &mut dyn FnMut(&Progress),
) -> Result<IngestReport> {
    run_with_threads(ws, paths, None, None, progress)
}

/// Like `run`, with `agent` owning the transcripts under explicit `paths`.
pub fn run_as(
    ws: &mut Workspace,
    paths: &[PathBuf],
    agent: &str,
    progress: &mut dyn FnMut(&Progress),
) -> Result<IngestReport> {
    run_with_threads(ws, paths, Some(agent), None, progress)
}

/// Like `run_as` (`run` when `agent` is `None`), parsing on `threads` worker threads (`None`:
/// the cores available, at most 4).
pub fn run_with_threads(
    ws: &mut Workspace,
    paths: &[PathBuf],
    agent: Option<&str>,
    threads: Option<usize>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<IngestReport> {
    let codex = ws.config.codex.agent_id.clone();
    let roots: Vec<Root> = if paths.is_empty() {
        ws.transcript_roots()
            .into_iter()
            .filter(|root| root.path.exists())
            .map(|root| Root {
                agent: ws.agent_for(&root),
                codex_agent: root.agent.is_none().then(|| codex.clone()),
                format: Format::parse(&root.format),
                path: root.path,
            })
            .collect()
    } else {
        let owner = agent.map_or_else(|| ws.config.agent_id.clone(), str::to_string);
        paths
            .iter()
            .map(|p| Root {
                path: p.clone(),
                agent: owner.clone(),
                codex_agent: agent.is_none().then(|| codex.clone()),
                format: None,
            })
            .collect()
    };
    ingest_roots(ws, roots, threads, progress)
}

/// A path to walk, with the agent owning what is under it and its format.
struct Root {
    path: PathBuf,
    agent: String,
    /// The agent a Codex rollout under it belongs to, when no agent was named for it.
    codex_agent: Option<String>,
    format: Option<Format>,
}

/// What the walk planned: the files it saw and the problems it met, in the walk's order.
#[derive(Default)]
struct Plan {
    files: u64,
    empty_files: u64,
    unsupported_files: u64,
    problems: Vec<Problem>,
    /// Files with new bytes, and those bytes.
    jobs: u64,
    bytes: u64,
}

/// Walks `roots` on a thread of its own and hands each file with new bytes to the parser
/// threads as the walk finds it (in the byte order of the paths, which is the order they are
/// stored in), so reading starts while the walk goes on; a tree of 16,393 files took a tenth of
/// a second to walk before the first file was read.
fn ingest_roots(
    ws: &mut Workspace,
    roots: Vec<Root>,
    threads: Option<usize>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<IngestReport> {
    let mut report = IngestReport::default();
    write::canonical_keys(ws.store.conn_mut()).context("rewriting file keys to canonical paths")?;
    let stored = write::load_stored(ws.store.conn()).context("reading ingested files")?;
    let workers = parse_threads(threads);
    let now = SystemTime::now();
    let stop = AtomicBool::new(false);
    let (planned, jobs) = mpsc::channel::<(usize, Job)>();
    let jobs = std::sync::Mutex::new(jobs);
    std::thread::scope(|scope| -> Result<()> {
        let walk = std::thread::Builder::new()
            .name("ingest-walk".into())
            .spawn_scoped(scope, || plan(roots, stored, planned, &stop))
            .context("starting the ingest walk")?;
        let (sender, receiver) = mpsc::sync_channel::<Batch>(8);
        let mut give_back = Vec::with_capacity(workers);
        for worker in 0..workers {
            let sender = sender.clone();
            let (back, stored) = mpsc::channel::<Vec<FileRead>>();
            give_back.push(back);
            let jobs = &jobs;
            // Results go to the writer in batches: fewer thread wake-ups than one per file.
            let parse = move || {
                let mut reads = Vec::new();
                let mut batch_bytes = 0;
                loop {
                    // Stored batches come back to be freed on the thread that allocated them:
                    // with glibc's per-thread arenas that is far cheaper than freeing on the
                    // writer, which would contend for this thread's arena lock.
                    while let Ok(done) = stored.try_recv() {
                        drop(done);
                    }
                    let next = jobs.lock().ok().and_then(|j| j.recv().ok());
                    let Some((i, job)) = next else { break };
                    let read = files::read(job, now);
                    batch_bytes += read.bytes_read;
                    reads.push((i, read));
                    if reads.len() >= BATCH_FILES || batch_bytes >= BATCH_BYTES {
                        batch_bytes = 0;
                        let batch = Batch { worker, reads: std::mem::take(&mut reads) };
                        if sender.send(batch).is_err() {
                            return;
                        }
                    }
                }
                if !reads.is_empty() {
                    let _ = sender.send(Batch { worker, reads });
                }
                drop(sender);
                // Until the writer is done: it drops its senders then.
                for done in stored {
                    drop(done);
                }
            };
            let started =
                std::thread::Builder::new().name("ingest-parse".into()).spawn_scoped(scope, parse);
            if let Err(e) = started {
                stop.store(true, Ordering::Relaxed);
                return Err(e).context("starting an ingest thread");
            }
        }
        drop(sender);
        // The files are stored once the walk is over: its problems come first in the report.
        let plan = match walk.join() {
            Ok(plan) => plan?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        report.files = plan.files;
        report.empty_files = plan.empty_files;
        report.unsupported_files = plan.unsupported_files;
        report.problems = plan.problems;
        let mut done = Progress {
            files_done: 0,
            files_total: plan.jobs,
            bytes_done: 0,
            bytes_total: plan.bytes,
        };
        progress(&done);
        if plan.jobs == 0 {
            return Ok(());
        }
        let result = store_all(ws, receiver.iter(), &give_back, &mut report, &mut done, progress);
        drop(give_back);
        if result.is_err() {
            // Stop the workers quickly: they end when their next send fails.
            drop(receiver);
        }
        result
    })?;
    Ok(report)
}

/// The walk of `roots`: each file seen once, those with new bytes sent to the parser threads as
/// jobs numbered in the walk's order. A file unchanged since `stored` is skipped, unless it holds
/// a turn left open that can now be closed because the file has gone quiet.
fn plan(
    roots: Vec<Root>,
    mut stored: foldhash::HashMap<String, files::Stored>,
    jobs: mpsc::Sender<(usize, Job)>,
    stop: &AtomicBool,
) -> Result<Plan> {
    let mut plan = Plan::default();
    let mut stat_problems = Vec::new();
    let mut seen = foldhash::HashSet::with_capacity_and_hasher(stored.len(), Default::default());
    let mut next = 0;
    let mut found = |target: Target| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        // `to_str` first: checking UTF-8 is cheaper than the lossy conversion's scan.
        let key = match target.path.to_str() {
            Some(path) => path.to_owned(),
            None => target.path.to_string_lossy().into_owned(),
        };
        if !seen.insert(key.clone()) {
            return;
        }
        plan.files += 1;
        let (size, mtime_ns) = match target.stat {
            Ok(stat) => stat,
            Err(ref reason) => {
                stat_problems.push(Problem { path: key, line: 0, reason: reason.clone() });
                return;
            }
        };
        if size == 0 {
            plan.empty_files += 1;
        }
        let previous = stored.remove(&key);
        let unchanged = previous.as_ref().is_some_and(|s| s.size == size && s.mtime_ns == mtime_ns);
        if unchanged && !previous.as_ref().is_some_and(|s| s.has_open_turn() && quiet(mtime_ns)) {
            return;
        }
        plan.jobs += 1;
        plan.bytes += size.saturating_sub(previous.as_ref().map_or(0, |s| s.offset));
        // The parser threads have ended only when the pass failed: nothing more to send.
        let _ = jobs.send((next, Job { target, key, size, mtime_ns, stored: previous }));
        next += 1;
    };
    for root in &roots {
        let mut owned = |mut target: Target| {
            target.codex_agent.clone_from(&root.codex_agent);
            found(target);
        };
        plan.unsupported_files +=
            files::collect(&root.path, &root.agent, root.format, &mut owned, &mut plan.problems)?;
    }
    plan.problems.append(&mut stat_problems);
    Ok(plan)
}

/// Stores one file's read; false when it was not stored (its read failed, or another run
/// stored the file meanwhile: both reported).
fn store_one(
    tx: &rusqlite::Transaction,
    read: &mut FileRead,
    cache: &mut write::RunCache,
    report: &mut IngestReport,
) -> Result<bool> {
    if let Some(problem) = read.error.take() {
        report.unsupported_files += u64::from(read.unsupported);
        report.problems.push(problem);
        return Ok(false);
    }
    if !write::write_file(tx, read, cache, report)? {
        report.problems.push(Problem {
            path: read.key.clone(),
            line: 0,
            reason: "stored by another ingest run meanwhile; left to it".into(),
        });
        return Ok(false);
    }
    report.files_read += 1;
    report.files_reset += u64::from(read.reset);
    report.bytes_read += read.bytes_read;
    report.lines += read.output.lines_read;
    report.bad_lines += read.bad_lines;
    report.unknown_lines += read.unknown_lines;
    for p in read.output.problems.drain(..) {
        if report.problems.len() < MAX_PROBLEMS {
            report.problems.push(p);
        }
    }
    Ok(true)
}

fn quiet(mtime_ns: i64) -> bool {
    let modified = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(mtime_ns.max(0) as u64);
    SystemTime::now().duration_since(modified).is_ok_and(|age| age >= IDLE_CLOSE)
}

/// Parser threads: `threads`, else the cores available (at most 4).
fn parse_threads(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| cores().min(4)).max(1)
}

fn store_all(
    ws: &mut Workspace,
    batches: impl Iterator<Item = Batch>,
    give_back: &[mpsc::Sender<Vec<FileRead>>],
    report: &mut IngestReport,
    done: &mut Progress,
    progress: &mut dyn FnMut(&Progress),
) -> Result<()> {
    // For the run only, put back afterwards (the console's connection lives on):
    // - a page cache that holds the pages a first run keeps rewriting, so they do not spill and
    //   get read again;
    // - no per-row foreign-key checks: every row written references a row this run just looked
    //   up or inserted, and a file read again deletes its turns' tool calls itself (the pragma
    //   is a no-op inside a transaction, so it is set before the first one);
    // The write-ahead log is copied alongside (`Store::checkpoint_alongside`: a pass's, else
    // this run's own): SQLite's automatic checkpoint copied it at every commit that found it over
    // 1000 pages, on this thread, each time with the pages the run keeps rewriting.
    let settings = [("cache_size", -INGEST_CACHE_KIB), ("foreign_keys", 0)];
    let own = match ws.store.checkpoints_alongside() {
        true => None,
        false => Some(ws.store.checkpoint_alongside()?),
    };
    let stored = ws.store.with_settings(&settings, |conn| {
        store_in_transactions(conn, batches, give_back, report, done, progress)
    });
    let finished = own.map_or(Ok(()), |own| own.finish(&mut ws.store));
    stored?;
    finished
}

fn store_in_transactions(
    conn: &mut rusqlite::Connection,
    batches: impl Iterator<Item = Batch>,
    give_back: &[mpsc::Sender<Vec<FileRead>>],
    report: &mut IngestReport,
    done: &mut Progress,
    progress: &mut dyn FnMut(&Progress),
) -> Result<()> {
    let mut cache = write::RunCache::new();
    // IMMEDIATE: take the write lock up front, so the offset check in write_file holds.
    let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut uncommitted = 0u64;
    let mut minable = false;
    // Files are stored in the run's (sorted) order whatever thread read them first, so the same
    // transcripts get the same row ids, and detection the same order, on every run.
    let mut waiting: BTreeMap<usize, (usize, FileRead)> = BTreeMap::new();
    let mut next = 0;
    let mut back: Vec<Vec<FileRead>> = (0..give_back.len()).map(|_| Vec::new()).collect();
    for batch in batches {
        waiting.extend(batch.reads.into_iter().map(|(i, read)| (i, (batch.worker, read))));
        while let Some((worker, mut read)) = waiting.remove(&next) {
            next += 1;
            done.files_done += 1;
            done.bytes_done += read.bytes_read;
            let stored = store_one(&tx, &mut read, &mut cache, report)?;
            minable |= stored && read.minable;
            back[worker].push(read);
            if stored {
                uncommitted += back[worker].last().map_or(0, |r| r.bytes_read);
            }
            if uncommitted >= COMMIT_BYTES {
                tx.commit()?;
                tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                uncommitted = 0;
            }
            progress(done);
        }
        // A parser thread that has ended no longer takes them: they are freed here then.
        for (worker, reads) in back.iter_mut().enumerate().filter(|(_, r)| !r.is_empty()) {
            let _ = give_back[worker].send(std::mem::take(reads));
        }
    }
    tx.commit()?;
    // A few turns at least: one new turn with an image for a prompt and no command is not a
    // corpus with nothing in it.
    report.nothing_to_mine = report.turns + report.turns_updated >= MIN_TURNS_TO_JUDGE && !minable;
    Ok(())
}

/// The plan SQLite makes for `sql` (every parameter bound to 1), its steps joined: tests check
/// that a read walks the index it was written for.
#[cfg(test)]
fn query_plan(conn: &rusqlite::Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).expect("plan");
    let params = rusqlite::params_from_iter(std::iter::repeat_n(1, stmt.parameter_count()));
    let rows = stmt.query_map(params, |r| r.get::<_, String>(3)).expect("plan rows");
    rows.map(|r| r.expect("plan row")).collect::<Vec<_>>().join("; ")
}
