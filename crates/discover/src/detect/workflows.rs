//! Mined workflows: the owner of `workflow_step_df`, `workflows`, `workflow_members` and
//! `workflow_index`. Each turn joins the workflow whose steps it aligns with best (among a
//! bounded number found through its rarest steps), or starts one; a workflow seen in enough
//! distinct sessions becomes evidence for a candidate.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::memo::Memo;
use super::mine::{self, Failure, Member, Obs, RawCall};
use super::spine;
use super::{blocks, driven, literals};
use crate::ingest;
use crate::model::ToolStep;
use crate::step;
use crate::text::{paste, redact};
use crate::workflow::{
    CandidateEvidence, Candidates, EvidenceKind, FailureFix, RERUN_AS, Reason, Sighting,
    WorkflowEvidence, WorkflowStep,
};

/// Rarest steps of a turn used to look up workflows, and workflows read per step.
const LOOKUP_STEPS: usize = 5;
const LOOKUP_PER_STEP: usize = 16;
/// Most recent members read to judge a workflow: a long loop's iterations fill the core's
/// window within a few sessions.
const JUDGED_MEMBERS: i64 = 240;
/// A workflow seen in this many times `detect.min_sessions` sessions is a long variable
/// procedure: a step a quarter of its sessions with real work did belongs to it (optional).
const BROAD_SUPPORT: usize = 2;
/// Specific reads that together count toward a workflow's specific steps.
const READ_SET: usize = 3;
/// Steps a session's members need to count as real work in a broad consensus.
const SUBSTANTIVE_STEPS: usize = 3;
/// Consensus similarity at which two proposed workflows are one candidate.
const MERGE_SIMILARITY: f64 = 0.7;

/// The turn being mined.
pub struct MinedTurn<'a> {
    pub id: i64,
    pub agent_id: &'a str,
    pub session_key: &'a str,
    pub project: Option<&'a str>,
    pub request: &'a str,
    /// What each turn of the task said (the request first).
    pub asks: &'a [String],
    /// The turns of the task, the request's first.
    pub turns: &'a [i64],
    pub at: Option<&'a str>,
    pub success: bool,
}

/// A turn's calls as mining needs them (read through `ingest`, the owner of `tool_calls`).
pub fn load_calls(conn: &Connection, turn_id: i64) -> Result<Vec<RawCall>> {
    Ok(as_raw_calls(ingest::tool_calls(conn, turn_id)?))
}

/// Tool call rows as mining needs them.
pub fn as_raw_calls(rows: Vec<ingest::ToolCallRow>) -> Vec<RawCall> {
    rows.into_iter()
        .map(|c| RawCall { step: c.step, detail: c.detail, is_error: c.is_error })
        .collect()
}

/// The turns of `agent` whose steps hold `key`, as stored: counts still in a memo are not in it
/// (see [`write_counts`]).
fn df(conn: &Connection, agent: &str, key: &str) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT turns FROM workflow_step_df WHERE agent_id = ?1 AND step = ?2")?
        .query_row(params![agent, key], |r| r.get::<_, i64>(0))
        .optional()?
        .unwrap_or(0) as u64)
}

/// Number of mined turns of the agent (kept as the document frequency of the empty key).
fn turns(conn: &Connection, agent: &str) -> Result<u64> {
    df(conn, agent, "")
}

/// Counts one turn's steps in the agent's document frequencies (each turn once, whatever task
/// it is part of). The counts wait in `memo` until [`write_counts`]; the walk reads them there
/// meanwhile, and a workflow's or a streak's evidence is taken after they are written.
pub fn count_steps(memo: &mut Memo, agent: &str, seq: &mine::TurnSeq) {
    memo.count_steps(agent, seq);
}

/// Writes the step counts `memo` holds.
pub fn write_counts(conn: &Connection, memo: &mut Memo) -> Result<()> {
    let mut bump = conn.prepare_cached(
        "INSERT INTO workflow_step_df (agent_id, step, turns) VALUES (?1, ?2, ?3)
         ON CONFLICT(agent_id, step) DO UPDATE SET turns = turns + excluded.turns",
    )?;
    for (agent, counts) in memo.take_uncounted() {
        for (key, n) in counts {
            bump.execute(params![agent, key, n as i64])?;
        }
    }
    Ok(())
}

/// Places one task (a request and the turns that only steered it, as one sequence `seq`) in
/// workflows: the task's earlier placement, made before its last steering turn came, is taken
/// back first. A task that does the same unit again and again is a loop: each iteration joins a
/// workflow as a member of its own. Returns the workflows joined or started.
pub fn observe(
    conn: &Connection,
    memo: &mut Memo,
    cands: &dyn Candidates,
    turn: &MinedTurn,
    seq: mine::TurnSeq,
    similarity: f64,
    now: &str,
) -> Result<Vec<i64>> {
    // The task's earlier placements, under its head or under a turn that headed it before the
    // task grew back to where its investigation began, are taken back.
    let mut gone = unobserve(conn, memo, turn.agent_id, turn.id)?;
    for &t in turn.turns.iter().filter(|t| **t != turn.id) {
        gone.extend(unobserve(conn, memo, turn.agent_id, t)?);
    }
    let seq_keys = seq.all_keys.clone();
    let looped = super::loops::iterations(&seq.steps);
    // Steps of a loop recur by definition, even in the first turn that holds them.
    let rare_ok = looped.is_some();
    let parts: Vec<mine::TurnSeq> = match looped {
        Some(ranges) => ranges
            .into_iter()
            .map(|r| mine::TurnSeq {
                all_keys: Vec::new(),
                failures: failures_in(&seq.failures, &seq.steps[r.clone()]),
                steps: seq.steps[r].to_vec(),
            })
            .collect(),
        None => vec![seq],
    };
    let mut joined: Vec<i64> = Vec::new();
    // A loop's iterations are one piece of work: they join one workflow, found through the
    // steps most of them share (each iteration alone carries its own extras).
    let loop_core: Option<Vec<String>> = (parts.len() > 1).then(|| {
        let members: Vec<Member> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| Member { session_key: i.to_string(), steps: p.steps.clone() })
            .collect();
        mine::consensus_keys(&members, parts.len().div_ceil(2), 1)
            .into_iter()
            .filter(|k| *k != mine::CHANGE_STEP)
            .map(str::to_string)
            .collect()
    });
    // Tasks asked the same way are one piece of work, whatever their steps: the request's
    // workflow takes every part.
    let mut asked = memo.request_keys(turn.request);
    for said in turn.asks {
        if let Some(key) = super::requests::command_key(said, &seq_keys)
            && !asked.contains(&key)
        {
            asked.push(key);
        }
    }
    let mut loop_workflow: Option<i64> = by_request(conn, memo, turn.agent_id, &asked)?;
    let asked_for = loop_workflow.is_some();
    let mut started: Option<i64> = None;
    for (iteration, mut part) in parts.into_iter().enumerate() {
        part.steps.truncate(mine::MAX_STEPS);
        let own = part.keys();
        let keys: Vec<&str> = match &loop_core {
            Some(core) if core.len() >= 2 => core.iter().map(String::as_str).collect(),
            _ => own,
        };
        // A pasted failure is the person's chore whatever the agent did about it.
        let chore = asked.iter().any(|k| k == super::requests::PASTED_OUTPUT);
        if keys.len() < 2 && !chore {
            continue;
        }
        let id = match loop_workflow {
            Some(id) => id,
            // Aligned by steps only when no workflow was asked for this way (else its reads
            // are wasted: the request's workflow takes the part whatever it aligns with).
            None => {
                let by_steps = if chore {
                    None
                } else {
                    best_workflow(conn, memo, turn.agent_id, &keys, similarity, rare_ok, &asked)?
                };
                match by_steps {
                    Some(id) => id,
                    None => {
                        let id = start_workflow(conn, memo, turn.agent_id, &keys, now)?;
                        memo.forget(id);
                        started = Some(id);
                        id
                    }
                }
            }
        };
        if loop_core.is_some() || asked_for {
            loop_workflow = Some(id);
        }
        add_member(conn, (memo, cands), id, turn, iteration as i64, &part, similarity, now)?;
        if !joined.contains(&id) {
            index_requests(conn, memo, turn.agent_id, id, &asked)?;
            joined.push(id);
        }
        // Work that aligned with nothing may still share a run of steps with another session's.
        if started.take() == Some(id)
            && let Some(block) = place_block(conn, memo, turn, (iteration as i64, &part), id, now)?
            && !joined.contains(&block)
        {
            joined.push(block);
        }
    }
    // A streak recorded while the task was smaller points at the workflow it held then.
    if let Some(&into) = joined.first() {
        for old in gone {
            cands.move_workflow_links(conn, old, into)?;
        }
    }
    Ok(joined)
}

