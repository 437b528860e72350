//! Owns the tables `lessons`, `lesson_sessions` and `lesson_progress`: every SQL statement on
//! them is here.

use std::sync::LazyLock;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

use super::{AntiMatch, Evidence, Lesson, LessonKind, LessonStatus};
use crate::config::LessonsConfig;
use crate::store::now_rfc3339;

/// The live statuses as an SQL list, from the enum.
static LIVE: LazyLock<String> = LazyLock::new(|| LessonStatus::sql_list(LessonStatus::is_live));

/// A lesson as extraction proposes it, before it is stored.
#[derive(Debug, Clone)]
pub struct NewLesson {
    pub agent_id: String,
    pub kind: LessonKind,
    pub source_hash: String,
    pub trigger: String,
    pub trigger_step: String,
    pub anti_pattern: String,
    pub anti_match: AntiMatch,
    pub correct_pattern: String,
    pub domains: Vec<String>,
    pub confidence: f64,
}

/// The last turn of a session extraction has read.
pub fn progress(conn: &Connection, session_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT last_turn_id FROM lesson_progress WHERE session_id = ?1")?
        .query_row([session_id], |r| r.get(0))
        .optional()?)
}

pub fn set_progress(conn: &Connection, session_id: i64, last_turn_id: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO lesson_progress(session_id, last_turn_id) VALUES (?1, ?2)
         ON CONFLICT(session_id) DO UPDATE SET last_turn_id = excluded.last_turn_id",
    )?
    .execute(params![session_id, last_turn_id])?;
    Ok(())
}

/// The lesson with this source hash, if any: its id, status and whether a person edited it.
pub fn find(
    conn: &Connection,
    agent: &str,
    hash: &str,
) -> Result<Option<(i64, LessonStatus, bool)>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, status, edited FROM lessons WHERE agent_id = ?1 AND source_hash = ?2",
        )?
        .query_row(params![agent, hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

pub fn insert(conn: &Connection, l: &NewLesson, status: LessonStatus) -> Result<i64> {
    let now = now_rfc3339();
    conn.prepare_cached(
        "INSERT INTO lessons(agent_id, kind, status, source_hash, trigger, trigger_step,
            anti_pattern, anti_match, correct_pattern, domains, confidence, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
    )?
    .execute(params![
        l.agent_id,
        l.kind,
        status,
        l.source_hash,
        l.trigger,
        l.trigger_step,
        l.anti_pattern,
        serde_json::to_string(&l.anti_match)?,
        l.correct_pattern,
        serde_json::to_string(&l.domains)?,
        l.confidence,
        now,
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Rewrites a lesson's mechanical text (not a person's edit) and its confidence.
pub fn update_text(conn: &Connection, id: i64, l: &NewLesson) -> Result<()> {
    conn.prepare_cached(
        "UPDATE lessons SET trigger = ?2, anti_pattern = ?3, anti_match = ?4,
            correct_pattern = ?5, domains = ?6, confidence = ?7, updated_at = ?8
         WHERE id = ?1 AND edited = 0",
    )?
    .execute(params![
        id,
        l.trigger,
        l.anti_pattern,
        serde_json::to_string(&l.anti_match)?,
        l.correct_pattern,
        serde_json::to_string(&l.domains)?,
        l.confidence,
        now_rfc3339(),
    ])?;
    Ok(())
}

/// Adds a session's evidence to a lesson; false when the session was already there.
pub fn add_session(conn: &Connection, id: i64, ev: &Evidence) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO lesson_sessions(lesson_id, session_key, turn_id, project, evidence)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![id, ev.session_key, ev.turn_id, ev.project, serde_json::to_string(ev)?])?;
    Ok(n == 1)
}

pub fn evidence(conn: &Connection, id: i64) -> Result<Vec<Evidence>> {
    let mut stmt = conn.prepare_cached(
        "SELECT evidence FROM lesson_sessions WHERE lesson_id = ?1 ORDER BY turn_id",
    )?;
    let rows = stmt.query_map([id], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for text in rows {
        out.push(serde_json::from_str(&text?).context("reading a lesson's evidence")?);
    }
    Ok(out)
}

/// Sets the status (and, for a guard refusal, the reason). Going live records the highest turn
/// id and the time, so later turns can be told from earlier ones.
pub fn set_status_reason(
    conn: &Connection,
    id: i64,
    status: LessonStatus,
    reason: Option<&str>,
) -> Result<()> {
    let now = now_rfc3339();
    let n = conn.execute(
        "UPDATE lessons SET status = ?2, reject_reason = ?3, updated_at = ?4,
            approved_turn = CASE WHEN ?5 AND approved_turn IS NULL
                                 THEN (SELECT COALESCE(MAX(id), 0) FROM turns) ELSE approved_turn END,
            approved_at = CASE WHEN ?5 AND approved_at IS NULL THEN ?4 ELSE approved_at END
         WHERE id = ?1",
        params![id, status, reason, now, status.is_live()],
    )?;
    if n == 0 {
        bail!("no lesson {id}");
    }
    Ok(())
}

pub fn set_status(conn: &Connection, id: i64, status: LessonStatus) -> Result<()> {
    set_status_reason(conn, id, status, None)
}

pub fn edit(
    conn: &Connection,
    id: i64,
    trigger: Option<&str>,
    anti_pattern: Option<&str>,
    correct_pattern: Option<&str>,
) -> Result<()> {
    conn.execute(
        "UPDATE lessons SET trigger = COALESCE(?2, trigger),
            anti_pattern = COALESCE(?3, anti_pattern),
            correct_pattern = COALESCE(?4, correct_pattern), edited = 1, updated_at = ?5
         WHERE id = ?1",
        params![id, trigger, anti_pattern, correct_pattern, now_rfc3339()],
    )?;
    Ok(())
}

/// Live lessons (approved or pinned) with what measuring needs: id, trigger step, anti-match,
/// the turn they went live after.
pub fn live_matchers(conn: &Connection, agent: &str) -> Result<Vec<(i64, String, AntiMatch, i64)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, trigger_step, anti_match, COALESCE(approved_turn, 0) FROM lessons
         WHERE agent_id = ?1 AND status IN ({})",
        *LIVE
    ))?;
    let rows = stmt.query_map([agent], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get(3)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, step, anti, after) = row?;
        out.push((id, step, serde_json::from_str(&anti)?, after));
    }
    Ok(out)
}

