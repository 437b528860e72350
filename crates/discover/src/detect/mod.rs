//! Detection of repeated work: task-signature streaks, tool sequences recurring across sessions
//! and mined workflows. Each batch's evidence is handed to the candidates the pipeline gives the
//! run (`workflow::Candidates`: `draft`'s table and drafts); detection writes only its own tables.

//!
//! Owns the tables `signature_streaks` (`streak`), `sequence_sightings` (`sightings`) and the
//! workflow tables (`workflows`); reads turns through `ingest`.

mod blocks;
pub mod driven;
mod feed;
mod index;
mod literals;
mod loops;
pub mod memo;
pub mod mine;
pub mod requests;
pub mod sequence;
mod sightings;
pub mod spine;
pub mod template;
use crate::config;
use crate::ingest;
#[cfg(test)]
use crate::store::Store;
use crate::store::now_rfc3339;
use crate::text::signature;
use crate::workflow::{self, CandidateEvidence as Evidence, Candidates, EvidenceKind, Recorded};
use crate::workspace::Workspace;
mod streak;
mod walked;
pub mod workflows;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use anyhow::{Context, Result};
use rusqlite::Connection;
use serde::Serialize;

use feed::Prepared;
use sequence::{Call, Step};
pub use signature::{is_control_prompt, is_steering, task_signature};
use walked::{Earlier, Lead, Walked};

/// Turns handled per transaction.
const BATCH: usize = 500;

#[derive(Debug, Default, Clone, Serialize)]
pub struct DetectReport {
    pub turns_processed: u64,
    /// Turns whose signature came out empty (ignored by streaks).
    pub empty_signatures: u64,
    /// Control prompts ("continue", "yes", a lone slash command): never start or feed a streak.
    pub control_prompts: u64,
    /// Buckets a failure dropped.
    pub streaks_reset: u64,
    /// Streaks that reached the threshold and wrote a draft.
    pub streak_drafts: u64,
    /// Qualifying tool sequences seen in a session for the first time.
    pub sequences_seen: u64,
    /// Runs of one tool repeated (polling) that were not counted.
    pub polling_runs_skipped: u64,
    /// Turns whose prompt is a smoke test, left out of sequence detection.
    pub smoke_turns_skipped: u64,
    /// Turns placed in a mined workflow (they had at least two specific steps).
    pub workflow_turns: u64,
    /// Candidates recorded as evidence only (too few specific steps): not drafted, not queued.
    pub evidence_only: u64,
    pub candidates_created: u64,
    pub candidates_updated: u64,
    /// A bounded run (`run_limited`) stopped with turns still pending.
    pub turns_left: bool,
    /// Batches read and prepared on a second connection while the batch before was walked.
    pub batches_read_ahead: u64,
}

/// What a detection run did, for the pipeline's later stages: the candidates it recorded are in
/// the recorder it was given, with their drafts.
pub struct Detected {
    pub report: DetectReport,
    /// Candidates this run created or fed, in the order it touched them.
    pub touched: Vec<i64>,
}

use crate::ingest::PendingTurn as Turn;

/// Consumes pending turns (complete, not yet detected) in (ended_at, id) order, one transaction
/// per batch, over at most `limit` of them (oldest first; the rest stay pending for the next
/// run, and `turns_left` says whether any do: a hook stays quick on a long backlog). Records
/// candidates through `candidates` at the end of each batch. Running it again with nothing new
/// changes nothing.
pub fn run_limited(
    ws: &mut Workspace,
    limit: Option<usize>,
    candidates: &mut dyn Candidates,
) -> Result<Detected> {
    let mut run = Run {
        cfg: ws.config.detect.clone(),
        candidates,
        report: DetectReport::default(),
        touched: Vec::new(),
        memo: memo::Memo::default(),
        streaks: streak::Buckets::default(),
        recent: Recent::default(),
        walked: Walked::default(),
        ahead: ReadAhead {
            db: ws.store.path().map(std::path::Path::to_path_buf),
            limit,
            ..ReadAhead::default()
        },
    };
    let walked = walk(&mut run, ws.store.conn_mut(), limit);
    run.ahead.stop();
    walked?;
    Ok(Detected { report: run.report, touched: run.touched })
}

/// Batches walked in one transaction. Each batch is the unit of the walk's work (its candidates
/// are recorded at its end, whatever the transaction), so outputs do not depend on this; a commit
/// writes every page the batches changed, and the pages they share (candidates redrafted, the
/// tables' upper levels) once per commit: with a commit a batch, detection wrote 72.6 MB of log
/// for the 1.5 GB tree. Four hold the write lock about a quarter of a second at most there.
const BATCHES_PER_COMMIT: usize = 4;