/// The workflow asked for as this task was: one whose requests hold every key of this one's, or
/// one of whose requests' keys this one holds all (a template typed once in full and once as
/// its own sentence). A frame some templates share ("follow the activation instructions") is
/// not enough: the sentence that says which agent or which milestone must match too.
fn by_request(
    conn: &Connection,
    memo: &mut Memo,
    agent: &str,
    asked: &[String],
) -> Result<Option<i64>> {
    if asked.is_empty() {
        return Ok(None);
    }
    let mut hits: HashMap<i64, usize> = HashMap::new();
    // The first workflow found under a command typed as the ask.
    let mut typed: Option<i64> = None;
    for key in asked {
        for id in memo.index.latest_existing(conn, agent, key, LOOKUP_PER_STEP)? {
            *hits.entry(id).or_default() += 1;
            if typed.is_none() && super::requests::is_command_key(key) {
                typed = Some(id);
            }
        }
    }
    let mut ranked: Vec<(usize, i64)> = hits.into_iter().map(|(id, n)| (n, id)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut first_request = conn.prepare_cached(
        "SELECT request FROM workflow_members WHERE workflow_id = ?1 ORDER BY turn_id LIMIT 1",
    )?;
    for (n, id) in ranked {
        if n >= asked.len() {
            return Ok(Some(id));
        }
        let theirs: Option<String> = first_request.query_row([id], |r| r.get(0)).optional()?;
        if theirs.is_some_and(|t| {
            let keys = super::requests::keys(&t);
            !keys.is_empty() && keys.iter().all(|k| asked.contains(k))
        }) {
            return Ok(Some(id));
        }
    }
    // A command typed in any turn of the task asks for the work that command was typed for.
    Ok(typed)
}

/// Indexes a request's keys under workflow `id`, so later tasks asked the same way find it.
fn index_requests(
    conn: &Connection,
    memo: &mut Memo,
    agent: &str,
    id: i64,
    asked: &[String],
) -> Result<()> {
    let mut index = conn.prepare_cached(
        "INSERT OR IGNORE INTO workflow_index (agent_id, step, workflow_id) VALUES (?1, ?2, ?3)",
    )?;
    for key in asked {
        index.execute(params![agent, key, id])?;
        memo.index.inserted(agent, key, id);
    }
    Ok(())
}

/// The failures of a loop that belong to one iteration: those whose step it holds.
fn failures_in(failures: &[Failure], steps: &[Obs]) -> Vec<Failure> {
    failures.iter().filter(|f| steps.iter().any(|o| o.0 == f.0)).cloned().collect()
}

/// The workflow `keys` align with best, among those found through its rarest steps.
/// The workflows worth aligning `keys` with: those indexed under its rarest distinct steps.
fn lookup(
    conn: &Connection,
    memo: &mut Memo,
    agent: &str,
    keys: &[&str],
    recurring: bool,
) -> Result<BTreeSet<i64>> {
    let mut distinct: Vec<(u64, &str)> = Vec::new();
    for k in keys.iter().collect::<BTreeSet<_>>() {
        distinct.push((df(conn, agent, k)? + memo.uncounted(agent, k), k));
    }
    distinct.sort();
    let mut found: BTreeSet<i64> = BTreeSet::new();
    // A step no other turn had finds nothing; skipping those keeps a workflow done inside a
    // turn with one-off extras findable through its own steps.
    for (_, k) in distinct.iter().filter(|(df, _)| recurring || *df > 1).take(LOOKUP_STEPS) {
        found.extend(memo.index.latest(conn, agent, k, LOOKUP_PER_STEP)?);
    }
    Ok(found)
}

fn best_workflow(
    conn: &Connection,
    memo: &mut Memo,
    agent: &str,
    keys: &[&str],
    similarity: f64,
    recurring: bool,
    asked: &[String],
) -> Result<Option<i64>> {
    let found = lookup(conn, memo, agent, keys, recurring)?;
    let mut aligned: Vec<(f64, i64)> = Vec::new();
    let mut read = conn.prepare_cached("SELECT steps, consensus FROM workflows WHERE id = ?1")?;
    for id in found {
        let Some((rep, consensus)) = read
            .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))
            .optional()?
        else {
            continue;
        };
        // The first member's steps, and once the workflow was judged, its consensus: the steps
        // its sessions share, without the extras any one of them did.
        for text in std::iter::once(rep).chain(consensus) {
            let rep: Vec<String> = serde_json::from_str(&text)?;
            let rep: Vec<&str> = rep.iter().map(String::as_str).collect();
            let Some(score) = mine::alignment(keys, &rep, similarity) else { continue };
            aligned.push((score, id));
        }
    }
    // The best aligned first (the earlier workflow on a tie); one asked for otherwise is passed.
    aligned.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, id) in aligned {
        if !asked_apart(conn, memo, id, asked)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Sessions asked a fixed way per session of the work, above which the ask is not what the work
/// answers.
const ASK_SPREAD: usize = 4;

/// Whether work asked for in a fixed way (its first request said word for word in two of its
/// sessions: a daemon's prompt, a typed command) is what that ask gets only now and then: the
/// same ask was said in more than `ASK_SPREAD` times as many sessions as did this work, and the
/// others did something else (an agent exploring what "gt boot triage" means, a different way
/// each time). A procedure is what an ask consistently leads to.
fn asked_otherwise(conn: &Connection, rows: &[MemberRow], support: usize) -> Result<bool> {
    let Some(first) = rows.first() else { return Ok(false) };
    let ask = first.request.trim();
    let fixed = rows
        .iter()
        .filter(|m| m.request.trim() == ask)
        .map(|m| m.session_key.as_str())
        .collect::<HashSet<_>>()
        .len()
        >= 2;
    if !fixed || ask.is_empty() {
        return Ok(false);
    }
    let cap = ASK_SPREAD * support + 1;
    let asked = ingest::sessions_asking_as(conn, first.turn_id, cap)?.unwrap_or(0);
    Ok(asked > ASK_SPREAD * support)
}

/// Whether a task asked with keys `asked` is other work than workflow `id`, which is asked for
/// in a fixed way that this request does not share: their steps may align (two patrols of one
/// orchestrator), but they are two procedures.
fn asked_apart(conn: &Connection, memo: &mut Memo, id: i64, asked: &[String]) -> Result<bool> {
    if asked.is_empty() {
        return Ok(false);
    }
    Ok(memo
        .recurring_ask(conn, id)?
        .is_some_and(|theirs| !asked.iter().any(|k| theirs.contains(k))))
}

/// Whether workflow `id` is a block: its members are runs inside their tasks.
fn is_block(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS(SELECT 1 FROM workflow_members WHERE workflow_id = ?1 AND iteration >= ?2)",
        )?
        .query_row(params![id, blocks::BLOCK_BASE], |r| r.get(0))?)
}

/// The run a task shares best so far: (a recorded block?, its length), the task's range, the
/// other side's range, the other side.
type BestRun = ((bool, usize), Range<usize>, Range<usize>, Theirs);

/// A member of another session's task as a block's other side reads it.
struct Theirs {
    workflow: i64,
    turn_id: i64,
    iteration: i64,
    session_key: String,
    project: Option<String>,
    steps: Vec<Obs>,
    request: String,
    at: Option<String>,
    success: bool,
}

fn their_row(workflow: i64, r: &rusqlite::Row) -> rusqlite::Result<Theirs> {
    Ok(Theirs {
        workflow,
        turn_id: r.get(0)?,
        iteration: r.get(1)?,
        session_key: r.get(2)?,
        project: r.get(3)?,
        steps: serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or_default(),
        request: r.get(5)?,
        at: r.get(6)?,
        success: r.get(7)?,
    })
}

