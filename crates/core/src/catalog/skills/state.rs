//! A skill's state as the sweep, the edit scan and review write it: pin, status, streak,
//! version, file stamp, approval, counters, staleness, absorption.

use super::*;

pub fn set_protected(conn: &Connection, skill_id: i64, protected: bool, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET protected = ?1, updated_at = ?2 WHERE id = ?3",
        params![protected, now, skill_id],
    )?;
    Ok(())
}

/// Marks a skill as written by skilldeck (auto-created: the sweep may archive it) or by hand.
pub fn set_auto_created(conn: &Connection, skill_id: i64, auto: bool) -> Result<()> {
    conn.execute("UPDATE skills SET is_auto_created = ?1 WHERE id = ?2", params![auto, skill_id])?;
    Ok(())
}

/// Sets a status and clears the flag mark (a pinned or restored skill starts unflagged).
pub fn set_status_unflagged(conn: &Connection, skill_id: i64, status: SkillStatus) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, flag_mark = NULL WHERE id = ?2",
        params![status, skill_id],
    )?;
    Ok(())
}

/// Moves a skill to another status and folder (archive, restore).
pub fn set_status_and_path(
    conn: &Connection,
    skill_id: i64,
    status: SkillStatus,
    path: &str,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, path = ?2, updated_at = ?3 WHERE id = ?4",
        params![status, path, now, skill_id],
    )?;
    Ok(())
}

/// Ghost's streak rules count from `now` on: a restored skill starts afresh.
pub fn reset_streak(conn: &Connection, skill_id: i64, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET streak_reset_at = ?1, flag_mark = NULL WHERE id = ?2",
        params![now, skill_id],
    )?;
    Ok(())
}

pub fn streak_reset_at(conn: &Connection, skill_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT streak_reset_at FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))?)
}

/// `streak_reset_at` of the skills that have one.
pub fn resets(conn: &Connection) -> Result<HashMap<i64, String>> {
    let mut stmt =
        conn.prepare("SELECT id, streak_reset_at FROM skills WHERE streak_reset_at IS NOT NULL")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Points the skill at a new version and refreshes what is read from its SKILL.md.
#[allow(clippy::too_many_arguments)]
pub fn set_version(
    conn: &Connection,
    skill_id: i64,
    version: i64,
    description: Option<&str>,
    triggers: &str,
    stamp: (Option<i64>, Option<i64>),
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET version = ?1, description = COALESCE(?2, description), triggers = ?3,
             file_mtime_ns = ?4, file_size = ?5, updated_at = ?6 WHERE id = ?7",
        params![version, description, triggers, stamp.0, stamp.1, now, skill_id],
    )?;
    Ok(())
}

/// Remembers the SKILL.md stat last read (and, when given, the trigger phrases read from it).
pub fn set_file_stamp(
    conn: &Connection,
    skill_id: i64,
    stamp: (Option<i64>, Option<i64>),
    triggers: Option<&str>,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET file_mtime_ns = ?1, file_size = ?2, triggers = COALESCE(?3, triggers)
         WHERE id = ?4",
        params![stamp.0, stamp.1, triggers, skill_id],
    )?;
    Ok(())
}

/// An approved auto-draft whose bytes changed waits for a person again.
pub fn mark_needs_review(conn: &Connection, skill_id: i64) -> Result<()> {
    conn.execute("UPDATE skills SET needs_review = 1 WHERE id = ?1", [skill_id])?;
    Ok(())
}

/// Binds an auto-created skill's approval to `sha` (rollback: a person's decision).
pub fn bind_approval(conn: &Connection, skill_id: i64, sha: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET approved_sha256 = ?1, needs_review = 0 WHERE id = ?2",
        params![sha, skill_id],
    )?;
    Ok(())
}

/// A person approved the current bytes of a skill that went back to review.
pub fn approve_current(conn: &Connection, skill_id: i64, sha: &str, now: &str) -> Result<()> {
    conn.execute(
        "UPDATE skills SET needs_review = 0, approved_sha256 = ?1, updated_at = ?2 WHERE id = ?3",
        params![sha, now, skill_id],
    )?;
    Ok(())
}

/// An approved proposed version: the skill takes over its tool sequence, and an auto-created
/// skill's approval follows the new bytes.
pub fn approve_evolution(
    conn: &Connection,
    skill_id: i64,
    sequence: &str,
    sha: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET tool_sequence = ?1, needs_review = 0,
             approved_sha256 = CASE WHEN is_auto_created = 1 THEN ?2 ELSE approved_sha256 END
         WHERE id = ?3",
        params![sequence, sha, skill_id],
    )?;
    Ok(())
}

/// A SKILL.md's modification time (ns) and size, as last read.
pub type FileStamp = (Option<i64>, Option<i64>);