/// Walks batches until none is left or `limit` turns were walked, committing every
/// [`BATCHES_PER_COMMIT`] batches and at the end.
fn walk(run: &mut Run<'_>, conn: &mut Connection, limit: Option<usize>) -> Result<()> {
    let mut tx = conn.transaction()?;
    let mut uncommitted = 0;
    loop {
        let room = room_after(limit, run.report.turns_processed as usize);
        if room == 0 {
            run.report.turns_left = !ingest::pending_turn_ids(&tx, 1)?.is_empty();
            break;
        }
        if !run.batch(&tx, room)? {
            break;
        }
        uncommitted += 1;
        if uncommitted == BATCHES_PER_COMMIT {
            tx.commit().context("committing detection batches")?;
            tx = conn.transaction()?;
            uncommitted = 0;
        }
    }
    tx.commit().context("committing detection batches")?;
    Ok(())
}

/// What a detection run carries from one batch to the next.
struct Run<'c> {
    cfg: config::DetectConfig,
    /// Where the evidence is recorded.
    candidates: &'c mut dyn Candidates,
    report: DetectReport,
    /// Candidates created or fed, in the order they were touched.
    touched: Vec<i64>,
    memo: memo::Memo,
    streaks: streak::Buckets,
    recent: Recent,
    walked: Walked,
    ahead: ReadAhead,
}

/// Reading the next batches ahead, on a second connection, while this one is walked: the walk
/// runs on one thread and reading and preparing a batch was a quarter of detection.
#[derive(Default)]
struct ReadAhead {
    /// The database file; none in memory, where there is no second connection.
    db: Option<std::path::PathBuf>,
    /// The most turns the run walks (`run_limited`'s limit).
    limit: Option<usize>,
    reader: Option<feed::Reader>,
    /// The read-ahead under way, which has the connection until it stops.
    running: Option<feed::Reading>,
}

/// The room of the batch after `done` turns, within `limit`.
fn room_after(limit: Option<usize>, done: usize) -> usize {
    limit.map_or(BATCH, |l| BATCH.min(l.saturating_sub(done)))
}

impl ReadAhead {
    /// The next batch read ahead, if one is under way and not over (once over, the connection
    /// comes back for the next read-ahead).
    fn next(&mut self) -> Option<feed::Ahead> {
        let ahead = self.running.as_ref()?.next();
        if ahead.is_none() {
            self.stop();
        }
        ahead
    }

    /// Stops reading ahead (the walk read its batch itself, or is over).
    fn stop(&mut self) {
        if let Some(running) = self.running.take() {
            self.reader = running.stop();
        }
    }

    /// Starts reading the turns after `batch` when it is full (more are likely pending) and none
    /// are being read ahead already; `done` turns walked or read so far, `batch` among them.
    fn start(&mut self, batch: &[i64], full: bool, done: usize, min_sequence_len: usize) {
        if !full || self.running.is_some() || room_after(self.limit, done) == 0 {
            return;
        }
        if self.reader.is_none() {
            self.reader = self.db.take().and_then(|db| feed::Reader::open(&db));
        }
        if let Some(reader) = self.reader.take() {
            let limit = self.limit;
            let room = move |done| room_after(limit, done);
            self.running = reader.read_ahead(batch.to_vec(), done, room, min_sequence_len);
        }
    }
}