/// Places the run of steps task `turn` (whose `part` started workflow `own`) shares with another
/// session's task, when it shares one: in that run's workflow when the other side is already one,
/// else in a new workflow of the two runs. Returns the workflow.
fn place_block(
    conn: &Connection,
    memo: &mut Memo,
    turn: &MinedTurn,
    (iteration, part): (i64, &mine::TurnSeq),
    own: i64,
    now: &str,
) -> Result<Option<i64>> {
    let keys: Vec<&str> = part.steps.iter().map(|o| o.0.as_str()).collect();
    if keys.len() <= blocks::MIN_BLOCK {
        return Ok(None);
    }
    let found = lookup(conn, memo, turn.agent_id, &part.keys(), false)?;
    let mut latest = conn.prepare_cached(
        "SELECT turn_id, iteration, session_key, project, steps, request, at, success
         FROM workflow_members WHERE workflow_id = ?1 AND session_key != ?2
         ORDER BY turn_id DESC, iteration DESC LIMIT 1",
    )?;
    // A block already recorded first (the same run seen again joins it), then the longest run.
    let mut best: Option<BestRun> = None;
    let mut rep = conn.prepare_cached("SELECT steps FROM workflows WHERE id = ?1")?;
    for id in found.into_iter().filter(|&id| id != own) {
        // A recorded run is met again when a good share of it is done in order.
        if is_block(conn, id)? {
            let run: Vec<String> =
                serde_json::from_str(&rep.query_row([id], |r| r.get::<_, String>(0))?)?;
            let run: Vec<&str> = run.iter().map(String::as_str).collect();
            if let Some((mine_at, _, len)) =
                blocks::shared_run(&keys, &run, blocks::again(run.len()))
                && best.as_ref().is_none_or(|b| (true, len) > b.0)
                && let Some(theirs) = latest
                    .query_row(params![id, turn.session_key], |r| their_row(id, r))
                    .optional()?
            {
                best = Some(((true, len), mine_at, 0..0, theirs));
            }
            continue;
        }
        let Some(theirs) =
            latest.query_row(params![id, turn.session_key], |r| their_row(id, r)).optional()?
        else {
            continue;
        };
        let their_keys: Vec<&str> = theirs.steps.iter().map(|o| o.0.as_str()).collect();
        let Some((mine_at, their_at, len)) =
            blocks::shared_run(&keys, &their_keys, blocks::MIN_BLOCK)
        else {
            continue;
        };
        let rank = (false, len);
        if best.as_ref().is_none_or(|b| rank > b.0) {
            best = Some((rank, mine_at, their_at, theirs));
        }
    }
    let Some(((already, _), mine_at, their_at, theirs)) = best else { return Ok(None) };
    let target = if already {
        theirs.workflow
    } else {
        let run: Vec<&str> =
            keys[mine_at.clone()].iter().copied().filter(|k| *k != mine::CHANGE_STEP).collect();
        let id = start_workflow(conn, memo, turn.agent_id, &run, now)?;
        memo.forget(id);
        let other = MinedTurn {
            id: theirs.turn_id,
            agent_id: turn.agent_id,
            session_key: &theirs.session_key,
            project: theirs.project.as_deref(),
            request: &theirs.request,
            asks: &[],
            turns: &[],
            at: theirs.at.as_deref(),
            success: theirs.success,
        };
        let steps = theirs.steps[their_at].to_vec();
        let seq = mine::TurnSeq { all_keys: Vec::new(), failures: Vec::new(), steps };
        let at = blocks::BLOCK_BASE + theirs.iteration % blocks::BLOCK_BASE;
        store_member(conn, memo, id, &other, at, &seq, now)?;
        id
    };
    let steps = part.steps[mine_at].to_vec();
    let seq = mine::TurnSeq {
        all_keys: Vec::new(),
        failures: failures_in(&part.failures, &steps),
        steps,
    };
    store_member(conn, memo, target, turn, blocks::BLOCK_BASE + iteration, &seq, now)?;
    Ok(Some(target))
}

fn start_workflow(
    conn: &Connection,
    memo: &mut Memo,
    agent: &str,
    keys: &[&str],
    now: &str,
) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO workflows (agent_id, steps, members, sessions, updated_at)
         VALUES (?1, ?2, 0, 0, ?3)",
    )?
    .execute(params![agent, serde_json::to_string(keys)?, now])?;
    let id = conn.last_insert_rowid();
    memo.index.workflow(id, true);
    let mut index = conn.prepare_cached(
        "INSERT OR IGNORE INTO workflow_index (agent_id, step, workflow_id) VALUES (?1, ?2, ?3)",
    )?;
    for k in keys.iter().collect::<BTreeSet<_>>() {
        index.execute(params![agent, k, id])?;
        memo.index.inserted(agent, k, id);
    }
    Ok(id)
}

/// Takes back the members task `turn_id` added: it grew (a steering reply came) and is placed
/// again. A workflow left without members and not yet judged goes with them; their ids are
/// returned.
fn unobserve(conn: &Connection, memo: &mut Memo, agent: &str, turn_id: i64) -> Result<Vec<i64>> {
    if !memo.may_be_placed(conn, turn_id)? {
        return Ok(Vec::new());
    }
    // Each workflow the task's members were in, with how many and the session they came from:
    // the counts go down by as much (recounting a large workflow would cost its size).
    let placed: Vec<(i64, i64, String)> = conn
        .prepare_cached(
            "SELECT workflow_id, count(*), min(session_key) FROM workflow_members
             WHERE turn_id = ?1 GROUP BY workflow_id",
        )?
        .query_map([turn_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut gone = Vec::new();
    if placed.is_empty() {
        return Ok(gone);
    }
    conn.prepare_cached("DELETE FROM workflow_members WHERE turn_id = ?1")?.execute([turn_id])?;
    for (id, n, session) in placed {
        memo.removed(conn, id, turn_id)?;
        let still_there: bool = conn
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM workflow_members WHERE workflow_id = ?1 AND session_key = ?2)",
            )?
            .query_row(params![id, session], |r| r.get(0))?;
        conn.prepare_cached(
            "UPDATE workflows SET members = max(members - ?2, 0), sessions = max(sessions - ?3, 0)
             WHERE id = ?1",
        )?
        .execute(params![id, n, i64::from(!still_there)])?;
        let (members, judged): (i64, bool) = conn
            .prepare_cached(
                "SELECT members, candidate_id IS NOT NULL FROM workflows WHERE id = ?1",
            )?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if members == 0 && !judged {
            unindex(conn, memo, agent, id)?;
            conn.prepare_cached("DELETE FROM workflows WHERE id = ?1")?.execute([id])?;
            memo.index.workflow(id, false);
            memo.forget(id);
            gone.push(id);
        }
    }
    Ok(gone)
}

/// Removes workflow `id`'s index rows: its representative steps', one seek each (a delete by
/// workflow id alone walked the whole index).
fn unindex(conn: &Connection, memo: &mut Memo, agent: &str, id: i64) -> Result<()> {
    let steps: String = conn
        .prepare_cached("SELECT steps FROM workflows WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let mut unindex = conn.prepare_cached(
        "DELETE FROM workflow_index WHERE agent_id = ?1 AND step = ?2 AND workflow_id = ?3",
    )?;
    for step in serde_json::from_str::<Vec<String>>(&steps)? {
        unindex.execute(params![agent, step, id])?;
        memo.index.deleted(agent, &step, id);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_member(
    conn: &Connection,
    (memo, cands): (&mut Memo, &dyn Candidates),
    id: i64,
    turn: &MinedTurn,
    iteration: i64,
    seq: &mine::TurnSeq,
    similarity: f64,
    now: &str,
) -> Result<()> {
    if store_member(conn, memo, id, turn, iteration, seq, now)? {
        update_core(conn, (memo, cands), id, similarity)?;
    }
    Ok(())
}

/// Stores one member and counts it; `true` when it brought a new session (the core may change).
/// A block's members (runs inside their tasks) never change cores: whole tasks and runs of them
/// are not absorbed into one another.
fn store_member(
    conn: &Connection,
    memo: &mut Memo,
    id: i64,
    turn: &MinedTurn,
    iteration: i64,
    seq: &mine::TurnSeq,
    now: &str,
) -> Result<bool> {
    let (steps, failures) = (&seq.steps, &seq.failures);
    let new_session: bool = conn
        .prepare_cached(
            "SELECT NOT EXISTS(SELECT 1 FROM workflow_members WHERE workflow_id = ?1 AND session_key = ?2)",
        )?
        .query_row(params![id, turn.session_key], |r| r.get(0))?;
    let added = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO workflow_members (workflow_id, turn_id, iteration, session_key,
                project, steps, failures, request, at, success)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            id,
            turn.id,
            iteration,
            turn.session_key,
            turn.project,
            serde_json::to_string(steps)?,
            serde_json::to_string(failures)?,
            turn.request,
            turn.at,
            turn.success
        ])?;
    memo.placed(turn.id);
    conn.prepare_cached(
        "UPDATE workflows SET members = members + ?2, sessions = sessions + ?3, updated_at = ?4
         WHERE id = ?1",
    )?
    .execute(params![id, added as i64, i64::from(new_session && added > 0), now])?;
    if added > 0 {
        memo.added(id, (turn.id, iteration), turn.session_key, steps);
    }
    Ok(new_session && added > 0 && iteration < blocks::BLOCK_BASE)
}

