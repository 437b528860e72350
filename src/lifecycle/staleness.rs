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

use anyhow::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::catalog::{invocations, skills};
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

/// Applies the usage rules as of `now`.
pub fn staleness(ws: &mut Workspace, now: DateTime<Utc>) -> Result<StaleReport> {
    let (stale_days, archive_days) =
        (ws.config.lifecycle.stale_days as i64, ws.config.lifecycle.archive_days as i64);
    let conn = ws.store.conn();
    let last_used = invocations::last_used(conn)?;
    let rows = skills::usage_rows(conn)?;
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
            super::add_event(conn, row.id, &stamp, "stale", None, None, &reason)?;
            report.stale.push((row.agent_id, row.name, days));
        } else if days < stale_days && row.stale_since.is_some() {
            let reason = match used {
                Some(at) => format!("used again ({at})"),
                None => "restored".to_string(),
            };
            skills::set_stale(conn, row.id, None)?;
            super::add_event(conn, row.id, &stamp, "active", None, None, &reason)?;
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