impl Run<'_> {
    /// Walks the next `room` pending turns in transaction `tx`; false when none was left.
    fn batch(&mut self, tx: &Connection, room: usize) -> Result<bool> {
        let Run { cfg, candidates, report, touched, memo, streaks, recent, walked, ahead } = self;
        let cfg = &*cfg;
        let now = now_rfc3339();
        if streaks.check(tx)? {
            memo.changed_elsewhere();
            walked.changed_elsewhere();
        }
        let offered = ahead.next();
        let was_offered = offered.is_some();
        let (batch, was_ahead) = feed::next_batch(tx, room, cfg.min_sequence_len, offered)?;
        if was_offered && !was_ahead {
            // Another writer changed the queue: what is read ahead is not what comes next.
            ahead.stop();
        }
        if batch.is_empty() {
            return Ok(false);
        }
        report.batches_read_ahead += u64::from(was_ahead);
        let ids: Vec<i64> = batch.iter().map(|(t, _)| t.id).collect();
        let done = report.turns_processed as usize + batch.len();
        ahead.start(&ids, batch.len() == room, done, cfg.min_sequence_len);
        // The signatures to write: those that differ from the one stored with the turn.
        let mut signed: Vec<(i64, String)> = Vec::new();
        // Sequences seen in a new session in this batch, in first-seen order, with those sessions.
        let mut fresh: Vec<((String, String), Fresh)> = Vec::new();
        let mut fresh_at: HashMap<(String, String), usize> = HashMap::new();
        // Each workflow a turn of this batch joined, with those turns.
        let mut touched_workflows: BTreeMap<(String, i64), Vec<i64>> = BTreeMap::new();
        for (turn, prepared) in batch {
            let turn = &turn;
            let Prepared {
                signature,
                stored,
                calls,
                smoke,
                mined,
                main,
                typed,
                sequences,
                polling_runs,
            } = prepared;
            // A steering reply ("oui", "1", "CR") is part of the task before it, not a task.
            let earlier = if main.is_some_and(|(_, short)| short) {
                walked.earlier(tx, turn.id, MAX_STEERING_RUN)?
            } else {
                Vec::new()
            };
            let exchange = Exchange::of(&earlier);
            let steering = match main {
                None => {
                    walked.side(turn.id);
                    false
                }
                Some((seen, _)) => {
                    // A main-stream turn is mined unless it is a smoke test.
                    let lead = mined.as_ref().map_or(Lead::Ends, |(_, own)| Lead::of(own, typed));
                    walked.main(turn.id, seen, lead);
                    // A command typed for the agent to run (`gt enable`) asks for work, even as
                    // a reply.
                    !typed && seen.steering(exchange.answers(0))
                }
            };
            let signature = if steering { String::new() } else { signature };
            // Written with the batch: nothing in it reads a turn's mark or signature.
            if stored.as_deref() != Some(signature.as_str()) {
                signed.push((turn.id, signature.clone()));
            }
            report.turns_processed += 1;
            let mut joined: Option<i64> = None;
            if let Some((expanded, own)) = mined {
                workflows::count_steps(memo, &turn.agent_id, &own);
                let kept = MinedCalls { calls, expanded: expanded.clone(), seq: own.clone() };
                recent.insert(turn.id, kept);
                let unit = task_unit(
                    tx,
                    turn,
                    steering,
                    (&earlier, &exchange),
                    expanded,
                    (recent, walked),
                )?;
                // A turn that is its own task is mined once.
                let seq = if unit.turns.len() == 1 {
                    own
                } else {
                    mine::sequence_of(&unit.parts.iter().map(|p| &**p).collect::<Vec<_>>())
                };
                let mined = workflows::MinedTurn {
                    id: unit.head,
                    agent_id: &turn.agent_id,
                    session_key: &turn.session_key,
                    project: turn.project.as_deref(),
                    request: &unit.request,
                    asks: &unit.asks,
                    turns: &unit.turns,
                    at: turn.ended_at.as_deref(),
                    success: turn.success,
                };
                let ids = workflows::observe(
                    tx,
                    &mut *memo,
                    &**candidates,
                    &mined,
                    seq,
                    cfg.workflow_similarity,
                    &now,
                )?;
                if !ids.is_empty() {
                    report.workflow_turns += 1;
                }
                for &wid in &ids {
                    let turns = touched_workflows.entry((turn.agent_id.clone(), wid)).or_default();
                    for &t in &unit.turns {
                        if !turns.contains(&t) {
                            turns.push(t);
                        }
                    }
                }
                joined = ids.first().copied();
            }
            // A subagent's prompt is written by the parent agent, not asked by the user.
            if !turn.is_sidechain {
                if steering {
                    report.control_prompts += 1;
                } else if signature.is_empty() {
                    report.empty_signatures += 1;
                } else {
                    let mut ctx = Ctx { conn: tx, recent, candidates: &mut **candidates };
                    let id = observe_streak(
                        &mut ctx,
                        (memo, streaks),
                        cfg,
                        (turn, &signature),
                        joined,
                        report,
                    )?;
                    touched.extend(id);
                }
            }
            if smoke {
                report.smoke_turns_skipped += 1;
                continue;
            }
            report.polling_runs_skipped += polling_runs;
            for feed::Found { steps, hash, json } in sequences {
                let sighting = sightings::Sighting {
                    agent_id: &turn.agent_id,
                    hash: &hash,
                    session_key: &turn.session_key,
                    turn_id: turn.id,
                    user_input: clip(&turn.user_input),
                    tool_sequence: &json,
                    seen_at: &now,
                };
                if sightings::add(tx, &sighting)? {
                    report.sequences_seen += 1;
                    let key = (turn.agent_id.clone(), hash);
                    let at = match fresh_at.get(&key) {
                        Some(&at) => at,
                        None => {
                            fresh_at.insert(key.clone(), fresh.len());
                            fresh.push((key, Fresh { steps, sessions: Vec::new() }));
                            fresh.len() - 1
                        }
                    };
                    let input = clip(&turn.user_input).to_string();
                    fresh[at].1.sessions.push((turn.session_key.clone(), input));
                }
            }
        }
        ingest::mark_detected(tx, &ids, &signed)?;
        workflows::write_counts(tx, memo)?;
        streaks.write(tx, &now)?;
        let mut ctx = Ctx { conn: tx, recent, candidates: &mut **candidates };
        // Workflows first: a sequence row whose turns a proposed workflow holds stays evidence.
        // Lent to the judge while the memo is lent to the walk, and kept for the next batch.
        let facts = std::mem::take(&mut memo.facts);
        let judge = workflows::Judge {
            min_sessions: cfg.min_sessions,
            min_iterations: cfg.min_iterations,
            min_specific_steps: cfg.min_specific_steps,
            min_evidence: cfg.min_evidence,
            propose: cfg.specific_only,
            facts: &facts,
        };
        for ((agent, wid), turns) in touched_workflows {
            if let Some(id) =
                workflow_candidate(&mut ctx, &mut *memo, &agent, wid, &turns, &judge, &mut *report)?
            {
                touched.push(id);
            }
        }
        memo.facts = facts;
        for ((agent, hash), seen) in &fresh {
            if let Some(id) = sequence_candidate(&mut ctx, agent, hash, seen, cfg, &mut *report)? {
                touched.push(id);
            }
        }
        Ok(true)
    }
}

