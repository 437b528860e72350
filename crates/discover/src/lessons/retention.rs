//! Retention: the playbook's cap and trim order, and pruning lessons that are surfaced often
//! and never help (a lesson's utility is [`super::utility`]).

use anyhow::Result;
use rusqlite::Connection;

use super::{Lesson, LessonStatus, db};
use crate::config::LessonsConfig;

/// Retrievals a lesson needs before it can be pruned for never helping.
pub const MIN_RETRIEVALS: i64 = 5;
/// Share of the live lessons one prune may drop.
pub const MAX_DROP_FRACTION: f64 = 0.25;

/// The lessons the playbook holds, in its order: pinned ones first, then verified ones, then the
/// highest-utility unverified ones, `max` in all. Ties keep the older lesson first.
pub fn playbook_order(mut live: Vec<Lesson>, max: usize) -> Vec<Lesson> {
    live.retain(|l| l.status.is_live());
    let rank = |l: &Lesson| match (l.status, l.verified) {
        (LessonStatus::Pinned, _) => 0,
        (_, true) => 1,
        _ => 2,
    };
    live.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then(b.utility.partial_cmp(&a.utility).unwrap_or(std::cmp::Ordering::Equal))
            .then(a.id.cmp(&b.id))
    });
    live.truncate(max);
    live
}

/// Drops (status `pruned`) live lessons surfaced at least `min_retrievals` times and never
/// helpful, lowest utility first, at most `max_drop_fraction` of the live lessons at once;
/// never a verified or pinned one. Returns the ids dropped.
pub fn prune_low_utility(
    conn: &mut Connection,
    cfg: &LessonsConfig,
    min_retrievals: i64,
    max_drop_fraction: f64,
) -> Result<Vec<i64>> {
    let live = db::list(conn, &[LessonStatus::Approved, LessonStatus::Pinned], cfg)?;
    let cap = (live.len() as f64 * max_drop_fraction).floor() as usize;
    let mut weak: Vec<&Lesson> = live
        .iter()
        .filter(|l| l.status == LessonStatus::Approved && !l.verified)
        .filter(|l| l.retrievals >= min_retrievals && l.helpful == 0)
        .collect();
    weak.sort_by(|a, b| a.utility.partial_cmp(&b.utility).unwrap_or(std::cmp::Ordering::Equal));
    let dropped: Vec<i64> = weak.iter().take(cap).map(|l| l.id).collect();
    let tx = conn.transaction()?;
    for id in &dropped {
        db::set_status(&tx, *id, LessonStatus::Pruned)?;
    }
    tx.commit()?;
    Ok(dropped)
}
