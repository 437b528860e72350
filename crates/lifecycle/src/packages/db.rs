//! Import and export: a validated package becomes one skill (registered through
//! `lifecycle::register`, like every skill), its `skill_artifacts`, a version and a skill folder,
//! all or nothing.
//!
//! Owns the table `skill_artifacts`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

use super::folder::package_files;
use super::model::{Artifact, ArtifactKind, Package};
use super::problems::Problem;
use super::validate::validate_package;
use crate::catalog::EventKind;
use crate::catalog::skills::{self, PackageColumns};
use crate::catalog::{Scope, VersionSource, versions};
use crate::fsio::stage;
use crate::identity::scope_dir;
use crate::journal::install;
use crate::lifecycle::{self, NewSkill};
use crate::store::rusqlite::{Transaction, params};
use crate::store::{Store, now_rfc3339};
use crate::text::slug::slug;
use crate::workspace::Workspace;

#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub agent: String,
    pub scope: Scope,
    pub namespace: String,
    pub is_public: bool,
    /// Replace a skill of the same name in the same scope and namespace (a new version).
    pub replace: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Imported {
    pub skill_id: i64,
    pub name: String,
    pub display_name: String,
    pub namespace: String,
    pub is_public: bool,
    pub scope: Scope,
    pub path: PathBuf,
    pub artifacts: usize,
    pub version: i64,
    pub replaced: bool,
}

#[derive(Debug)]
pub enum ImportResult {
    Imported(Imported),
    /// Nothing was written.
    Rejected(Vec<Problem>),
}

/// Validates `text` fully, then stores it in one transaction and installs its folder.
pub fn import(ws: &mut Workspace, text: &str, opts: &ImportOptions) -> Result<ImportResult> {
    let ns = &opts.namespace;
    if ns.is_empty() || ns.chars().any(|c| c.is_whitespace() || c == ':' || c == '#') {
        bail!("namespace {ns:?} must be non-empty, without spaces, ':' or '#'");
    }
    let validated = validate_package(text);
    // Where the package would go is checked even when the document has problems, so the
    // rejection lists every problem at once.
    let name = match &validated {
        Ok(pkg) => slug(&pkg.name),
        Err(_) => slug(&raw_name(text).unwrap_or_default()),
    };
    let folder = scope_dir(ws, opts.scope)?.join(&name);
    let (existing, conflicts) = if name.is_empty() {
        (None, Vec::new())
    } else {
        placement(&ws.store, opts, &name, &folder)?
    };
    let pkg = match validated {
        Ok(pkg) if conflicts.is_empty() => pkg,
        Ok(_) => return Ok(ImportResult::Rejected(conflicts)),
        Err(mut problems) => {
            problems.extend(conflicts);
            return Ok(ImportResult::Rejected(problems));
        }
    };
    let files = package_files(&pkg, &name);
    let skill_md = files[0].1.clone();
    let staged = stage(&folder, &files)?;
    let (skill_id, version) = install(ws.store.conn_mut(), &staged, &folder, |tx| {
        write_rows(tx, &pkg, opts, &name, &folder, &skill_md, existing)
    })
    .context("storing the package")?;
    Ok(ImportResult::Imported(Imported {
        skill_id,
        name,
        display_name: pkg.name.clone(),
        namespace: opts.namespace.clone(),
        is_public: opts.is_public,
        scope: opts.scope,
        path: folder,
        artifacts: pkg.artifacts.len(),
        version,
        replaced: existing.is_some(),
    }))
}

fn raw_name(text: &str) -> Option<String> {
    let doc: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text)).ok()?;
    Some(doc.get("name")?.as_str()?.to_string())
}

/// A skill an import replaces: (id, version).
type Existing = (i64, i64);

/// The skill this import would replace, and the problems with putting it there.
fn placement(
    store: &Store,
    opts: &ImportOptions,
    name: &str,
    folder: &std::path::Path,
) -> Result<(Option<Existing>, Vec<Problem>)> {
    let existing: Option<Existing> =
        skills::find_exact(store.conn(), &opts.agent, &opts.namespace, name, opts.scope)?;
    let owner =
        skills::owner_of_path(store.conn(), &folder.to_string_lossy(), existing.map(|e| e.0))?;
    let reason = if let Some((id, namespace)) = owner {
        Some(format!(
            "the folder {} belongs to skill {namespace}/{name} (#{id}); a scope folder holds one skill per name, so import this namespace into the other scope",
            folder.display()
        ))
    } else if opts.replace {
        None
    } else if existing.is_some() {
        Some(format!(
            "a skill named {name:?} already exists in the {} scope (namespace {}); pass --replace to make this its next version",
            opts.scope.as_str(),
            opts.namespace
        ))
    } else if folder.exists() {
        Some(format!(
            "the folder {} already exists; pass --replace to overwrite it",
            folder.display()
        ))
    } else {
        None
    };
    let problems =
        reason.map(|reason| Problem { path: "$.name".into(), reason }).into_iter().collect();
    Ok((existing, problems))
}

fn json_list(list: &Option<Vec<String>>) -> Option<String> {
    list.as_ref().map(|l| serde_json::to_string(l).unwrap_or_default())
}

