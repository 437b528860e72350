//! A package on disk is a normal Agent Skills folder: SKILL.md from the description, templates
//! under `references/`, code under `scripts/`. Folders are staged beside their final place and
//! renamed in, so a crash leaves either the old folder or the new one.

use std::collections::HashSet;

use super::model::{ArtifactKind, Package};
use super::validate::ordered;
use crate::fsio::Files;
use crate::spec::frontmatter::yaml_string;
use crate::text::slug::slug;

/// The SKILL.md and artifact files for `pkg`, whose folder is named `folder_name`.
pub fn package_files(pkg: &Package, folder_name: &str) -> Files {
    let mut files = Files::new();
    let mut used = HashSet::new();
    let mut listing = Vec::new();
    let mut body = Vec::new();
    for a in ordered(pkg) {
        let variant =
            a.model_variant.as_deref().map(|v| format!(".{}", slug(v))).unwrap_or_default();
        let (dir, ext) = match a.kind {
            ArtifactKind::Description => {
                body.push(a.content.trim().to_string());
                continue;
            }
            ArtifactKind::PromptTemplate => ("references", "md.j2"),
            ArtifactKind::CodeTemplate => ("scripts", "py.j2"),
            ArtifactKind::DspyModule => ("references", "dspy.json"),
        };
        let stem = format!("{}{variant}", slug(&a.name));
        let mut rel = format!("{dir}/{stem}.{ext}");
        let mut n = 2;
        while !used.insert(rel.clone()) {
            rel = format!("{dir}/{stem}-{n}.{ext}");
            n += 1;
        }
        let contents = if a.kind == ArtifactKind::DspyModule {
            let doc = serde_json::json!({
                "content": a.content, "state_blob": a.state_blob, "metadata": a.metadata,
            });
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        } else {
            a.content.clone()
        };
        let mut line = format!("- `{rel}`: {} ({}", a.name, a.kind);
        if let Some(v) = &a.model_variant {
            line += &format!(", model variant {v}");
        }
        if let Some(f) = a.fallback_artifact() {
            line += &format!("; falls back to {f} when the DSPy runtime is absent");
        }
        listing.push(line + ")");
        files.push((rel, contents));
    }
    if body.is_empty() {
        body.push(pkg.description.clone());
    }
    let mut md = String::from("---\n");
    md += &format!("name: {folder_name}\n");
    md += &format!("description: {}\n", yaml_string(&pkg.description));
    md += "metadata:\n";
    md += &format!("  skilldeck-package-id: {}\n", yaml_string(&pkg.id));
    if let Some(v) = &pkg.version {
        md += &format!("  skilldeck-package-version: {}\n", yaml_string(v));
    }
    if let Some(s) = &pkg.source {
        md += &format!("  skilldeck-source: {}\n", yaml_string(s.as_str()));
    }
    md += "---\n\n";
    md += &format!("# {}\n\n{}\n", pkg.name, body.join("\n\n"));
    if !listing.is_empty() {
        md += "\n## Artifacts\n\nThis skill is a skilldeck package; its other artifacts live beside this file:\n\n";
        md += &listing.join("\n");
        md += &format!(
            "\n\nRender a template with `skilldeck render {folder_name} \"ARTIFACT\" --var KEY=VALUE`.\n"
        );
    }
    files.insert(0, ("SKILL.md".to_string(), md));
    files
}
