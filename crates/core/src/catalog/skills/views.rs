//! Skills as the readers list them: `list`, suggest's rows, the console's rows, the usage
//! rules' rows, uptake, and the stamps that say whether any of those changed.

use super::*;

/// One skill as `audit` and `features` list it.
#[derive(Debug, Clone)]
pub struct ListedSkill {
    pub header: SkillHeader,
    pub is_auto_created: bool,
    pub created_at: String,
}

/// Every skill of `agent` (all agents for `None`), by agent, name and id.
pub fn list(conn: &Connection, agent: Option<&str>) -> Result<Vec<ListedSkill>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEADER}, is_auto_created, created_at
             FROM skills WHERE ?1 IS NULL OR agent_id = ?1 ORDER BY agent_id, name, id"
    ))?;
    let rows = stmt.query_map([agent], |r| {
        Ok(ListedSkill { header: header(r)?, is_auto_created: r.get(8)?, created_at: r.get(9)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One suggestible skill as `suggest` scores it.
pub struct SuggestRow<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub triggers_json: &'a str,
    pub status: SkillStatus,
    pub successes: i64,
    pub failures: i64,
}

/// Calls `each` for every skill of `agent` that may be suggested (not deprecated, retired or
/// archived), borrowing the row's text.
pub fn for_each_suggestible(
    conn: &Connection,
    agent: &str,
    mut each: impl FnMut(SuggestRow) -> Result<()>,
) -> Result<()> {
    // `+agent_id`: one sequential table scan beats 10,000 lookups through the (agent, name) index.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT name, description, triggers, status, success_count, failure_count
         FROM skills WHERE +agent_id = ?1 AND status IN ({})",
        *SUGGESTIBLE
    ))?;
    let mut rows = stmt.query([agent])?;
    while let Some(r) = rows.next()? {
        each(SuggestRow {
            name: r.get_ref(0)?.as_str()?,
            description: r.get_ref(1)?.as_str_or_null()?.unwrap_or(""),
            triggers_json: r.get_ref(2)?.as_str()?,
            status: r.get(3)?,
            successes: r.get(4)?,
            failures: r.get(5)?,
        })?;
    }
    Ok(())
}

/// The status of a skill.
pub fn status_of(conn: &Connection, skill_id: i64) -> Result<SkillStatus> {
    conn.query_row("SELECT status FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))
        .with_context(|| format!("no skill with id {skill_id}"))
}

/// A skill as the console's list shows it.
#[derive(Debug, Clone)]
pub struct ConsoleRow {
    pub header: SkillHeader,
    /// Outcomes on record (the counters cache the sweep keeps in step).
    pub uses: i64,
    /// Successes among them.
    pub successes: i64,
    /// Unused for `lifecycle.stale_days` (the usage sweep marks it).
    pub stale: bool,
}

/// Every skill for the console, ordered by agent, namespace, name and scope.
pub fn console_rows(conn: &Connection) -> Result<Vec<ConsoleRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEADER}, success_count + failure_count, stale_since IS NOT NULL, success_count
             FROM skills ORDER BY agent_id, namespace, name, scope"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(ConsoleRow {
            header: header(r)?,
            uses: r.get(8)?,
            stale: r.get(9)?,
            successes: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What the usage-based lifecycle reads of a skill.
#[derive(Debug, Clone)]
pub struct UsageRow {
    pub id: i64,
    pub agent_id: String,
    pub name: String,
    pub status: SkillStatus,
    pub protected: bool,
    pub is_auto_created: bool,
    pub created_at: String,
    pub streak_reset_at: Option<String>,
    pub stale_since: Option<String>,
}

/// Every skill's usage columns.
pub fn usage_rows(conn: &Connection) -> Result<Vec<UsageRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, name, status, protected, is_auto_created, created_at,
                streak_reset_at, stale_since FROM skills ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(UsageRow {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            name: r.get(2)?,
            status: r.get(3)?,
            protected: r.get(4)?,
            is_auto_created: r.get(5)?,
            created_at: r.get(6)?,
            streak_reset_at: r.get(7)?,
            stale_since: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What a skill's uptake is judged from.
#[derive(Debug, Clone)]
pub struct UptakeRef {
    pub id: i64,
    pub agent: String,
    pub name: String,
    pub description: String,
    /// The skill's folder (its SKILL.md names the steps of a hand-written skill).
    pub path: String,
    /// When it went live.
    pub since: String,
    pub candidate_id: Option<i64>,
}

/// What judging a skill's uptake needs: (id, agent, name, description, path, went live at,
/// candidate it was promoted from).
pub fn uptake_ref(conn: &Connection, skill_id: i64) -> Result<UptakeRef> {
    Ok(conn.query_row(
        "SELECT id, agent_id, name, coalesce(description, ''), path, created_at, candidate_id
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok(UptakeRef {
                id: r.get(0)?,
                agent: r.get(1)?,
                name: r.get(2)?,
                description: r.get(3)?,
                path: r.get(4)?,
                since: r.get(5)?,
                candidate_id: r.get(6)?,
            })
        },
    )?)
}

/// A stamp of the live skills: changes when one is added, removed, moved, renamed, re-versioned
/// or described anew (for passes that rerun only when the live set changed).
pub fn live_stamp(conn: &Connection) -> Result<String> {
    Ok(conn.query_row(
        &format!(
        "SELECT COUNT(*) || ':' || COALESCE(MAX(updated_at), '') || ':' || COALESCE(SUM(version), 0)
                || ':' || COALESCE(SUM(id), 0)
         FROM skills WHERE status NOT IN ({})",
            *PARKED
        ),
        [],
        |r| r.get(0),
    )?)
}

/// A stamp of what the staleness rules read from the skills table (which skills are live,
/// pinned or auto-created, since when they count, which are marked stale): it changes whenever
/// one of those does, so the rules need not rerun while it holds (and no use is new). A
/// recorded outcome bumps `updated_at`, not this stamp: new uses are the rules' other input.
pub fn usage_stamp(conn: &Connection) -> Result<String> {
    Ok(conn.query_row(
        &format!(
        "SELECT COUNT(*) || ':' || COALESCE(SUM(id), 0) || ':' || TOTAL(protected * id) || ':' || TOTAL(is_auto_created * id)
                || ':' || TOTAL(julianday(created_at)) || ':' || TOTAL(julianday(streak_reset_at))
                || ':' || TOTAL(julianday(stale_since))
         FROM skills WHERE status NOT IN ({})",
            *PARKED
        ),
        [],
        |r| r.get(0),
    )?)
}