/// The live skills' (id, folder, stamp) for the edit scan.
pub fn live_stamps(conn: &Connection) -> Result<Vec<(i64, String, FileStamp)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, path, file_mtime_ns, file_size FROM skills WHERE status NOT IN ({})",
        *PARKED
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, (r.get(2)?, r.get(3)?))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Skills whose folder belongs in a live folder (missing ones too): (id, name, path, status).
pub fn live_folders(conn: &Connection) -> Result<Vec<(i64, String, String, SkillStatus)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, name, path, status FROM skills WHERE status NOT IN ({})",
        *PARKED
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Live skills with a tool sequence: (id, agent, sequence JSON), for evolution.
pub fn live_sequences(conn: &Connection) -> Result<Vec<(i64, String, String)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id, agent_id, tool_sequence FROM skills
         WHERE tool_sequence IS NOT NULL AND status IN ({})",
        *LIVE
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The counters cached on the row: (successes, failures, last outcome).
pub type Counters = (i64, i64, Option<String>);

/// A skill as the sweep reads it: the row, its cached counters and its flag mark.
pub type SweepRow = (SkillRow, Counters, Option<i64>);

/// The rows the sweep judges: every skill, or only `only`.
pub fn sweep_rows(conn: &Connection, only: Option<&HashSet<i64>>) -> Result<Vec<SweepRow>> {
    let sql = &format!(
        "SELECT {COLUMNS}, success_count, failure_count, last_outcome, flag_mark FROM skills"
    );
    let read = |r: &Row| -> rusqlite::Result<SweepRow> {
        Ok((from_row(r)?, (r.get(10)?, r.get(11)?, r.get(12)?), r.get(13)?))
    };
    match only {
        None => {
            let mut stmt = conn.prepare(sql)?;
            let rows = stmt.query_map([], read)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        }
        Some(ids) => {
            let mut stmt = conn.prepare(&format!("{sql} WHERE id = ?1"))?;
            let mut out = Vec::with_capacity(ids.len());
            let mut sorted: Vec<_> = ids.iter().copied().collect();
            sorted.sort_unstable();
            for id in sorted {
                if let Some(row) = stmt.query_map([id], read)?.next() {
                    out.push(row?);
                }
            }
            Ok(out)
        }
    }
}

/// Skills whose row changed at or after `since` (`""`: every row).
pub fn changed_since(conn: &Connection, since: &str) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM skills WHERE updated_at >= ?1")?;
    let rows = stmt.query_map([since], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Writes the counters cache.
pub fn set_counters(conn: &Connection, skill_id: i64, counters: &Counters) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "UPDATE skills SET success_count = ?1, failure_count = ?2, last_outcome = ?3 WHERE id = ?4",
    )?;
    stmt.execute(params![counters.0, counters.1, counters.2, skill_id])?;
    Ok(())
}

/// Adds one outcome to the counters cache (the sweep recomputes them from the invocations).
pub fn bump_counters(conn: &Connection, skill_id: i64, outcome: Outcome, now: &str) -> Result<()> {
    let (s, f) = match outcome {
        Outcome::Success => (1, 0),
        Outcome::Failure => (0, 1),
    };
    conn.execute(
        "UPDATE skills SET success_count = success_count + ?1, failure_count = failure_count + ?2,
             last_outcome = ?3, updated_at = ?4 WHERE id = ?5",
        params![s, f, outcome, now, skill_id],
    )?;
    Ok(())
}

/// The sweep's verdict. `updated_at` is left alone: it marks changes the next incremental sweep
/// must judge, and this one is already judged (its time is on the event).
pub fn set_judged_status(
    conn: &Connection,
    skill_id: i64,
    status: SkillStatus,
    path: &str,
    flag_mark: Option<i64>,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET status = ?1, path = ?2, flag_mark = ?4,
             deprecated_at = coalesce(?3, deprecated_at)
         WHERE id = ?5",
        params![
            status,
            path,
            (status == SkillStatus::Deprecated).then_some(now),
            flag_mark,
            skill_id
        ],
    )?;
    Ok(())
}

/// Marks a skill stale since `since`, or active again (`None`).
pub fn set_stale(conn: &Connection, skill_id: i64, since: Option<&str>) -> Result<()> {
    conn.execute("UPDATE skills SET stale_since = ?2 WHERE id = ?1", params![skill_id, since])?;
    Ok(())
}

/// Since when each stale skill has been stale.
pub fn stale_map(conn: &Connection) -> Result<HashMap<i64, String>> {
    let mut stmt =
        conn.prepare("SELECT id, stale_since FROM skills WHERE stale_since IS NOT NULL")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Sets when `skill_id` went live (what its uptake counts from). The demo's one use: its
/// hand-written skill has been live since before the sessions that missed it.
pub fn set_live_since(conn: &Connection, skill_id: i64, at: &str) -> Result<()> {
    conn.execute("UPDATE skills SET created_at = ?2 WHERE id = ?1", params![skill_id, at])?;
    Ok(())
}

/// Records that a merge folded `skill_id` into `into` (`None`: taken back).
pub fn set_absorbed_into(conn: &Connection, skill_id: i64, into: Option<i64>) -> Result<()> {
    conn.execute("UPDATE skills SET absorbed_into = ?2 WHERE id = ?1", params![skill_id, into])?;
    Ok(())
}

/// The skill a merge folded `skill_id` into, if any.
pub fn absorbed_into(conn: &Connection, skill_id: i64) -> Result<Option<i64>> {
    Ok(conn.query_row("SELECT absorbed_into FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))?)
}

/// Skills a merge absorbed: never proposed for a merge again, even once restored.
pub fn absorbed(conn: &Connection) -> Result<HashSet<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM skills WHERE absorbed_into IS NOT NULL")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