/// Moves workflow `from`'s members, index entries and candidate links into `into`, deletes
/// `from` and recounts `into`.
fn absorb(
    conn: &Connection,
    (memo, cands): (&mut Memo, &dyn Candidates),
    agent: &str,
    from: i64,
    into: i64,
) -> Result<()> {
    memo.forget(from);
    memo.forget(into);
    // Tasks asked like the absorbed workflow's must find the one that holds them: its members'
    // request keys are repointed, one seek each (a range over every request key grew with the
    // history).
    let asked: BTreeSet<String> = conn
        .prepare_cached("SELECT DISTINCT request FROM workflow_members WHERE workflow_id = ?1")?
        .query_map([from], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .iter()
        .flat_map(|r| super::requests::keys(r))
        .collect();
    // Counted as they move (a recount would read the whole of a large workflow each time).
    let new_sessions: i64 = conn.prepare_cached("SELECT count(DISTINCT f.session_key) FROM workflow_members f
         WHERE f.workflow_id = ?1 AND NOT EXISTS (
            SELECT 1 FROM workflow_members i WHERE i.workflow_id = ?2 AND i.session_key = f.session_key)")?.query_row(params![from, into],
        |r| r.get(0),
    )?;
    let moved = conn
        .prepare_cached(
            "UPDATE OR IGNORE workflow_members SET workflow_id = ?2 WHERE workflow_id = ?1",
        )?
        .execute(params![from, into])?;
    conn.prepare_cached("DELETE FROM workflow_members WHERE workflow_id = ?1")?.execute([from])?;
    cands.move_workflow_links(conn, from, into)?;
    let mut repoint = conn.prepare_cached(
        "UPDATE OR IGNORE workflow_index SET workflow_id = ?3
         WHERE agent_id = ?1 AND step = ?2 AND workflow_id = ?4",
    )?;
    for key in &asked {
        repoint.execute(params![agent, key, into, from])?;
        memo.index.repointed(agent, key, from, into);
    }
    unindex(conn, memo, agent, from)?;
    conn.prepare_cached("DELETE FROM workflows WHERE id = ?1")?.execute([from])?;
    memo.index.workflow(from, false);
    conn.prepare_cached(
        "UPDATE workflows SET members = members + ?2, sessions = sessions + ?3 WHERE id = ?1",
    )?
    .execute(params![into, moved as i64, new_sessions])?;
    Ok(())
}

/// Other workflows not yet judged whose core or first member aligns with `core`: fragments of
/// the same work that started apart (their first turns had different extras), absorbed into `id`.
/// Returns whether any was.
fn absorb_fragments(
    conn: &Connection,
    (memo, cands): (&mut Memo, &dyn Candidates),
    id: i64,
    core: &[String],
    similarity: f64,
) -> Result<bool> {
    let agent: String = conn
        .prepare_cached("SELECT agent_id FROM workflows WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    let mut found: BTreeSet<i64> = BTreeSet::new();
    // The most recent workflows per step, as a turn's lookup reads them: a filter on judged
    // ones here would walk every judged workflow holding a common step.
    for k in core.iter().collect::<BTreeSet<_>>() {
        found.extend(memo.index.latest(conn, &agent, k, LOOKUP_PER_STEP)?);
    }
    found.remove(&id);
    let ours = memo.recurring_ask(conn, id)?;
    let mut read = conn.prepare_cached(
        "SELECT steps, consensus FROM workflows WHERE id = ?1 AND candidate_id IS NULL",
    )?;
    let mut absorbed = false;
    for other in found {
        let Some((rep, theirs)) = read
            .query_row([other], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))
            .optional()?
        else {
            continue;
        };
        if is_block(conn, other)? {
            continue;
        }
        let aligns = std::iter::once(rep).chain(theirs).any(|text| {
            serde_json::from_str::<Vec<String>>(&text)
                .is_ok_and(|steps| mine::alignment(core, &steps, similarity).is_some())
        });
        let mut apart = || -> Result<bool> {
            Ok(match &ours {
                Some(ours) => memo.recurring_ask(conn, other)?.is_some_and(|t| t.is_disjoint(ours)),
                None => false,
            })
        };
        if aligns && !apart()? {
            absorb(conn, (memo, cands), &agent, other, id)?;
            absorbed = true;
        }
    }
    Ok(absorbed)
}

/// Before a workflow is judged, its `consensus` column holds its core: the steps at least two of
/// its sessions share, so a later turn that did the same work with other extras still aligns
/// (the first member's steps keep its own extras). Judging replaces it with the consensus.
fn update_core(
    conn: &Connection,
    (memo, cands): (&mut Memo, &dyn Candidates),
    id: i64,
    similarity: f64,
) -> Result<()> {
    let judged: bool = conn
        .prepare_cached("SELECT candidate_id IS NOT NULL FROM workflows WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    if judged {
        return Ok(());
    }
    let core = memo.core(conn, id)?;
    if store_core(conn, id, &core)? && absorb_fragments(conn, (memo, cands), id, &core, similarity)?
    {
        // The absorbed members may change the core; once, without looking for more.
        store_core(conn, id, &memo.core(conn, id)?)?;
    }
    Ok(())
}

/// Keeps `core` as workflow `id`'s core when it is long enough to align by; returns whether it was.
fn store_core(conn: &Connection, id: i64, core: &[String]) -> Result<bool> {
    if core.len() < mine::MIN_CONTAINED {
        return Ok(false);
    }
    conn.prepare_cached("UPDATE workflows SET consensus = ?2 WHERE id = ?1")?
        .execute(params![id, serde_json::to_string(core)?])?;
    Ok(true)
}

/// Distinct sessions a workflow was seen in (0 for one absorbed into another since).
pub fn sessions(conn: &Connection, id: i64) -> Result<usize> {
    let n: Option<i64> = conn
        .query_row("SELECT sessions FROM workflows WHERE id = ?1", [id], |r| r.get(0))
        .optional()?;
    Ok(n.unwrap_or(0) as usize)
}

/// Members (times done) of a workflow.
fn members(conn: &Connection, id: i64) -> Result<usize> {
    let n: Option<i64> = conn
        .query_row("SELECT members FROM workflows WHERE id = ?1", [id], |r| r.get(0))
        .optional()?;
    Ok(n.unwrap_or(0) as usize)
}

/// Workflow `id`'s evidence `ev` as a candidate of `kind` (its consensus without the change
/// marker as steps), and the step keys that make it what it is.
pub fn as_candidate(
    agent: &str,
    id: i64,
    ev: WorkflowEvidence,
    evidence_only: bool,
    kind: EvidenceKind,
) -> (CandidateEvidence, Vec<String>) {
    let kept = || ev.steps.iter().filter(|s| s.key != mine::CHANGE_STEP);
    let keys: Vec<String> = kept().map(|s| s.key.clone()).collect();
    let steps: Vec<ToolStep> =
        kept().map(|s| ToolStep { name: s.tool.clone(), input_shape: s.key.clone() }).collect();
    let evidence = CandidateEvidence {
        agent_id: agent.to_string(),
        hash: format!("wf:{id}"),
        kind,
        signature: None,
        steps,
        session_keys: ev.sightings.iter().map(|s| s.session_key.clone()).collect(),
        occurrences: ev.reason.support as i64,
        examples: ev.requests.iter().take(3).cloned().collect(),
        evidence_only,
        workflow: Some(ev),
        workflow_id: Some(id),
    };
    (evidence, keys)
}

/// Records the candidate a workflow's evidence became.
pub fn set_candidate(
    conn: &Connection,
    id: i64,
    candidate: i64,
    consensus: &[String],
) -> Result<()> {
    conn.prepare_cached("UPDATE workflows SET candidate_id = ?2, consensus = ?3 WHERE id = ?1")?
        .execute(params![id, candidate, serde_json::to_string(consensus)?])?;
    Ok(())
}

/// Another proposed workflow of the agent whose consensus aligns with `consensus`: shape variants
/// of one workflow are one candidate. Its members are moved into it, and its id returned.
pub fn merge_into_similar(
    conn: &Connection,
    (memo, cands): (&mut Memo, &dyn Candidates),
    agent: &str,
    id: i64,
    consensus: &[String],
) -> Result<Option<i64>> {
    let recorded: Option<i64> = conn
        .prepare_cached("SELECT candidate_id FROM workflows WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    if recorded.is_some() {
        return Ok(None);
    }
    let mut found: BTreeSet<i64> = BTreeSet::new();
    {
        let mut lookup = conn.prepare_cached(
            "SELECT i.workflow_id FROM workflow_index i JOIN workflows w ON w.id = i.workflow_id
             WHERE i.agent_id = ?1 AND i.step = ?2 AND w.candidate_id IS NOT NULL AND w.id != ?3
             ORDER BY i.workflow_id DESC LIMIT ?4",
        )?;
        for k in consensus.iter().collect::<BTreeSet<_>>() {
            for wid in
                lookup.query_map(params![agent, k, id, LOOKUP_PER_STEP as i64], |r| r.get(0))?
            {
                found.insert(wid?);
            }
        }
    }
    let block = is_block(conn, id)?;
    for other in found {
        let text: Option<String> = conn
            .prepare_cached("SELECT consensus FROM workflows WHERE id = ?1")?
            .query_row([other], |r| r.get(0))?;
        let Some(text) = text else { continue };
        let theirs: Vec<String> = serde_json::from_str(&text)?;
        // Two runs recorded apart (met first in other pairs of tasks) are one when most of the
        // shorter is done in order in the longer.
        let same_run = block
            && is_block(conn, other)?
            && blocks::shared_run(
                consensus,
                &theirs,
                blocks::again(consensus.len().min(theirs.len())),
            )
            .is_some();
        if same_run || mine::similarity(consensus, &theirs) >= MERGE_SIMILARITY {
            absorb(conn, (memo, cands), agent, id, other)?;
            return Ok(Some(other));
        }
    }
    Ok(None)
}

struct MemberRow {
    /// A run inside its task (`blocks`), not the whole task.
    run: bool,
    turn_id: i64,
    session_key: String,
    project: Option<String>,
    steps: Vec<Obs>,
    failures: Vec<Failure>,
    request: String,
    at: Option<String>,
    success: bool,
}

/// Settings evidence is judged with.
pub struct Judge<'a> {
    pub min_sessions: usize,
    /// Times done that support a workflow whatever its sessions (`detect.min_iterations`).
    pub min_iterations: usize,
    pub min_specific_steps: usize,
    /// Support x specific steps needed to propose (`detect.min_evidence`).
    pub min_evidence: usize,
    /// Workflows may be proposed (`detect.specific_only`); else they are evidence only.
    pub propose: bool,
    /// What the driven rules read, kept for the detection pass.
    pub facts: &'a driven::Facts,
}

