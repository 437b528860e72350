//! Proposals that fix skills, staged in the review queue like any proposed version (approved,
//! rejected and undone through `review`):
//!
//! - **trigger rewrite**: a live skill standing as "not triggering" (`usage::triggering`) gets a
//!   new version whose description quotes the requests it missed, so the agent picks it for
//!   them. One proposal per set of quoted requests, and only when it changes the text: the
//!   same missed requests never propose again, whether their proposal was approved or not.
//! - **restore**: an archived or retired skill whose workflow recurred in at least
//!   `RESTORE_MIN` sessions since it was parked is proposed for restore, with those sessions and
//!   their requests as evidence. Approving it restores the skill; undoing parks it again. One
//!   proposal per parking. A skill a merge absorbed is never proposed: its merge holds it.

use std::collections::HashSet;

use anyhow::Result;
use serde::Serialize;

use super::candidates::{self, CandidateSource, DraftedBy, NewMerge};
use super::model;
use crate::catalog::{SkillStatus, events, skills, versions};
use crate::lifecycle::{self, files};
use crate::store::now_rfc3339;
use crate::text::{hex, injection, safe};
use crate::usage::{self, merge, missed, missed::Missed, steps};
use crate::workflow::Reason;
use crate::workspace::Workspace;

/// Sessions that must repeat a parked skill's workflow before it is proposed for restore.
pub const RESTORE_MIN: usize = 3;
/// Missed requests a rewritten description quotes, and the longest quoted.
const QUOTED: usize = 3;
const QUOTE_CHARS: usize = 80;
/// What a rewritten description adds before the quoted requests.
const LEAD: &str = " Use it for requests like: ";
/// Longest description the Agent Skills spec allows.
const MAX_DESCRIPTION: usize = 1024;

/// Trigger rewrites and restores proposed, and skills not proposed with why (the text failed
/// its checks).
pub type FixReport = lifecycle::ProposedFixes;

/// Proposes a trigger rewrite for each skill standing as not triggering, and a restore for each
/// parked skill whose workflow recurs; each at most once (see the module notes).
pub fn propose_fixes(ws: &Workspace) -> Result<FixReport> {
    let conn = ws.store.conn();
    let mut report = FixReport::default();
    let standing = events::not_triggering(conn)?;
    let absorbed = skills::absorbed(conn)?;
    for row in skills::all(conn)? {
        if usage::is_own_playbook(ws, &row.name) {
            continue;
        }
        let outcome = if row.status.is_live() {
            if !standing.contains(&row.id) {
                continue;
            }
            let done = rewrite(ws, &row)?;
            report.trigger_rewrites += usize::from(done.as_ref().is_ok_and(|d| *d));
            done
        } else if matches!(row.status, SkillStatus::Archived | SkillStatus::Retired)
            && !absorbed.contains(&row.id)
        {
            let done = restore(ws, &row)?;
            report.restores += usize::from(done.as_ref().is_ok_and(|d| *d));
            done
        } else {
            continue;
        };
        if let Err(why) = outcome {
            report.skipped.push(format!("{}: {why}", row.name));
        }
    }
    Ok(report)
}

/// The requests of `missed`, fit to quote in a description: one line each, without text aimed
/// at the agent, clipped, each once, newest first.
fn quotable(missed: &[Missed]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in missed.iter().rev() {
        let one: String = m.request.split_whitespace().collect::<Vec<_>>().join(" ");
        let one = one.replace(['“', '”', '"'], "'");
        if one.is_empty() || !injection::flags(&one).is_empty() {
            continue;
        }
        let clipped = match one.char_indices().nth(QUOTE_CHARS) {
            Some((at, _)) => format!("{}…", &one[..at]),
            None => one,
        };
        if seen.insert(clipped.to_lowercase()) {
            out.push(clipped);
        }
        if out.len() == QUOTED {
            break;
        }
    }
    out
}

