//! What a console pane needs to draw one skill package: its artifacts and variants, its scope and
//! shadowing, and its recent traces.

use anyhow::Result;
use serde::Serialize;

use super::db::load_artifacts;
use super::model::ArtifactKind;
use super::traces::{TraceView, recent};
use crate::acquire::code;
use crate::acquire::registry_status;
use crate::catalog;
use crate::catalog::skills::{self, DetailRow};
use crate::catalog::{Scope, SkillStatus};
use crate::identity::{SkillRef, shadowing};
use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct ArtifactSummary {
    pub id: String,
    pub kind: ArtifactKind,
    pub name: String,
    pub ordinal: i64,
    pub model_variant: Option<String>,
    pub fallback_artifact: Option<String>,
    pub assertions: usize,
    pub content_chars: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariantGroup {
    pub artifact: String,
    /// `None` is the default variant.
    pub variants: Vec<Option<String>>,
}

/// The tested script behind an acquired code skill.
#[derive(Debug, Clone, Serialize)]
pub struct CodeDetail {
    pub script_path: String,
    pub sha256: String,
    /// active, degraded or retired, following the skill's lifecycle status.
    pub registry_status: &'static str,
    pub repairs: Vec<String>,
    pub tested_at: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PackageDetail {
    pub skill_id: i64,
    pub agent_id: String,
    pub name: String,
    pub display_name: Option<String>,
    pub namespace: String,
    pub is_public: bool,
    pub scope: Scope,
    pub path: String,
    pub status: SkillStatus,
    pub source: Option<catalog::SkillSource>,
    pub package_version: Option<String>,
    pub tags: Vec<String>,
    pub artifacts: Vec<ArtifactSummary>,
    /// Artifacts with more than one model variant.
    pub variants: Vec<VariantGroup>,
    /// The workspace skill that overrides this one, if this is an account skill.
    pub shadowed_by: Option<SkillRef>,
    /// The account skills this workspace skill overrides.
    pub shadows: Vec<SkillRef>,
    pub recent_traces: Vec<TraceView>,
    /// Set for code skills registered by `acquire`.
    pub code: Option<CodeDetail>,
}

const RECENT_TRACES: usize = 10;

pub fn detail(store: &Store, skill_id: i64) -> Result<PackageDetail> {
    let DetailRow {
        agent_id,
        name,
        display_name,
        namespace,
        is_public,
        scope,
        path,
        status,
        source,
        package_version,
        tags,
    } = skills::detail_row(store.conn(), skill_id)?;
    let artifacts: Vec<ArtifactSummary> = load_artifacts(store, skill_id)?
        .into_iter()
        .map(|s| {
            let a = s.artifact;
            let assertions = a
                .metadata
                .as_ref()
                .and_then(|m| m.get("assertions"))
                .and_then(|v| v.as_array())
                .map_or(0, Vec::len);
            ArtifactSummary {
                id: s.id,
                kind: a.kind,
                fallback_artifact: a.fallback_artifact().map(String::from),
                name: a.name,
                ordinal: a.ordinal,
                model_variant: a.model_variant,
                assertions,
                content_chars: a.content.chars().count(),
            }
        })
        .collect();
    let mut variants: Vec<VariantGroup> = Vec::new();
    for a in &artifacts {
        match variants.iter_mut().find(|g| g.artifact == a.name) {
            Some(g) => g.variants.push(a.model_variant.clone()),
            None => variants.push(VariantGroup {
                artifact: a.name.clone(),
                variants: vec![a.model_variant.clone()],
            }),
        }
    }
    variants.retain(|g| g.variants.len() > 1);
    let (shadowed_by, shadows) = shadowing(store, skill_id)?;
    Ok(PackageDetail {
        skill_id,
        agent_id,
        name,
        display_name,
        namespace,
        is_public,
        scope,
        path,
        source,
        package_version,
        tags: tags.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default(),
        artifacts,
        variants,
        shadowed_by,
        shadows,
        recent_traces: recent(store, skill_id, RECENT_TRACES)?,
        code: code_detail(store, skill_id, registry_status(status))?,
        status,
    })
}

fn code_detail(
    store: &Store,
    skill_id: i64,
    registry_status: &'static str,
) -> Result<Option<CodeDetail>> {
    let row = code::get(store.conn(), skill_id)?
        .map(|c| (c.script_path, c.sha256, c.sanitized, c.tested_at));
    Ok(row.map(|(script_path, sha256, repairs, tested_at)| CodeDetail {
        script_path,
        sha256,
        registry_status,
        repairs: serde_json::from_str(&repairs).unwrap_or_default(),
        tested_at,
    }))
}