/// Longest run of steering replies walked back to find the request they steer.
const MAX_STEERING_RUN: usize = 64;

/// One task: a request and the steering replies after it, with all their calls in order.
struct TaskUnit {
    /// The request's turn: the task's identity in workflows.
    head: i64,
    request: String,
    /// The turns of the task, request first.
    turns: Vec<i64>,
    /// What each turn of the task said, in order: a command typed in any of them asks for it.
    asks: Vec<String>,
    /// Each turn's calls expanded, in the order of `turns`.
    parts: Vec<Arc<mine::Expanded>>,
}

/// The task `turn` belongs to: itself when it asks for something; for a steering reply, the
/// request before it (the latest earlier turn of the session that is not steering) and every
/// reply since. A session that opens with steering replies starts its task at the first one.
fn task_unit(
    conn: &Connection,
    turn: &Turn,
    steering: bool,
    (earlier, exchange): (&[Earlier], &Exchange),
    expanded: Arc<mine::Expanded>,
    (recent, walked): (&Recent, &Walked),
) -> Result<TaskUnit> {
    let alone = |part| TaskUnit {
        head: turn.id,
        request: turn.user_input.clone(),
        turns: vec![turn.id],
        asks: vec![turn.user_input.clone()],
        parts: vec![part],
    };
    if !steering {
        return lead_in(conn, alone(expanded), (recent, walked));
    }
    let mut chain: Vec<(i64, String)> = Vec::new();
    let mut head: Option<(i64, String)> = None;
    for (i, e) in earlier.iter().enumerate() {
        if exchange.replying[i] {
            chain.push((e.id, e.user_input(conn)?));
        } else {
            head = Some((e.id, e.user_input(conn)?));
            break;
        }
    }
    let Some(head) = head.or_else(|| chain.pop()) else {
        return lead_in(conn, alone(expanded), (recent, walked));
    };
    let mut unit = TaskUnit {
        head: head.0,
        request: head.1.clone(),
        turns: vec![head.0],
        asks: vec![head.1],
        parts: vec![recent.expanded(conn, head.0)?],
    };
    for (id, said) in chain.into_iter().rev() {
        unit.turns.push(id);
        unit.asks.push(said);
        unit.parts.push(recent.expanded(conn, id)?);
    }
    unit.turns.push(turn.id);
    unit.asks.push(turn.user_input.clone());
    unit.parts.push(expanded);
    lead_in(conn, unit, (recent, walked))
}

/// The calls, their expansion and own sequence of the turns this run mined last, by turn id: a
/// task that grows back over earlier turns, and a streak's examples, take them from here rather
/// than from the database again. Bounded (the oldest go first): a session's earlier turns were mostly mined
/// shortly before.
struct Recent(walked::ByTurn<MinedCalls>);

impl Default for Recent {
    fn default() -> Self {
        Recent(walked::ByTurn::new(Self::KEEP))
    }
}

/// A turn's calls as sequences read them, expanded as mining reads them, and its own step
/// sequence.
struct MinedCalls {
    calls: Vec<Call>,
    expanded: Arc<mine::Expanded>,
    seq: mine::TurnSeq,
}

impl Recent {
    /// Turns kept: 1,024 held 2.5 MiB more at the peak of a 302 MB ingest, with a batch read
    /// ahead beside the one walked.
    const KEEP: usize = 256;

    fn insert(&mut self, turn: i64, mined: MinedCalls) {
        self.0.insert(turn, mined);
    }

    fn get(&self, turn: &i64) -> Option<&MinedCalls> {
        self.0.get(turn)
    }

    /// Turn `id`'s calls as sequences read them, kept or read again.
    fn calls(&self, conn: &Connection, id: i64) -> Result<Vec<Call>> {
        match self.get(&id) {
            Some(m) => Ok(m.calls.clone()),
            None => load_calls(conn, id),
        }
    }