/// `description` with the requests quoted after it (an earlier rewrite's quotes replaced).
pub fn rewritten_description(description: &str, requests: &[String]) -> String {
    let base = description.split(LEAD.trim_start()).next().unwrap_or("").trim();
    let quoted: Vec<String> = requests.iter().map(|r| format!("“{r}”")).collect();
    let mut out = format!("{base}{LEAD}{}.", quoted.join("; "));
    if out.len() > MAX_DESCRIPTION {
        let mut end = MAX_DESCRIPTION;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

fn rewrite(ws: &Workspace, row: &skills::SkillRow) -> Result<std::result::Result<bool, String>> {
    let conn = ws.store.conn();
    let r = skills::uptake_ref(conn, row.id)?;
    let u = missed::uptake(conn, &r, candidates::workflow_steps)?;
    let requests = quotable(&u.missed);
    if !u.not_triggering || requests.is_empty() {
        return Ok(Ok(false));
    }
    // Keyed by what it quotes: after an approval (or a rejection) the same requests are known.
    let quoted = hex::sha256_hex(requests.join("\n").as_bytes());
    let hash = format!("trigger:{}:{}", row.id, &quoted[..16]);
    if candidates::hash_known(conn, &row.agent_id, &hash)? {
        return Ok(Ok(false));
    }
    let description = rewritten_description(&u.description, &requests);
    let content = versions::latest_content(conn, row.id)?;
    let text = merge::with_description(&content, &row.name, &description);
    if text == content {
        return Ok(Ok(false));
    }
    let summary = format!(
        "{} missed triggers vs {} uses: the description now quotes the requests it missed",
        u.missed.len(),
        u.uses
    );
    let sessions = distinct_sessions(&u.missed);
    let seen = Seen { sessions: &sessions, occurrences: u.missed.len(), examples: &requests };
    record(ws, row, &hash, &text, CandidateSource::Trigger, seen, summary)
}

fn restore(ws: &Workspace, row: &skills::SkillRow) -> Result<std::result::Result<bool, String>> {
    let conn = ws.store.conn();
    let Some(parked) = events::parked_at(conn, row.id)? else { return Ok(Ok(false)) };
    let hash = format!("restore:{}:{parked}", row.id);
    if candidates::hash_known(conn, &row.agent_id, &hash)? {
        return Ok(Ok(false));
    }
    let mut r = skills::uptake_ref(conn, row.id)?;
    // A skill with no specific steps cannot recur: nothing more to read.
    let workflow = missed::workflow_of(conn, &r, candidates::workflow_steps)?.0;
    if steps::specific(&workflow).is_empty() {
        return Ok(Ok(false));
    }
    r.since = parked.clone();
    let u = missed::uptake(conn, &r, candidates::workflow_steps)?;
    let sessions = distinct_sessions(&u.missed);
    if sessions.len() < RESTORE_MIN {
        return Ok(Ok(false));
    }
    let requests: Vec<String> = u.missed.iter().rev().map(|m| m.request.clone()).take(5).collect();
    let text = versions::latest_content(conn, row.id)?;
    let summary = format!(
        "{} {} since {parked}: its workflow recurs in {} sessions without it (newest: {})",
        row.name,
        row.status,
        sessions.len(),
        safe::inline(&sessions[0])
    );
    let seen = Seen { sessions: &sessions, occurrences: u.missed.len(), examples: &requests };
    record(ws, row, &hash, &text, CandidateSource::Restore, seen, summary)
}

/// The sessions of `missed`, each once, newest first.
fn distinct_sessions(missed: &[Missed]) -> Vec<String> {
    let mut sessions: Vec<String> = Vec::new();
    for m in missed.iter().rev() {
        if !sessions.contains(&m.session_key) {
            sessions.push(m.session_key.clone());
        }
    }
    sessions
}

/// What a fix proposal was seen in: distinct sessions, how many turns, the requests quoted.
struct Seen<'a> {
    sessions: &'a [String],
    occurrences: usize,
    examples: &'a [String],
}

fn record(
    ws: &Workspace,
    row: &skills::SkillRow,
    hash: &str,
    text: &str,
    source: CandidateSource,
    seen: Seen,
    summary: String,
) -> Result<std::result::Result<bool, String>> {
    let Seen { sessions, occurrences, examples } = seen;
    let scratch = ws.paths.staging_dir.join(".drafting");
    if let Err(why) = model::check(text, &row.name, &scratch) {
        return Ok(Err(why));
    }
    let conn = ws.store.conn();
    let description = files::front_matter(text).description.unwrap_or_default();
    let sequence = skills::live_sequences(conn)?
        .into_iter()
        .find(|(id, _, _)| *id == row.id)
        .map_or_else(|| "[]".to_string(), |(_, _, s)| s);
    let reason = Reason {
        support: sessions.len(),
        iterations: 0,
        min_support: if source == CandidateSource::Restore { RESTORE_MIN } else { 0 },
        specificity: 0.0,
        specific_steps: Vec::new(),
        score: sessions.len() as f64,
        summary,
        driven: None,
        targets: Vec::new(),
    };
    candidates::record_merge(
        conn,
        &NewMerge {
            agent: &row.agent_id,
            hash,
            name: &row.name,
            description: &description,
            skill_md: text,
            tool_sequence: &sequence,
            source,
            survivor: row.id,
            absorbed: None,
            sessions,
            occurrences,
            examples,
            reason: &reason,
            drafted_by: DraftedBy::Mechanical,
            draft_note: None,
            now: &now_rfc3339(),
        },
    )?;
    Ok(Ok(true))
}

/// A skill's uptake before and after its latest approved trigger rewrite.
#[derive(Debug, Clone, Serialize)]
pub struct RewriteUptake {
    pub candidate_id: i64,
    pub approved_at: String,
    pub uses_before: usize,
    pub missed_before: usize,
    pub uses_after: usize,
    pub missed_after: usize,
}

/// Uses and missed triggers before and after the latest trigger rewrite approved for `skill`.
pub fn rewrite_uptake(ws: &Workspace, skill_id: i64) -> Result<Option<RewriteUptake>> {
    let conn = ws.store.conn();
    let Some((candidate_id, at)) =
        candidates::latest_approved(conn, skill_id, CandidateSource::Trigger)?
    else {
        return Ok(None);
    };
    let r = skills::uptake_ref(conn, skill_id)?;
    let all = missed::uptake(conn, &r, candidates::workflow_steps)?;
    let after = missed::uptake(
        conn,
        &skills::UptakeRef { since: at.clone(), ..r },
        candidates::workflow_steps,
    )?;
    Ok(Some(RewriteUptake {
        candidate_id,
        approved_at: at,
        uses_before: all.uses.saturating_sub(after.uses),
        missed_before: all.missed.len().saturating_sub(after.missed.len()),
        uses_after: after.uses,
        missed_after: after.missed.len(),
    }))
}
