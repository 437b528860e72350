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
        if row.is_auto_created && days >= archive_days {
            let reason = format!(
                "unused for {days} days (lifecycle.archive_days = {archive_days}): moved out of \
                 the agent's reach; `skilldeck restore {}` brings it back",
                row.name
            );
            super::state::archive_with_reason(ws, &row.agent_id, &row.name, &reason)?;
            report.archived.push((row.agent_id, row.name, days));
            continue;
        }
        let conn = ws.store.conn();
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
    Ok(report)
}