    /// Turn `id`'s calls expanded as mining reads them, kept or read again.
    fn expanded(&self, conn: &Connection, id: i64) -> Result<Arc<mine::Expanded>> {
        match self.get(&id) {
            Some(m) => Ok(m.expanded.clone()),
            None => Ok(Arc::new(mine::expand(&workflows::load_calls(conn, id)?))),
        }
    }

    /// Turn `id`'s own step sequence, kept or mined again.
    fn seq(&self, conn: &Connection, id: i64) -> Result<mine::TurnSeq> {
        match self.get(&id) {
            Some(m) => Ok(m.seq.clone()),
            None => Ok(mine_again(conn, id)?.1),
        }
    }
}

/// Turn `id`'s calls as mining reads them and its own step sequence, from the database.
fn mine_again(conn: &Connection, id: i64) -> Result<(Vec<mine::RawCall>, mine::TurnSeq)> {
    let calls = workflows::load_calls(conn, id)?;
    let seq = mine::turn_sequence(&calls);
    Ok((calls, seq))
}

/// Most turns walked back to find where a task's investigation began.
const MAX_LEAD_TURNS: usize = 4;

/// A task whose requests before it only prepared it: a request that did too little to stand
/// alone (a look at a folder before "make a dashboard of this", `gt doctor` before `gt doctor
/// --fix`) or only looked (read the plan and the sources, then "what should we do?", then "go
/// with phase 0"). The first of them asked for the work, which spans all those turns; a turn that
/// did nothing at all is passed over but never opens it. A steering reply, a smoke test or a
/// turn that changed something ends the walk.
fn lead_in(
    conn: &Connection,
    mut unit: TaskUnit,
    (recent, walked): (&Recent, &Walked),
) -> Result<TaskUnit> {
    let earlier = walked.earlier(conn, unit.head, MAX_LEAD_TURNS)?;
    // How many of the earlier turns the walk went past, and how many of those open the task.
    let mut passed = 0;
    let mut opened: Option<usize> = None;
    let mut exchange: Option<Exchange> = None;
    for (i, prev) in earlier.iter().enumerate() {
        let Lead::Passes { typed, prepared } = prev.lead(conn)? else { break };
        if !typed && exchange.get_or_insert_with(|| Exchange::of(&earlier)).replying[i] {
            break;
        }
        passed += 1;
        if prepared {
            opened = Some(passed);
        }
    }
    let Some(n) = opened else { return Ok(unit) };
    let head = earlier[n - 1].id;
    let request = earlier[n - 1].user_input(conn)?;
    let mut turns = Vec::new();
    let mut asks = Vec::new();
    let mut parts = Vec::new();
    for prev in earlier[..n].iter().rev() {
        turns.push(prev.id);
        asks.push(if prev.id == head { request.clone() } else { prev.user_input(conn)? });
        parts.push(recent.expanded(conn, prev.id)?);
    }
    turns.append(&mut unit.turns);
    asks.append(&mut unit.asks);
    parts.append(&mut unit.parts);
    unit = TaskUnit { head, request, turns, asks, parts };
    Ok(unit)
}

/// How the earlier turns of a session (latest first) stand as an exchange with the agent.
struct Exchange {
    /// Whether the agent's last message in that turn asks the user something.
    asked: Vec<bool>,
    /// Whether that turn is itself a steering reply, judged from the oldest turn of the window
    /// forward (a menu code, then "oui", then a story path: each answers the one before).
    replying: Vec<bool>,
}

impl Exchange {
    fn of(earlier: &[Earlier]) -> Self {
        let asked: Vec<bool> = earlier.iter().map(|e| e.seen.asked).collect();
        let mut replying = vec![false; earlier.len()];
        for k in (0..earlier.len()).rev() {
            let before = k + 1 < earlier.len() && (replying[k + 1] || asked[k + 1]);
            replying[k] = earlier[k].seen.steering(before);
        }
        Exchange { asked, replying }
    }

    /// Whether the reply after `earlier[i]` answers the agent: it asked something at the end of
    /// that turn, or that turn was itself a reply in the same exchange.
    fn answers(&self, i: usize) -> bool {
        self.asked.get(i).copied().unwrap_or(false)
            || self.replying.get(i).copied().unwrap_or(false)
    }
}

/// What recording a batch's evidence reads and writes through.
struct Ctx<'a> {
    conn: &'a Connection,
    recent: &'a Recent,
    candidates: &'a mut dyn Candidates,
}

fn load_calls(conn: &Connection, turn_id: i64) -> Result<Vec<Call>> {
    Ok(as_calls(&ingest::tool_calls(conn, turn_id)?))
}

fn as_calls(rows: &[ingest::ToolCallRow]) -> Vec<Call> {
    rows.iter()
        .map(|c| Call {
            name: c.name.clone(),
            input_shape: c.input_shape.clone(),
            is_error: c.is_error,
        })
        .collect()
}

