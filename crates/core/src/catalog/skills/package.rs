//! A package's columns of a skill and the package detail.

use super::*;

/// The package columns of a skill (NULL for skills that are not packages).
#[derive(Debug, Clone, Default)]
pub struct PackageColumns {
    pub package_uuid: Option<String>,
    pub display_name: Option<String>,
    pub package_version: Option<String>,
    /// JSON arrays of strings.
    pub tags: Option<String>,
    pub source: Option<SkillSource>,
    pub author: Option<String>,
    pub intent_patterns: Option<String>,
    pub trigger_phrases: Option<String>,
    pub marketplace_id: Option<String>,
    pub sync_etag: Option<String>,
}

pub fn set_package_columns(conn: &Connection, skill_id: i64, p: &PackageColumns) -> Result<()> {
    conn.execute(
        "UPDATE skills SET package_uuid = ?2, display_name = ?3, package_version = ?4, tags = ?5, source = ?6,
            author = ?7, intent_patterns = ?8, trigger_phrases = ?9, marketplace_id = ?10, sync_etag = ?11
         WHERE id = ?1",
        params![
            skill_id,
            p.package_uuid,
            p.display_name,
            p.package_version,
            p.tags,
            p.source,
            p.author,
            p.intent_patterns,
            p.trigger_phrases,
            p.marketplace_id,
            p.sync_etag
        ],
    )?;
    Ok(())
}

/// Sets where a skill came from (acquired code is marked so).
pub fn set_source(conn: &Connection, skill_id: i64, source: SkillSource) -> Result<()> {
    conn.execute("UPDATE skills SET source = ?2 WHERE id = ?1", params![skill_id, source])?;
    Ok(())
}

/// The package columns and description of a skill.
pub fn package_columns(conn: &Connection, skill_id: i64) -> Result<(PackageColumns, String)> {
    conn.query_row(
        "SELECT package_uuid, display_name, package_version, tags, source, author, intent_patterns,
                trigger_phrases, marketplace_id, sync_etag, COALESCE(description, '')
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok((
                PackageColumns {
                    package_uuid: r.get(0)?,
                    display_name: r.get(1)?,
                    package_version: r.get(2)?,
                    tags: r.get(3)?,
                    source: r.get(4)?,
                    author: r.get(5)?,
                    intent_patterns: r.get(6)?,
                    trigger_phrases: r.get(7)?,
                    marketplace_id: r.get(8)?,
                    sync_etag: r.get(9)?,
                },
                r.get(10)?,
            ))
        },
    )
    .optional()?
    .with_context(|| format!("no skill with id {skill_id}"))
}

/// A skill as the package detail shows it.
#[derive(Debug, Clone)]
pub struct DetailRow {
    pub agent_id: String,
    pub name: String,
    pub display_name: Option<String>,
    pub namespace: String,
    pub is_public: bool,
    pub scope: Scope,
    pub path: String,
    pub status: SkillStatus,
    pub source: Option<SkillSource>,
    pub package_version: Option<String>,
    pub tags: Option<String>,
}

pub fn detail_row(conn: &Connection, skill_id: i64) -> Result<DetailRow> {
    conn.query_row(
        "SELECT agent_id, name, display_name, namespace, is_public, scope, path, status, source, package_version, tags
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| {
            Ok(DetailRow {
                agent_id: r.get(0)?,
                name: r.get(1)?,
                display_name: r.get(2)?,
                namespace: r.get(3)?,
                is_public: r.get(4)?,
                scope: r.get(5)?,
                path: r.get(6)?,
                status: r.get(7)?,
                source: r.get(8)?,
                package_version: r.get(9)?,
                tags: r.get(10)?,
            })
        },
    )
    .with_context(|| format!("no skill with id {skill_id}"))
}