fn write_rows(
    tx: &Transaction,
    pkg: &Package,
    opts: &ImportOptions,
    name: &str,
    folder: &std::path::Path,
    skill_md: &str,
    existing: Option<Existing>,
) -> Result<(i64, i64)> {
    let now = now_rfc3339();
    let path = folder.to_string_lossy();
    let (skill_id, version) = match existing {
        Some((id, version)) => {
            let description = Some(pkg.description.as_str());
            skills::replace_content(
                tx,
                id,
                description,
                Some(&path),
                Some(opts.is_public),
                version + 1,
                &now,
            )?;
            versions::insert(tx, id, version + 1, skill_md, VersionSource::Import)?;
            artifacts_delete(tx, id)?;
            (id, version + 1)
        }
        None => {
            let new = NewSkill {
                agent: &opts.agent,
                name,
                folder,
                content: skill_md,
                source: VersionSource::Import,
                scope: opts.scope,
                namespace: &opts.namespace,
                is_public: opts.is_public,
                description: Some(&pkg.description),
                ..NewSkill::account()
            };
            let reason = format!("version 1 (import of package {:?})", pkg.name);
            (lifecycle::register::insert_in(tx, &new, EventKind::Registered, &reason)?, 1)
        }
    };
    let columns = PackageColumns {
        package_uuid: Some(pkg.id.clone()),
        display_name: Some(pkg.name.clone()),
        package_version: pkg.version.clone(),
        tags: json_list(&pkg.tags),
        source: pkg.source,
        author: pkg.author.clone(),
        intent_patterns: json_list(&pkg.intent_patterns),
        trigger_phrases: json_list(&pkg.trigger_phrases),
        marketplace_id: pkg.marketplace_id.clone(),
        sync_etag: pkg.sync_etag.clone(),
    };
    skills::set_package_columns(tx, skill_id, &columns)?;
    for a in &pkg.artifacts {
        tx.execute(
            "INSERT INTO skill_artifacts (id, skill_id, kind, name, ordinal, content, model_variant, metadata, state_blob, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
            params![
                uuid::Uuid::new_v4().to_string(),
                skill_id,
                a.kind.as_str(),
                a.name,
                a.ordinal,
                a.content,
                a.model_variant,
                a.metadata.as_ref().map(Value::to_string),
                a.state_blob.as_ref().map(|s| s.as_bytes().to_vec()),
                now
            ],
        )?;
    }
    Ok((skill_id, version))
}

fn artifacts_delete(tx: &Transaction, skill_id: i64) -> Result<()> {
    tx.execute("DELETE FROM skill_artifacts WHERE skill_id = ?1", [skill_id])?;
    Ok(())
}

/// An artifact row with its database id.
#[derive(Debug, Clone, Serialize)]
pub struct StoredArtifact {
    pub id: String,
    #[serde(flatten)]
    pub artifact: Artifact,
}

/// The artifacts of a skill, by ordinal then name.
pub fn load_artifacts(store: &Store, skill_id: i64) -> Result<Vec<StoredArtifact>> {
    let mut stmt = store.conn().prepare(
        "SELECT id, kind, name, ordinal, content, model_variant, metadata, state_blob
         FROM skill_artifacts WHERE skill_id = ?1 ORDER BY ordinal, name, model_variant",
    )?;
    let rows = stmt.query_map([skill_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, Option<Vec<u8>>>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, kind, name, ordinal, content, model_variant, metadata, blob) = row?;
        let kind = ArtifactKind::parse(&kind)
            .with_context(|| format!("artifact {id} has unknown kind {kind:?}"))?;
        let metadata = metadata
            .map(|m| serde_json::from_str(&m))
            .transpose()
            .with_context(|| format!("artifact {id}: metadata is not JSON"))?;
        let state_blob = blob.map(|b| String::from_utf8_lossy(&b).into_owned());
        out.push(StoredArtifact {
            id,
            artifact: Artifact {
                kind,
                name,
                ordinal,
                content,
                model_variant,
                state_blob,
                metadata,
            },
        });
    }
    Ok(out)
}

/// Rebuilds the package JSON of a skill that was imported as one.
pub fn load_package(store: &Store, skill_id: i64) -> Result<Package> {
    let (columns, description) = skills::package_columns(store.conn(), skill_id)?;
    let PackageColumns {
        package_uuid: id,
        display_name: display,
        package_version: version,
        tags,
        source,
        author,
        intent_patterns: intents,
        trigger_phrases: triggers,
        marketplace_id,
        sync_etag,
    } = columns;
    let (Some(id), Some(name)) = (id, display) else {
        bail!("skill #{skill_id} is not a package (it was not imported from a package JSON)");
    };
    let list = |text: Option<String>| -> Result<Option<Vec<String>>> {
        Ok(text.map(|t| serde_json::from_str(&t)).transpose()?)
    };
    Ok(Package {
        id,
        name,
        description,
        version,
        tags: list(tags)?,
        source: source.filter(|s| s.is_package_source()),
        author,
        intent_patterns: list(intents)?,
        trigger_phrases: list(triggers)?,
        marketplace_id,
        sync_etag,
        artifacts: load_artifacts(store, skill_id)?.into_iter().map(|s| s.artifact).collect(),
    })
}

/// The package JSON of a skill, pretty-printed, as `export` writes it.
pub fn export_json(store: &Store, skill_id: i64) -> Result<String> {
    Ok(serde_json::to_string_pretty(&load_package(store, skill_id)?)? + "\n")
}