/// A sequence seen in sessions new to it during one batch.
struct Fresh {
    steps: Vec<Step>,
    /// (session key, clipped request), in the order they were seen.
    sessions: Vec<(String, String)>,
}

/// Feeds one turn to its bucket; on a trigger, drafts `auto-<signature>` and returns the
/// candidate id.
fn observe_streak(
    ctx: &mut Ctx,
    (memo, streaks): (&mut memo::Memo, &mut streak::Buckets),
    cfg: &config::DetectConfig,
    (turn, signature): (&Turn, &str),
    workflow: Option<i64>,
    report: &mut DetectReport,
) -> Result<Option<i64>> {
    let threshold = cfg.streak_threshold;
    let example = streak::Example {
        user_input: clip(&turn.user_input).to_string(),
        summary: turn.summary.clone(),
        turn_id: turn.id,
        session_key: turn.session_key.clone(),
    };
    let step = streak::observe(
        ctx.conn,
        streaks,
        (&turn.agent_id, signature),
        turn.success,
        example,
        threshold,
    )?;
    let examples = match step {
        streak::Step::Reset => {
            report.streaks_reset += 1;
            return Ok(None);
        }
        streak::Step::Nothing => return Ok(None),
        streak::Step::Triggered(examples) => examples,
    };
    let last_turn = examples.last().map(|e| e.turn_id).unwrap_or(turn.id);
    let steps: Vec<Step> = sequence::fold(&ctx.recent.calls(ctx.conn, last_turn)?);
    // Proposed only when the streak's turns did the same specific steps (at least
    // `min_specific_steps` shared by all) and no mined workflow holds the work: a workflow seen
    // in enough sessions, or one already proposed, says the same with the commands.
    let mut shared: Option<BTreeSet<String>> = None;
    for e in &examples {
        let seq = ctx.recent.seq(ctx.conn, e.turn_id)?;
        let keys: BTreeSet<String> = seq.keys().into_iter().map(str::to_string).collect();
        shared = Some(match shared {
            Some(s) => s.intersection(&keys).cloned().collect(),
            None => keys,
        });
    }
    // Turns that only read the same files (an agent's start-up prompt) changed nothing alike.
    let acts = shared.as_ref().is_some_and(|s| s.iter().any(|k| !k.starts_with("file:Read:")));
    let specific = if acts { shared.map_or(0, |s| s.len()) } else { 0 };
    let covered = match workflow {
        Some(wid) => workflows::is_covering(ctx.conn, &*ctx.candidates, wid, cfg.min_sessions)?,
        None => false,
    };
    let evidence_only = cfg.specific_only && (specific < cfg.min_specific_steps || covered);
    let mut session_keys: Vec<String> = Vec::new();
    for e in &examples {
        if !session_keys.contains(&e.session_key) {
            session_keys.push(e.session_key.clone());
        }
    }
    let evidence = Evidence {
        agent_id: turn.agent_id.clone(),
        hash: format!("sig:{signature}"),
        kind: EvidenceKind::Signature,
        signature: Some(signature.to_string()),
        steps,
        session_keys,
        occurrences: examples.len() as i64,
        examples: distinct_inputs(examples.iter().map(|e| e.user_input.as_str())),
        evidence_only,
        // The draft says what the streak's turns did with their commands and files, never tool
        // names with input shapes.
        workflow: if evidence_only {
            None
        } else {
            // The evidence weighs steps by their stored counts: the walk's are written first.
            workflows::write_counts(ctx.conn, memo)?;
            Some(streak_evidence(ctx.conn, ctx.recent, turn, &examples)?)
        },
        workflow_id: workflow,
    };
    let recorded = ctx.candidates.record(ctx.conn, &evidence)?;
    let id = match recorded {
        Recorded::Created(id) => {
            report.candidates_created += 1;
            id
        }
        Recorded::Redrafted(id) => {
            report.candidates_updated += 1;
            id
        }
        Recorded::Counted(id) => {
            report.candidates_updated += 1;
            return Ok(Some(id));
        }
        Recorded::Evidence(id) => {
            report.evidence_only += 1;
            return Ok(Some(id));
        }
    };
    report.streak_drafts += 1;
    Ok(Some(id))
}

