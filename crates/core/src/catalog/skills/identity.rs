//! Skills by identity (namespace, visibility, scope): the references identity resolves and
//! shadowing compares, and the owner of a folder.

use super::*;

/// A skill as identity resolution sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRef {
    pub skill_id: i64,
    pub namespace: String,
    pub is_public: bool,
    pub name: String,
    pub scope: Scope,
    pub path: String,
    pub status: SkillStatus,
}

const REF_COLUMNS: &str = "id, namespace, is_public, name, scope, path, status";

fn skill_ref(r: &Row) -> rusqlite::Result<SkillRef> {
    Ok(SkillRef {
        skill_id: r.get(0)?,
        namespace: r.get(1)?,
        is_public: r.get::<_, i64>(2)? != 0,
        name: r.get(3)?,
        scope: r.get(4)?,
        path: r.get(5)?,
        status: r.get(6)?,
    })
}

/// The skill `id` of `agent`, as a ref.
pub fn ref_by_id(conn: &Connection, id: i64, agent: &str) -> Result<Option<SkillRef>> {
    let sql = format!("SELECT {REF_COLUMNS} FROM skills WHERE id = ?1 AND agent_id = ?2");
    Ok(conn.query_row(&sql, params![id, agent], skill_ref).optional()?)
}

/// Live skills of `agent` named `name` or `slug`, or displayed as `name` (any case).
pub fn refs_named(conn: &Connection, agent: &str, name: &str, slug: &str) -> Result<Vec<SkillRef>> {
    let sql = format!(
        "SELECT {REF_COLUMNS} FROM skills
         WHERE agent_id = ?1 AND status NOT IN ({parked})
           AND (name = ?2 OR name = ?3 OR lower(display_name) = lower(?2))
         ORDER BY namespace, is_public, scope",
        parked = *PARKED
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params![agent, name, slug], skill_ref)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Live skills with the same identity as `skill_id` in the other scope.
pub fn same_identity_other_scope(conn: &Connection, skill_id: i64) -> Result<Vec<SkillRef>> {
    let sql = format!(
        "SELECT o.{} FROM skills s JOIN skills o
           ON o.agent_id = s.agent_id AND o.name = s.name AND o.namespace = s.namespace
          AND o.is_public = s.is_public AND o.id != s.id
          AND o.status NOT IN ({})
         WHERE s.id = ?1 AND s.scope != o.scope",
        REF_COLUMNS.replace(", ", ", o."),
        *PARKED
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([skill_id], skill_ref)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The skill with exactly this identity: (id, version).
pub fn find_exact(
    conn: &Connection,
    agent: &str,
    namespace: &str,
    name: &str,
    scope: Scope,
) -> Result<Option<(i64, i64)>> {
    Ok(conn
        .query_row(
            "SELECT id, version FROM skills WHERE agent_id = ?1 AND namespace = ?2 AND name = ?3 AND scope = ?4",
            params![agent, namespace, name, scope],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Another skill registered at `path`: (id, namespace).
pub fn owner_of_path(
    conn: &Connection,
    path: &str,
    except: Option<i64>,
) -> Result<Option<(i64, String)>> {
    Ok(conn
        .query_row(
            "SELECT id, namespace FROM skills WHERE path = ?1 AND id IS NOT ?2",
            params![path, except],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// A package import or a re-acquired code skill replaces the skill's content: new description,
/// folder and visibility, and the version number `version`.
pub fn replace_content(
    conn: &Connection,
    skill_id: i64,
    description: Option<&str>,
    path: Option<&str>,
    is_public: Option<bool>,
    version: i64,
    now: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE skills SET description = ?2, path = COALESCE(?3, path),
             is_public = COALESCE(?4, is_public), version = ?5, updated_at = ?6
         WHERE id = ?1",
        params![skill_id, description, path, is_public, version, now],
    )?;
    Ok(())
}