/// One later matching turn: a retrieval, helpful when it avoided the anti-pattern.
pub fn record_retrieval(conn: &Connection, id: i64, helpful: bool, at: &str) -> Result<()> {
    conn.prepare_cached(
        "UPDATE lessons SET retrievals = retrievals + 1, helpful = helpful + ?2,
            last_retrieved_at = ?3 WHERE id = ?1",
    )?
    .execute(params![id, helpful as i64, at])?;
    Ok(())
}

pub fn set_before(conn: &Connection, id: i64, turns: i64, hits: i64) -> Result<()> {
    conn.execute(
        "UPDATE lessons SET before_turns = ?2, before_hits = ?3 WHERE id = ?1",
        params![id, turns, hits],
    )?;
    Ok(())
}

pub fn set_verified(conn: &Connection, id: i64, verified: bool) -> Result<()> {
    conn.execute("UPDATE lessons SET verified = ?2 WHERE id = ?1", params![id, verified])?;
    Ok(())
}

/// The agent and anti-match of one lesson, with the turn it went live after.
pub fn matcher(conn: &Connection, id: i64) -> Result<(String, String, AntiMatch, i64)> {
    let (agent, step, anti, after): (String, String, String, i64) = conn.query_row(
        "SELECT agent_id, trigger_step, anti_match, COALESCE(approved_turn, 0) FROM lessons
         WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    Ok((agent, step, serde_json::from_str(&anti)?, after))
}

/// A stamp of the live set and its text: changes when the playbook must be rewritten.
pub fn live_stamp(conn: &Connection) -> Result<String> {
    Ok(conn.query_row(
        &format!(
            "SELECT COUNT(*) || '/' || COALESCE(MAX(updated_at), '') || '/' || COALESCE(SUM(verified), 0)
             FROM lessons WHERE status IN ({})",
            *LIVE
        ),
        [],
        |r| r.get(0),
    )?)
}

const COLUMNS: &str = "id, kind, status, trigger, trigger_step, anti_pattern, correct_pattern,
    domains, confidence, source_hash, reject_reason, verified, edited, retrievals, helpful,
    before_turns, before_hits, approved_at, last_retrieved_at, created_at, anti_match";

fn row(r: &rusqlite::Row) -> rusqlite::Result<(Lesson, String)> {
    let domains: String = r.get(7)?;
    let anti: String = r.get(20)?;
    let retrievals: i64 = r.get(13)?;
    let helpful: i64 = r.get(14)?;
    Ok((
        Lesson {
            id: r.get(0)?,
            kind: r.get(1)?,
            status: r.get(2)?,
            trigger: r.get(3)?,
            trigger_step: r.get(4)?,
            anti_pattern: r.get(5)?,
            correct_pattern: r.get(6)?,
            domains: serde_json::from_str(&domains).unwrap_or_default(),
            confidence: r.get(8)?,
            source_hash: r.get(9)?,
            reject_reason: r.get(10)?,
            verified: r.get(11)?,
            edited: r.get(12)?,
            retrievals,
            helpful,
            hit_rate: if retrievals > 0 { helpful as f64 / retrievals as f64 } else { 0.0 },
            before_turns: r.get(15)?,
            before_hits: r.get(16)?,
            after_turns: retrievals,
            after_hits: retrievals - helpful,
            utility: 0.0,
            approved_at: r.get(17)?,
            last_retrieved_at: r.get(18)?,
            created_at: r.get(19)?,
            anti_match: serde_json::from_str(&anti).ok(),
            sessions: Vec::new(),
            evidence: Vec::new(),
        },
        anti,
    ))
}

fn complete(conn: &Connection, mut l: Lesson, cfg: &LessonsConfig) -> Result<Lesson> {
    l.evidence = evidence(conn, l.id)?;
    l.sessions = l.evidence.iter().map(|e| e.session_key.clone()).collect();
    l.utility = super::utility::utility(&l, cfg, chrono::Utc::now());
    Ok(l)
}

pub fn get(conn: &Connection, id: i64, cfg: &LessonsConfig) -> Result<Lesson> {
    let sql = format!("SELECT {COLUMNS} FROM lessons WHERE id = ?1");
    let found = conn.query_row(&sql, [id], row).optional()?;
    let Some((lesson, _)) = found else { bail!("no lesson {id} (see `skilldeck lessons --all`)") };
    complete(conn, lesson, cfg)
}

/// Lessons with these statuses (every one when empty), newest first.
pub fn list(
    conn: &Connection,
    statuses: &[LessonStatus],
    cfg: &LessonsConfig,
) -> Result<Vec<Lesson>> {
    let sql = format!("SELECT {COLUMNS} FROM lessons ORDER BY id DESC");
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], row)?;
    let mut out = Vec::new();
    for r in rows {
        let (lesson, _) = r?;
        if statuses.is_empty() || statuses.contains(&lesson.status) {
            out.push(complete(conn, lesson, cfg)?);
        }
    }
    Ok(out)
}