/// The concrete steps a streak's turns share, as workflow evidence for its draft.
fn streak_evidence(
    conn: &Connection,
    recent: &Recent,
    turn: &Turn,
    examples: &[streak::Example],
) -> Result<workflow::WorkflowEvidence> {
    let mut turns: Vec<(String, mine::TurnSeq)> = Vec::new();
    for e in examples {
        turns.push((e.session_key.clone(), recent.seq(conn, e.turn_id)?));
    }
    let requests = distinct_inputs(examples.iter().map(|e| e.user_input.as_str()));
    let mut sightings: Vec<workflow::Sighting> = Vec::new();
    for e in examples {
        if !sightings.iter().any(|s| s.session_key == e.session_key) {
            sightings.push(workflow::Sighting {
                session_key: e.session_key.clone(),
                // A streak is consecutive turns of the agent: the project of its last.
                project: turn.project.clone(),
                turn_id: e.turn_id,
                at: None,
                success: true,
            });
        }
    }
    workflows::evidence_of_turns(conn, &turn.agent_id, &turns, requests, sightings)
}

/// Creates or updates the candidate for a sequence once it has been seen in enough sessions.
/// `seen` holds the sessions new to it in this batch: a recorded candidate adds them to its
/// counts, so a sequence seen in thousands of sessions costs the same as one seen in three.
fn sequence_candidate(
    ctx: &mut Ctx,
    agent: &str,
    hash: &str,
    seen: &Fresh,
    cfg: &config::DetectConfig,
    report: &mut DetectReport,
) -> Result<Option<i64>> {
    let min_sessions = cfg.min_sessions;
    let (steps, occurrences, session_keys, examples) =
        match ctx.candidates.sequence_tally(ctx.conn, agent, hash)? {
            Some(tally) => {
                // The first three distinct requests never change once there are three.
                let examples = if tally.examples.len() >= 3 {
                    tally.examples
                } else {
                    sightings::first_inputs(ctx.conn, agent, hash, 3)?
                };
                let keys = seen.sessions.iter().map(|s| s.0.clone()).collect();
                let occurrences = tally.occurrences + seen.sessions.len() as i64;
                (seen.steps.clone(), occurrences, keys, examples)
            }
            None => {
                let sightings = sightings::of_hash(ctx.conn, agent, hash)?;
                if sightings.len() < min_sessions.max(1) {
                    return Ok(None);
                }
                let steps: Vec<Step> = serde_json::from_str(&sightings[0].2)?;
                let examples = distinct_inputs(sightings.iter().map(|s| s.1.as_str()));
                let keys = sightings.iter().map(|s| s.0.clone()).collect();
                (steps, sightings.len() as i64, keys, examples)
            }
        };
    let evidence = Evidence {
        agent_id: agent.to_string(),
        hash: hash.to_string(),
        kind: EvidenceKind::Sequence,
        signature: None,
        session_keys,
        occurrences,
        examples,
        evidence_only: cfg.specific_only
            && (sequence_is_generic(&steps, cfg.min_specific_steps)
                || workflows::covers_sequence(ctx.conn, &*ctx.candidates, agent, hash)?),
        workflow_id: None,
        workflow: None,
        steps,
    };
    Ok(Some(counted(ctx.candidates.record(ctx.conn, &evidence)?, report)))
}

fn counted(recorded: Recorded, report: &mut DetectReport) -> i64 {
    match recorded {
        Recorded::Created(id) => {
            report.candidates_created += 1;
            id
        }
        Recorded::Redrafted(id) | Recorded::Counted(id) => {
            report.candidates_updated += 1;
            id
        }
        Recorded::Evidence(id) => {
            report.evidence_only += 1;
            id
        }
    }
}

/// A tool sequence says which tools ran, not what they did: it is proposed only when at least
/// `min_specific` of its tools are specific by name (MCP tools, subagents, skills).
fn sequence_is_generic(steps: &[Step], min_specific: usize) -> bool {
    let mut specific: Vec<&str> = steps
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| n.starts_with("mcp__") || matches!(*n, "Task" | "Agent" | "Skill"))
        .collect();
    specific.sort_unstable();
    specific.dedup();
    specific.len() < min_specific
}

/// Records the candidate of a mined workflow seen in enough sessions: proposed with a draft
/// when it has enough specific steps, else as evidence only. A workflow whose consensus aligns
/// with an already recorded one is merged into it first (shape variants are one candidate).
/// `joined` are the turns of this batch that joined it.
fn workflow_candidate(
    ctx: &mut Ctx,
    memo: &mut memo::Memo,
    agent: &str,
    wid: i64,
    joined: &[i64],
    judge: &workflows::Judge,
    report: &mut DetectReport,
) -> Result<Option<i64>> {
    let cands = &*ctx.candidates;
    let Some((ev, evidence_only)) = workflows::evidence(ctx.conn, cands, agent, wid, judge)? else {
        return Ok(None);
    };
    let keys = identity_keys(&ev);
    if let Some(target) = workflows::merge_into_similar(ctx.conn, (memo, cands), agent, wid, &keys)?
    {
        let Some((ev, evidence_only)) = workflows::evidence(ctx.conn, cands, agent, target, judge)?
        else {
            return Ok(None);
        };
        // The merged members are not new to it: look at all of them.
        return record_workflow(ctx, agent, target, ev, evidence_only, None, report).map(Some);
    }
    record_workflow(ctx, agent, wid, ev, evidence_only, Some(joined), report).map(Some)
}