/// The evidence of a workflow and whether it is evidence only (too few specific steps); `None`
/// while it has fewer than `min_sessions` sessions.
pub fn evidence(
    conn: &Connection,
    cands: &dyn Candidates,
    agent: &str,
    id: i64,
    judge: &Judge,
) -> Result<Option<(WorkflowEvidence, bool)>> {
    let support = sessions(conn, id)?;
    let times = members(conn, id)?;
    let looped = times >= judge.min_iterations.max(2);
    // Two sessions are enough when the work is specific enough (`min_evidence` decides).
    if support < judge.min_sessions.clamp(1, 2) && !looped {
        return Ok(None);
    }
    // Evidence weighs as if seen in enough sessions when it was done often enough.
    let weight_support = if looped { support.max(judge.min_sessions) } else { support };
    let mut stmt = conn.prepare_cached(
        "SELECT turn_id, session_key, project, steps, failures, request, at, success, iteration
         FROM workflow_members WHERE workflow_id = ?1 ORDER BY turn_id DESC LIMIT ?2",
    )?;
    let rows: Vec<MemberRow> = stmt
        .query_map(params![id, JUDGED_MEMBERS], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, bool>(7)?,
                r.get::<_, i64>(8)?,
            ))
        })?
        .map(|row| {
            let (turn_id, session_key, project, steps, failures, request, at, success, iteration) =
                row?;
            Ok(MemberRow {
                run: iteration >= blocks::BLOCK_BASE,
                turn_id,
                session_key,
                project,
                steps: serde_json::from_str(&steps)?,
                failures: serde_json::from_str(&failures)?,
                request,
                at,
                success,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut rows = rows;
    rows.reverse();
    let mut members: Vec<Member> = rows
        .iter()
        .map(|m| Member { session_key: m.session_key.clone(), steps: m.steps.clone() })
        .collect();
    mine::split_variants(&mut members, judge.min_sessions);
    // A step belongs when enough sessions did it, and, in a loop, a good share of the times; in
    // a long variable procedure, when a quarter of the sessions that did real work did it.
    let min_members = members.len().div_ceil(3);
    let min_sessions = judge.min_sessions.min(support).max(1);
    let broad = support >= BROAD_SUPPORT * judge.min_sessions.max(2);
    let substantive = substantive_sessions(&members);
    let broad_sessions = substantive.div_ceil(4).max(min_sessions);
    let consensus = mine::consensus_by(&members, |sessions, times| {
        (sessions >= min_sessions && times >= min_members) || (broad && sessions >= broad_sessions)
    });
    let consensus = in_done_order(consensus, &members);
    // Pasted failing output asks for the person's chore to be done: the checks they ran.
    let chore = rows.first().is_some_and(|m| paste::is_failing_output(&m.request));
    let consensus = if chore { chore_checks(conn, agent, &rows)? } else { consensus };
    let Weighed { total, dfs, specific } = weigh(conn, agent, &consensus)?;
    // A step done in fewer sessions than this is optional.
    let always = if broad { substantive.div_ceil(2).max(min_sessions) } else { support };
    let steps: Vec<WorkflowStep> =
        consensus.iter().map(|c| workflow_step(c, always, members.len())).collect();
    let weighed: Vec<f64> = consensus
        .iter()
        .filter(|c| c.key != mine::CHANGE_STEP)
        .map(|c| mine::weight(&c.key, &dfs, total))
        .collect();
    let specificity =
        if weighed.is_empty() { 0.0 } else { weighed.iter().sum::<f64>() / weighed.len() as f64 };
    let projects: HashSet<&str> = rows.iter().filter_map(|m| m.project.as_deref()).collect();
    let shown: Vec<String> = specific.iter().take(4).map(|k| display(k)).collect();
    let n_projects = projects.len().max(1);
    let times_said = if times > support { format!("done {times} times ") } else { String::new() };
    let targets = if specific.is_empty() {
        Vec::new()
    } else {
        shared_targets(conn, agent, &rows, &consensus, total)?
    };
    let same = if targets.is_empty() {
        String::new()
    } else {
        format!("; the same {} each time", targets.join(", "))
    };
    let summary = format!(
        "{times_said}seen in {support} sessions of {n_projects} project{}; {} specific steps ({}){same}",
        if n_projects == 1 { "" } else { "s" },
        specific.len(),
        shown.join(", ")
    );
    let reason = Reason {
        support,
        iterations: times,
        min_support: judge.min_sessions,
        specificity,
        specific_steps: specific.clone(),
        score: weight_support as f64 * specificity * specific.len() as f64,
        summary,
        driven: None,
        targets: targets.clone(),
    };
    // Work that changes nothing and runs nothing specific (read the plan, report done) is loop
    // noise, however often it recurs.
    let acts = consensus
        .iter()
        .any(|c| mine::is_specific(&c.key, &dfs, total) && !step::only_looks(&c.key));
    // Iterations stand in for sessions only when they change something: a loop that only runs
    // and reads (a heartbeat, a status poll) is waiting, not work.
    let changes =
        consensus.iter().any(|c| c.key == mine::CHANGE_STEP || c.key.starts_with("file:Edit:"));
    let loop_only = weight_support > support;
    // One file read is no procedure (two sessions that read the same file and ran the tests
    // did nothing a skill would add); a set of documents and sources read together is one.
    let looks = specific.iter().filter(|k| step::only_looks(k)).count();
    let doing = specific.len() - looks + if looks >= READ_SET { looks } else { 0 } + targets.len();
    let evidence_only = !judge.propose
        || !acts
        || (loop_only && !changes)
        || doing < judge.min_specific_steps
        || weight_support * (specific.len() + targets.len()) < judge.min_evidence
        || asked_otherwise(conn, &rows, support)?
        || piece_of_bigger(conn, cands, agent, id, support, &specific)?;
    // Work a procedure the person already has drives stays evidence: a draft would duplicate it.
    let runs: Vec<driven::Run> = rows
        .iter()
        .map(|m| driven::Run {
            part: m.run,
            turn: m.turn_id,
            session: &m.session_key,
            request: &m.request,
            steps: m.steps.iter().map(|o| o.0.as_str()).collect(),
            details: m.steps.iter().filter_map(|o| o.1.as_deref()).collect(),
        })
        .collect();
    let evidence_only = evidence_only || redone(&rows);
    // Asked only of work that would be proposed: it costs a few reads per session.
    let driven_by =
        if evidence_only { None } else { driven::by(conn, agent, &runs, &specific, judge.facts)? };
    drop(runs);
    let evidence_only = evidence_only || driven_by.is_some();
    let mut reason = reason;
    if let Some(kind) = driven_by {
        reason.summary.push_str(&format!("; driven by a {} the person already has", kind.as_str()));
        reason.driven = Some(kind.as_str().to_string());
    }
    let mut sessions_seen: HashSet<&str> = HashSet::new();
    let sightings: Vec<Sighting> = rows
        .iter()
        .filter(|m| sessions_seen.insert(&m.session_key))
        .map(|m| Sighting {
            session_key: m.session_key.clone(),
            project: m.project.clone(),
            turn_id: m.turn_id,
            at: m.at.clone(),
            success: m.success,
        })
        .collect();
    let failures = failure_fixes(&rows, &consensus, &steps, &dfs, total);
    let requests = requests_of(&rows);
    let trigger = trigger_of(&rows, &consensus, &dfs);
    let ats: Vec<&str> = rows.iter().filter_map(|m| m.at.as_deref()).collect();
    let keys: Vec<&str> = sightings.iter().take(TITLED).map(|s| s.session_key.as_str()).collect();
    let mut titles: Vec<String> = Vec::new();
    for t in ingest::session_titles(conn, agent, &keys)? {
        if !titles.contains(&t) {
            titles.push(t);
        }
    }
    let ev = WorkflowEvidence {
        agent_id: agent.to_string(),
        steps,
        requests,
        sightings,
        failures,
        reason,
        first_seen: ats.iter().min().map(|s| s.to_string()),
        last_seen: ats.iter().max().map(|s| s.to_string()),
        trigger,
        chore,
        titles,
    };
    Ok(Some((ev, evidence_only)))
}

/// Targets that weigh as steps at most: they say the steps are the same work, not more of it.
const MAX_TARGETS: usize = 2;

/// The hosts, folders and files the work's runs in two or more sessions name that no step key
/// names already and that are rare for the person (see [`literals::is_rare`]), rarest first.
fn shared_targets(
    conn: &Connection,
    agent: &str,
    rows: &[MemberRow],
    consensus: &[mine::ConsensusStep],
    total: u64,
) -> Result<Vec<String>> {
    let keys: Vec<&str> = consensus.iter().map(|c| c.key.as_str()).collect();
    // The change the request asked for is the request's own, not the procedure's target.
    let runs = rows.iter().flat_map(|m| {
        m.steps
            .iter()
            .filter(|o| o.0 != mine::CHANGE_STEP)
            .filter_map(|o| o.1.as_deref())
            .map(|d| (m.session_key.as_str(), d))
    });
    let mut rare: Vec<(u64, String)> = Vec::new();
    for target in literals::shared(runs).into_keys() {
        if literals::named_by(&target, &keys) {
            continue;
        }
        let n = df(conn, agent, &target)?;
        if literals::is_rare(n, total) {
            rare.push((n, target));
        }
    }
    rare.sort();
    Ok(rare
        .into_iter()
        .take(MAX_TARGETS)
        .map(|(_, t)| t.trim_start_matches(literals::PREFIX).to_string())
        .collect())
}

/// Time within which the same request said again in a new session is the task redone.
const REDONE_WITHIN_SECS: i64 = 3600;

/// Whether work seen in two sessions is one task done twice: both asked with the same words
/// within an hour (a retry in a fresh session, or a course exercise typed again), not work that
/// recurs.
fn redone(rows: &[MemberRow]) -> bool {
    let mut firsts: Vec<&MemberRow> = Vec::new();
    for m in rows {
        if !firsts.iter().any(|f| f.session_key == m.session_key) {
            firsts.push(m);
        }
    }
    let [a, b] = firsts.as_slice() else { return false };
    let when =
        |m: &MemberRow| m.at.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    let said = |m: &MemberRow| m.request.split_whitespace().collect::<Vec<_>>().join(" ");
    match (when(a), when(b)) {
        (Some(x), Some(y)) => {
            !a.request.trim().is_empty()
                && said(a) == said(b)
                && (x - y).num_seconds().abs() <= REDONE_WITHIN_SECS
        }
        _ => false,
    }
}

/// A consensus in the order the members did its steps (`detect::spine`), not by mean position.
fn in_done_order(
    consensus: Vec<mine::ConsensusStep>,
    members: &[Member],
) -> Vec<mine::ConsensusStep> {
    let sequences = members.iter().map(|m| m.steps.iter().map(|o| o.0.as_str()));
    spine::ordered(consensus, |c| c.key.as_str(), sequences)
}

/// Whether a workflow's specific steps are (nearly) all steps of another proposed workflow seen in at
/// least twice its sessions: a piece of that procedure (its start-up ritual, its bookkeeping),
/// not a procedure of its own. Commands compare without their split-off arguments.
fn piece_of_bigger(
    conn: &Connection,
    cands: &dyn Candidates,
    agent: &str,
    id: i64,
    support: usize,
    specific: &[String],
) -> Result<bool> {
    Ok(cands
        .proposed_workflows(conn, agent, id)?
        .iter()
        .any(|(_, _, r)| is_piece(specific, support, &r.specific_steps, r.support)))
}

/// Share of a workflow's specific steps another must hold for it to be a piece of that one.
const PIECE_SHARE: f64 = 0.8;

/// Whether specific steps `small` seen in `small_support` sessions are (nearly) all steps of `big`, seen
/// in at least twice as many. A command and its split-off variants (`gt mail`, `gt mail inbox`)
/// are one step here.
fn is_piece(small: &[String], small_support: usize, big: &[String], big_support: usize) -> bool {
    let same = |a: &str, b: &str| {
        a == b
            || (a.starts_with("sh:")
                && (a.strip_prefix(b).is_some_and(|r| r.starts_with(' '))
                    || b.strip_prefix(a).is_some_and(|r| r.starts_with(' '))))
    };
    let held = small.iter().filter(|k| big.iter().any(|t| same(k, t))).count();
    !small.is_empty()
        && big_support >= 2 * small_support
        && big.len() > small.len()
        && held as f64 >= PIECE_SHARE * small.len() as f64
}

/// The open proposed workflow candidates that are pieces of workflow `id` (proposed with
/// `reason`), to be made evidence now: they were judged before it was proposed.
pub fn pieces_of(
    conn: &Connection,
    cands: &dyn Candidates,
    agent: &str,
    id: i64,
    reason: &Reason,
) -> Result<Vec<i64>> {
    Ok(cands
        .proposed_workflows(conn, agent, id)?
        .into_iter()
        .filter(|(_, open, r)| {
            *open && is_piece(&r.specific_steps, r.support, &reason.specific_steps, reason.support)
        })
        .map(|(cid, _, _)| cid)
        .collect())
}

/// The checks behind a person's pasted failures: the test, lint, build and format commands run
/// in the sessions where the failures were pasted, with their commands, most sessions first.
fn chore_checks(
    conn: &Connection,
    agent: &str,
    rows: &[MemberRow],
) -> Result<Vec<mine::ConsensusStep>> {
    let mut sessions: Vec<String> = Vec::new();
    for m in rows {
        if !sessions.contains(&m.session_key) {
            sessions.push(m.session_key.clone());
        }
    }
    let mut found: Vec<(String, HashSet<String>, usize, Vec<String>)> = Vec::new();
    for (session, step, detail) in ingest::session_calls(conn, agent, &sessions)? {
        let call = RawCall { step, detail, is_error: false };
        for obs in mine::turn_sequence(std::slice::from_ref(&call)).steps {
            if step::check_kind(&obs.0).is_none() {
                continue;
            }
            let at = match found.iter().position(|f| f.0 == obs.0) {
                Some(at) => at,
                None => {
                    found.push((obs.0.clone(), HashSet::new(), 0, Vec::new()));
                    found.len() - 1
                }
            };
            found[at].1.insert(session.clone());
            found[at].2 += 1;
            found[at].3.extend(obs.1);
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.1.len()));
    Ok(found
        .into_iter()
        .map(|(key, s, members, details)| mine::ConsensusStep {
            key,
            sessions: s.len(),
            members,
            details,
        })
        .collect())
}

/// Sessions whose members hold enough steps to be real work, not a start that stopped.
fn substantive_sessions(members: &[Member]) -> usize {
    let mut steps: HashMap<&str, usize> = HashMap::new();
    for m in members {
        *steps.entry(&m.session_key).or_default() += m.steps.len();
    }
    steps.values().filter(|&&n| n >= SUBSTANTIVE_STEPS).count()
}

/// The agent's step frequencies for a consensus, and its specific steps in order.
struct Weighed {
    total: u64,
    dfs: HashMap<String, u64>,
    specific: Vec<String>,
}

fn weigh(conn: &Connection, agent: &str, consensus: &[mine::ConsensusStep]) -> Result<Weighed> {
    let total = turns(conn, agent)?;
    let mut dfs: HashMap<String, u64> = HashMap::new();
    for c in consensus {
        let mut n = df(conn, agent, &c.key)?;
        // A command's variant is as common as the command it was split from.
        if n == 0
            && let Some(base) = mine::variant_base(&c.key)
        {
            n = df(conn, agent, base)?;
        }
        dfs.insert(c.key.clone(), n);
    }
    let specific = consensus
        .iter()
        .filter(|c| mine::is_specific(&c.key, &dfs, total))
        .map(|c| c.key.clone())
        .collect();
    Ok(Weighed { total, dfs, specific })
}

/// Evidence from a few turns that did the same task (a signature streak): the steps most of them
/// share, with their commands, as a draft shows them.
pub fn evidence_of_turns(
    conn: &Connection,
    agent: &str,
    done: &[(String, mine::TurnSeq)],
    requests: Vec<String>,
    sightings: Vec<Sighting>,
) -> Result<WorkflowEvidence> {
    let members: Vec<Member> = done
        .iter()
        .map(|(session_key, seq)| {
            let steps = seq.steps[..seq.steps.len().min(mine::MAX_STEPS)].to_vec();
            Member { session_key: session_key.clone(), steps }
        })
        .collect();
    let support = members.iter().map(|m| m.session_key.as_str()).collect::<HashSet<_>>().len();
    let consensus = mine::consensus(&members, 1, members.len().div_ceil(2).max(1));
    let consensus = in_done_order(consensus, &members);
    let Weighed { specific, .. } = weigh(conn, agent, &consensus)?;
    let steps: Vec<WorkflowStep> =
        consensus.iter().map(|c| workflow_step(c, support, members.len())).collect();
    let shown: Vec<String> = specific.iter().take(4).map(|k| display(k)).collect();
    let reason = Reason {
        support,
        iterations: members.len(),
        min_support: 1,
        specificity: if consensus.is_empty() {
            0.0
        } else {
            specific.len() as f64 / consensus.len() as f64
        },
        summary: format!(
            "succeeded {} times in a row; {} specific steps ({})",
            members.len(),
            specific.len(),
            shown.join(", ")
        ),
        score: members.len() as f64 * specific.len() as f64,
        specific_steps: specific,
        driven: None,
        targets: Vec::new(),
    };
    Ok(WorkflowEvidence {
        agent_id: agent.to_string(),
        steps,
        requests,
        sightings,
        failures: Vec::new(),
        reason,
        first_seen: None,
        last_seen: None,
        trigger: None,
        chore: false,
        titles: Vec::new(),
    })
}

/// What failed in the members and how it was fixed: the specific steps run between the failure
/// and the passing run, and the passing command itself when it was another one (templated over
/// the sessions: `git push --set-upstream origin <branch>`).
fn failure_fixes(
    rows: &[MemberRow],
    consensus: &[mine::ConsensusStep],
    steps: &[WorkflowStep],
    dfs: &HashMap<String, u64>,
    total: u64,
) -> Vec<FailureFix> {
    let in_consensus: HashSet<&str> = consensus.iter().map(|c| c.key.as_str()).collect();
    let mut failures: Vec<FailureFix> = Vec::new();
    let mut sessions: HashMap<String, HashSet<&str>> = HashMap::new();
    let mut reruns: HashMap<String, Vec<String>> = HashMap::new();
    let mut edits: HashSet<String> = HashSet::new();
    for m in rows {
        for Failure(key, fix) in &m.failures {
            if !in_consensus.contains(key.as_str()) {
                continue;
            }
            let label =
                steps.iter().find(|s| &s.key == key).map_or(display(key), |s| s.template.clone());
            if key.starts_with("file:Edit:") {
                edits.insert(label.clone());
            }
            sessions.entry(label.clone()).or_default().insert(&m.session_key);
            let entry = match failures.iter_mut().position(|f| f.step == label) {
                Some(i) => &mut failures[i],
                None => {
                    failures.push(FailureFix {
                        step: label.clone(),
                        sessions: 0,
                        fixed_by: Vec::new(),
                    });
                    failures.last_mut().expect("just pushed")
                }
            };
            for f in fix {
                if let Some(command) = f.strip_prefix(RERUN_AS) {
                    reruns.entry(label.clone()).or_default().push(command.to_string());
                    continue;
                }
                // Looking around (reads, searches, a file read by its path) is not the fix;
                // edits and commands are.
                let counts = (f == mine::CHANGE_STEP
                    || f.starts_with("file:Edit:")
                    || mine::is_specific(f, dfs, total))
                    && !step::only_looks(f);
                let d =
                    if f == mine::CHANGE_STEP { "Edit the code".to_string() } else { display(f) };
                if counts && !entry.fixed_by.contains(&d) {
                    entry.fixed_by.push(d);
                }
            }
        }
    }
    // An edit refused until the file was read is the agent's tool's rule, not the work's: with
    // nothing but reads before it passed, it says nothing a person would write down.
    failures.retain(|f| {
        !(edits.contains(&f.step) && f.fixed_by.is_empty() && !reruns.contains_key(&f.step))
    });
    for f in &mut failures {
        f.sessions = sessions.get(&f.step).map_or(0, HashSet::len);
        if let Some(commands) = reruns.get(&f.step) {
            let mut distinct: Vec<String> = Vec::new();
            for c in commands {
                if distinct.len() < 8 && !distinct.contains(c) {
                    distinct.push(c.clone());
                }
            }
            if let Some(t) = mine::template(&distinct) {
                f.fixed_by.insert(0, format!("{}{t}", RERUN_AS));
            }
        }
    }
    failures
}

/// Requests a draft may quote: steering replies, opaque prompts and templates (the same long
/// prompt in several sessions, an agent-activation block) say nothing of the task.
fn requests_of(rows: &[MemberRow]) -> Vec<String> {
    let mut sessions_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    for m in rows {
        sessions_of.entry(m.request.trim()).or_default().insert(&m.session_key);
    }
    let mut requests: Vec<String> = Vec::new();
    // The asks most sessions said first (ties in the order they were said).
    let mut order: Vec<&MemberRow> = rows.iter().collect();
    order.sort_by_key(|m| std::cmp::Reverse(sessions_of[m.request.trim()].len()));
    // A request said again is judged once: what it gives is already taken or refused.
    let mut judged: HashSet<&str> = HashSet::new();
    for m in order {
        let r = m.request.trim();
        if requests.len() >= QUOTED {
            break;
        }
        if !judged.insert(r) {
            continue;
        }
        if r.chars().count() > TEMPLATE_CHARS && sessions_of[r].len() >= 2 {
            continue;
        }
        let opaque = r.is_empty() || super::is_steering(r, false) || redact::is_opaque(r);
        // Pasted output is quoted by its first line: the person's words before the log.
        let r = if paste::is_failing_output(r) {
            let first = r.lines().next().unwrap_or(r);
            first.split(['⎯', '─', '━', '=']).next().unwrap_or(first).trim()
        } else {
            r
        };
        if !opaque && !r.is_empty() && !requests.iter().any(|x| x == r) {
            requests.push(r.chars().take(400).collect());
        }
    }
    requests
}

/// Sessions whose titles a workflow's evidence reads.
const TITLED: usize = 8;

/// Requests a workflow's evidence quotes.
const QUOTED: usize = 5;

/// A prompt this long said word for word in two sessions is a template, not a request.
const TEMPLATE_CHARS: usize = 160;

/// What starts work whose requests say nothing (templates, menu codes): a slash command the
/// requests open with, else the workflow-definition file it reads (the least common file read
/// of the consensus, preferring a file whose name is generic, `workflow.yaml`, `instructions.md`).
fn trigger_of(
    rows: &[MemberRow],
    consensus: &[mine::ConsensusStep],
    dfs: &HashMap<String, u64>,
) -> Option<String> {
    let slash = rows.iter().find_map(|m| super::requests::slash_command(m.request.trim()));
    if slash.is_some() {
        return slash;
    }
    // A file named for one run (a dated report, an id) is what the work wrote, not what starts it.
    let dated = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= 4)
    };
    let reads = consensus.iter().filter_map(|c| {
        let path = c.key.strip_prefix("file:Read:").or_else(|| c.key.strip_prefix("file:Edit:"))?;
        step::procedure_path(path)
            .filter(|p| !dated(p))
            .map(|p| (p, dfs.get(&c.key).copied().unwrap_or(0)))
    });
    reads
        .min_by_key(|(p, df)| (!step::is_definition_file(p), *df, p.len()))
        .map(|(p, _)| p.to_string())
}

/// A step key as a reader says it: `cargo test`, `Edit CHANGELOG.md`, `mcp__x__y`.
pub fn display(key: &str) -> String {
    if let Some(cmd) = key.strip_prefix("sh:") {
        return cmd.to_string();
    }
    if let Some(rest) = key.strip_prefix("file:") {
        return rest.replacen(':', " ", 1);
    }
    key.split_once(':').map_or(key, |(_, v)| v).to_string()
}

fn workflow_step(c: &mine::ConsensusStep, always: usize, times: usize) -> WorkflowStep {
    let kind = step::kind_of(&c.key);
    let mut observed: Vec<String> = Vec::new();
    for d in &c.details {
        if observed.len() < 3 && !observed.contains(d) {
            observed.push(d.clone());
        }
    }
    let (tool, template) = match c.key.split_once(':') {
        _ if c.key == mine::CHANGE_STEP => {
            ("Edit".to_string(), mine::file_template("Edit", "the code", &c.details))
        }
        Some(("sh", _)) => {
            let distinct: Vec<String> = {
                let mut v: Vec<String> = Vec::new();
                for d in &c.details {
                    if v.len() < 8 && !v.contains(d) {
                        v.push(d.clone());
                    }
                }
                v
            };
            ("shell".to_string(), mine::template(&distinct).unwrap_or_else(|| display(&c.key)))
        }
        Some(("file", rest)) => {
            let (verb, role) = rest.split_once(':').unwrap_or((rest, "*"));
            (verb.to_string(), mine::file_template(verb, role, &c.details))
        }
        // A tool that runs a command where it works (a remote shell) shows the command.
        Some(("mcp", name)) => match name.split_once(' ') {
            Some((tool, _)) => {
                let mut distinct: Vec<String> = Vec::new();
                for d in &c.details {
                    if distinct.len() < 8 && !distinct.contains(d) {
                        distinct.push(d.clone());
                    }
                }
                let template = mine::template(&distinct)
                    .map_or_else(|| name.to_string(), |command| format!("{tool} {command}"));
                (name.to_string(), template)
            }
            None => (name.to_string(), name.to_string()),
        },
        Some(("agent", t)) => ("Task".to_string(), format!("subagent {t}")),
        Some(("skill", s)) => ("Skill".to_string(), format!("skill {s}")),
        Some((_, t)) => (t.to_string(), t.to_string()),
        None => (c.key.clone(), c.key.clone()),
    };
    WorkflowStep {
        key: c.key.clone(),
        kind,
        tool,
        template,
        observed,
        check: step::check_kind(&c.key),
        sessions: c.sessions,
        times: c.members,
        // In a loop, a step most iterations skip is optional too.
        optional: c.sessions < always || 2 * c.members < times,
    }
}

/// Whether a proposed workflow already holds a turn of the sequence `hash`: the workflow says
/// the same with the commands, so the sequence row stays evidence.
pub fn covers_sequence(
    conn: &Connection,
    cands: &dyn Candidates,
    agent: &str,
    hash: &str,
) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT w.candidate_id FROM sequence_sightings q
         JOIN workflow_members m ON m.turn_id = q.turn_id
         JOIN workflows w ON w.id = m.workflow_id
         WHERE q.agent_id = ?1 AND q.hash = ?2 AND w.candidate_id IS NOT NULL",
    )?;
    let mut rows = stmt.query(params![agent, hash])?;
    let mut asked: HashSet<i64> = HashSet::new();
    while let Some(row) = rows.next()? {
        let candidate: i64 = row.get(0)?;
        if asked.insert(candidate) && cands.is_proposed(conn, candidate)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The open sequence candidates whose sightings are turns of workflow `id`, to be made evidence
/// only (the workflow proposes the same work with its commands). With `turns`, only the
/// sightings of those turns (members that just joined) are looked at; without, those of every
/// member.
pub fn sequences_under(
    conn: &Connection,
    cands: &dyn Candidates,
    agent: &str,
    id: i64,
    turns: Option<&[i64]>,
) -> Result<Vec<i64>> {
    let mut hashes: Vec<String> = Vec::new();
    let mut add = |hash: String| {
        if !hashes.contains(&hash) {
            hashes.push(hash);
        }
    };
    match turns {
        Some(turns) => {
            let mut stmt = conn.prepare_cached(
                "SELECT DISTINCT hash FROM sequence_sightings WHERE turn_id = ?2 AND agent_id = ?1",
            )?;
            for turn in turns {
                for hash in stmt.query_map(params![agent, turn], |r| r.get(0))? {
                    add(hash?);
                }
            }
        }
        None => {
            // From the workflow's members (CROSS JOIN keeps that order): the planner would
            // otherwise walk every sighting of the agent.
            let mut stmt = conn.prepare_cached(
                "SELECT DISTINCT q.hash FROM workflow_members m CROSS JOIN sequence_sightings q
                 WHERE m.workflow_id = ?2 AND q.turn_id = m.turn_id AND q.agent_id = ?1",
            )?;
            for hash in stmt.query_map(params![agent, id], |r| r.get(0))? {
                add(hash?);
            }
        }
    }
    cands.open_sequences(conn, agent, &hashes)
}

/// Workflow `id`'s candidate, once judged.
fn candidate_and_sessions(conn: &Connection, id: i64) -> Result<Option<(Option<i64>, i64)>> {
    Ok(conn
        .prepare_cached("SELECT candidate_id, sessions FROM workflows WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Whether workflow `id`'s candidate is proposed (recorded, not as evidence only).
pub fn is_proposed(conn: &Connection, cands: &dyn Candidates, id: i64) -> Result<bool> {
    match candidate_and_sessions(conn, id)? {
        Some((Some(candidate), _)) => cands.is_proposed(conn, candidate),
        _ => Ok(false),
    }
}

/// Whether workflow `id` holds its turns' work for a streak: seen in `min_sessions` sessions or
/// already proposed.
pub fn is_covering(
    conn: &Connection,
    cands: &dyn Candidates,
    id: i64,
    min_sessions: usize,
) -> Result<bool> {
    match candidate_and_sessions(conn, id)? {
        None => Ok(false),
        Some((_, sessions)) if sessions >= min_sessions.max(1) as i64 => Ok(true),
        Some((Some(candidate), _)) => cands.is_proposed(conn, candidate),
        Some((None, _)) => Ok(false),
    }
}

/// The workflow holding `turn_id` as a member, if detection placed it in one.
pub fn holding(conn: &Connection, turn_id: i64, session_key: &str) -> Result<Option<i64>> {
    // A steering reply's work is its task's: the latest member of the session at or before it.
    Ok(conn
        .query_row(
            "SELECT workflow_id FROM workflow_members WHERE turn_id <= ?1 AND session_key = ?2
             ORDER BY turn_id DESC LIMIT 1",
            params![turn_id, session_key],
            |r| r.get(0),
        )
        .optional()?)
}

/// The candidate a workflow was proposed as, if any.
pub fn candidate_of(conn: &Connection, id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row("SELECT candidate_id FROM workflows WHERE id = ?1", [id], |r| r.get(0))
        .optional()?
        .flatten())
}
