//! The usage-based lifecycle, beside the outcome-based one: what the peers' curators do with
//! skills nobody uses, with skilldeck's protections.
//!
//! A skill's last use is its newest invocation, else when it went live (or was last restored).
//! - Unused for `lifecycle.stale_days` (30): marked `stale` (event `stale`). Its outcome status
//!   stays as it is: the two judgements are independent.
//! - An auto-created skill unused for `lifecycle.archive_days` (90): archived, moved out of the
//!   agent's reach into the archive folder (`skilldeck restore NAME` brings it back).
//! - A use makes a stale skill active again (event `active`).
//! - Pinned skills are never marked or moved; hand-written ones are marked, never moved.

use std::collections::HashSet;

use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::catalog::EventKind;
use crate::catalog::{events, invocations, skills};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default, Serialize)]
pub struct StaleReport {
    /// (agent, name, days unused) newly marked stale.
    pub stale: Vec<(String, String, i64)>,
    /// Auto-created skills moved to the archive.
    pub archived: Vec<(String, String, i64)>,
    /// Stale skills used again.
    pub active_again: Vec<(String, String)>,
    /// The earliest moment a live skill crosses a threshold with no new use or skill change
    /// (none: no skill can): until then an incremental sweep need not run the rules again.
    #[serde(skip)]
    pub next_due: Option<DateTime<Utc>>,
}

fn parse(at: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(at).ok().map(|d| d.with_timezone(&Utc))
}

/// `meta` key: what the rules last read, as `SKILLS|STALE_DAYS|ARCHIVE_DAYS#USES#DUE` (the
/// skills stamp, the thresholds, the newest invocation id, and `next_due` or `never`).
const STAMP: &str = "usage.staleness_stamp";

/// Applies the usage rules as of `now` when something they read changed (every time when
/// `full`): reading every skill's last use walks the whole invocation index, so an incremental
/// sweep with nothing new skips them. Skills or thresholds changed, or a skill's threshold came
/// due: every skill. Only new uses: only the skills used since (a use can only make a skill
/// fresher: it ends a stale mark, never starts one or archives).
pub fn staleness_if_due(ws: &mut Workspace, now: DateTime<Utc>, full: bool) -> Result<StaleReport> {
    let cfg = &ws.config.lifecycle;
    let days = format!("{}|{}", cfg.stale_days, cfg.archive_days);
    let conn = ws.store.conn();
    let inputs = format!("{}|{days}", skills::usage_stamp(conn)?);
    let uses = invocations::max_id(conn)?;
    let stored = ws.store.meta_get(STAMP)?.unwrap_or_default();
    let mut parts = stored.splitn(3, '#');
    let (last_inputs, last_uses, due) = (
        parts.next().unwrap_or(""),
        parts.next().and_then(|u| u.parse::<i64>().ok()),
        parts.next().unwrap_or(""),
    );
    let due = if due == "never" { None } else { Some(parse(due)) };
    let not_due = match due {
        None => true,
        Some(Some(d)) => now < d,
        Some(None) => false,
    };
    let report = if full || last_inputs != inputs || !not_due || last_uses.is_none() {
        staleness_of(ws, now, None)?
    } else if last_uses != Some(uses) {
        let used = invocations::skills_above(ws.store.conn(), last_uses.unwrap_or(0))?;
        let mut report = staleness_of(ws, now, Some(&used))?;
        // The others' thresholds stand: the earliest of all is still due first.
        report.next_due = match (due.flatten(), report.next_due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        report
    } else {
        return Ok(StaleReport::default());
    };
    // The rules archive and mark: the stamp holds what they left.
    let left = skills::usage_stamp(ws.store.conn())?;
    let due = report.next_due.map_or("never".to_string(), |d| d.to_rfc3339());
    ws.store.meta_set(STAMP, &format!("{left}|{days}#{uses}#{due}"))?;
    Ok(report)
}

/// Applies the usage rules as of `now`, to every skill.
pub fn staleness(ws: &mut Workspace, now: DateTime<Utc>) -> Result<StaleReport> {
    staleness_of(ws, now, None)
}

/// Applies the usage rules as of `now` to the skills in `only` (every skill: `None`).
fn staleness_of(
    ws: &mut Workspace,
    now: DateTime<Utc>,
    only: Option<&HashSet<i64>>,
) -> Result<StaleReport> {
    let (stale_days, archive_days) =
        (ws.config.lifecycle.stale_days as i64, ws.config.lifecycle.archive_days as i64);
    let conn = ws.store.conn();
    let (last_used, mut rows) = match only {
        None => (invocations::last_used(conn)?, skills::usage_rows(conn)?),
        Some(ids) => {
            let list: Vec<i64> = ids.iter().copied().collect();
            (invocations::last_used_each(conn, &list)?, skills::usage_rows(conn)?)
        }
    };
    if let Some(ids) = only {
        rows.retain(|r| ids.contains(&r.id));
    }
    let mut report = StaleReport::default();
    let stamp = now_rfc3339();
    let mut to_archive = Vec::new();
    // Marks and their events commit together (one sync for the pass, not one per skill).
    let tx = ws.store.conn_mut().transaction()?;
    let conn: &rusqlite::Connection = &tx;
    for row in rows {
        if !row.status.is_live() || row.protected {
            continue;
        }
        let used = last_used.get(&row.id);
        let since = [Some(&row.created_at), row.streak_reset_at.as_ref(), used]
            .into_iter()
            .flatten()
            .filter_map(|s| parse(s))
            .max();
        let Some(since) = since else { continue };
        let days = (now - since).num_days();
        // When this skill next crosses a threshold (`days >= n` from `since + n days` on).
        let mut due = |n: i64| {
            let at = since + chrono::Duration::days(n);
            report.next_due = Some(report.next_due.map_or(at, |d| d.min(at)));
        };
        if row.is_auto_created && days < archive_days {
            due(archive_days);
        }
        if days < stale_days && row.stale_since.is_none() {
            due(stale_days);
        }
        if row.is_auto_created && days >= archive_days {
            let reason = format!(
                "unused for {days} days (lifecycle.archive_days = {archive_days}): moved out of \
                 the agent's reach; `skilldeck restore {}` brings it back",
                row.name
            );
            to_archive.push((row.agent_id.clone(), row.name.clone(), reason));
            report.archived.push((row.agent_id, row.name, days));
            continue;
        }
        if days >= stale_days && row.stale_since.is_none() {
            let kept = if row.is_auto_created {
                format!("archived after {archive_days} days unused")
            } else {
                "hand-written: flagged, never moved".to_string()
            };
            let reason =
                format!("unused for {days} days (lifecycle.stale_days = {stale_days}); {kept}");
            skills::set_stale(conn, row.id, Some(&stamp))?;
            events::add(conn, row.id, &stamp, EventKind::Stale, None, None, &reason)?;
            report.stale.push((row.agent_id, row.name, days));
        } else if days < stale_days && row.stale_since.is_some() {
            let reason = match used {
                Some(at) => format!("used again ({at})"),
                None => "restored".to_string(),
            };
            skills::set_stale(conn, row.id, None)?;
            events::add(conn, row.id, &stamp, EventKind::Active, None, None, &reason)?;
            report.active_again.push((row.agent_id, row.name));
        }
    }
    tx.commit()?;
    // Archived in batches: each batch is one durable step (see `journal::moved_many`).
    for batch in to_archive.chunks(ARCHIVE_BATCH) {
        super::state::archive_many(ws, batch)?;
    }
    Ok(report)
}

/// Skills archived per durable step.
const ARCHIVE_BATCH: usize = 1000;