/// The step keys that make a workflow what it is: its consensus without the change marker.
fn identity_keys(ev: &workflow::WorkflowEvidence) -> Vec<String> {
    ev.steps.iter().map(|s| s.key.clone()).filter(|k| k != mine::CHANGE_STEP).collect()
}

/// Records a workflow's candidate. When it is proposed, the open sequence and streak rows its
/// turns hold become evidence: `joined` (the turns that joined since the last record) are the
/// only ones to look at when it was already proposed then, since every earlier member was looked
/// at when it joined or when the workflow was first proposed; otherwise all members are.
fn record_workflow(
    ctx: &mut Ctx,
    agent: &str,
    wid: i64,
    ev: workflow::WorkflowEvidence,
    evidence_only: bool,
    joined: Option<&[i64]>,
    report: &mut DetectReport,
) -> Result<i64> {
    let was_proposed = workflows::is_proposed(ctx.conn, &*ctx.candidates, wid)?;
    // Work a procedure drives stands for its pieces as proposed work does (its start-up ritual).
    let driven = ev.reason.driven.is_some().then(|| ev.reason.clone());
    let (mut evidence, keys) =
        workflows::as_candidate(agent, wid, ev, evidence_only, EvidenceKind::Workflow);
    let id = counted(ctx.candidates.record(ctx.conn, &evidence)?, report);
    workflows::set_candidate(ctx.conn, wid, id, &keys)?;
    if !evidence_only {
        // The workflow of a promoted candidate whose consensus changed (a step was added or
        // dropped in later sessions) is drafted again under its own hash; evolution then links
        // that draft to the live skill as a proposed new version.
        if ctx.candidates.promoted_otherwise(ctx.conn, id, &evidence.steps)? {
            evidence.hash = format!("wf:{wid}:{}", sequence::hash(&evidence.steps));
            counted(ctx.candidates.record(ctx.conn, &evidence)?, report);
        }
        let joined = joined.filter(|_| was_proposed);
        let reason = evidence.workflow.as_ref().map(|w| w.reason.clone());
        let cands = &*ctx.candidates;
        let mut superseded = workflows::sequences_under(ctx.conn, cands, agent, wid, joined)?;
        // Pieces judged before it are made evidence once, when it is first proposed; later ones
        // are judged pieces as they come (`workflows::evidence`).
        if let Some(reason) = reason.filter(|_| !was_proposed) {
            superseded.extend(workflows::pieces_of(ctx.conn, cands, agent, wid, &reason)?);
        }
        superseded.extend(cands.open_streaks(ctx.conn, wid)?);
        ctx.candidates.supersede(ctx.conn, &superseded)?;
    } else if let Some(reason) = driven {
        let cands = &*ctx.candidates;
        let mut superseded = workflows::pieces_of(ctx.conn, cands, agent, wid, &reason)?;
        superseded.extend(cands.open_streaks(ctx.conn, wid)?);
        ctx.candidates.supersede(ctx.conn, &superseded)?;
    }
    Ok(id)
}

/// Example requests are kept for drafts, not as an archive: a pasted log stays in `turns`.
fn clip(input: &str) -> &str {
    const MAX_EXAMPLE_BYTES: usize = 2000;
    if input.len() <= MAX_EXAMPLE_BYTES {
        return input;
    }
    let mut end = MAX_EXAMPLE_BYTES;
    while !input.is_char_boundary(end) {
        end -= 1;
    }
    &input[..end]
}

/// Up to three example requests, trimmed, without repeats.
fn distinct_inputs<'a>(inputs: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for input in inputs.map(str::trim).filter(|i| !i.is_empty()) {
        if out.len() < 3 && !out.iter().any(|o| o == input) {
            out.push(input.to_string());
        }
    }
    out
}

/// A private database holding workflows `ids` of agent `a`, for the tests of what the walk
/// keeps of them.
#[cfg(test)]
fn store_with_workflows(ids: &[i64]) -> Store {
    let store = Store::open_in_memory().expect("store");
    for id in ids {
        store
            .conn()
            .execute(
                "INSERT INTO workflows (id, agent_id, steps, members, sessions, updated_at)
                 VALUES (?1, 'a', '[]', 1, 1, 'T')",
                [id],
            )
            .expect("workflow");
    }
    store
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_whole_characters() {
        let long = "é".repeat(1500);
        let clipped = clip(&long);
        assert!(clipped.len() <= 2000 && clipped.chars().all(|c| c == 'é'));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn distinct_inputs_dedupes_and_caps_at_three() {
        let got = distinct_inputs(["a ", "a", "", "b", "c", "d"].into_iter());
        assert_eq!(got, ["a", "b", "c"]);
    }
}
