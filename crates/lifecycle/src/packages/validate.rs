//! Validation of a package JSON document: every problem is collected with its JSON path, and a
//! package with any problem is never stored.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::assertions::validate_assertions;
use super::model::{Artifact, ArtifactKind, Package, is_default_variant};
use super::problems::{Problem, Problems};
use crate::catalog::SkillSource;
use crate::text::slug::slug;

const TOP_KEYS: [&str; 12] = [
    "id",
    "name",
    "description",
    "version",
    "tags",
    "source",
    "author",
    "intent_patterns",
    "trigger_phrases",
    "marketplace_id",
    "sync_etag",
    "artifacts",
];
const ARTIFACT_KEYS: [&str; 7] =
    ["kind", "name", "ordinal", "content", "model_variant", "metadata", "state_blob"];
const MAX_DESCRIPTION: usize = 1024;
const MAX_NAME_SLUG: usize = 64;

/// Parses and validates `text`; on success the package (with an id assigned if it had none).
pub fn validate_package(text: &str) -> Result<Package, Vec<Problem>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        vec![Problem {
            path: "$".into(),
            reason: format!("not valid JSON: {e} (line {}, column {})", e.line(), e.column()),
        }]
    })?;
    let mut p = Problems::default();
    let Some(top) = doc.as_object() else {
        return Err(vec![Problem {
            path: "$".into(),
            reason: "a package must be a JSON object".into(),
        }]);
    };
    if let Some(id) = top.get("id") {
        match id.as_str() {
            Some(s) if uuid::Uuid::parse_str(s).is_ok() => {}
            _ => p.add("$.id", "must be a UUID string"),
        }
    }
    match top.get("name").and_then(Value::as_str) {
        None => p.add("$.name", "is required (a string)"),
        Some(name) => {
            let s = slug(name);
            if s.is_empty() {
                p.add("$.name", "must contain at least one ASCII letter or digit");
            } else if s.len() > MAX_NAME_SLUG {
                p.add(
                    "$.name",
                    &format!("its folder name {s:?} is longer than {MAX_NAME_SLUG} characters"),
                );
            }
        }
    }
    match top.get("description").and_then(Value::as_str) {
        None => p.add("$.description", "is required (a string)"),
        Some(d) if d.trim().is_empty() => p.add("$.description", "must not be empty"),
        Some(d) if d.chars().count() > MAX_DESCRIPTION => p.add(
            "$.description",
            &format!("is {} characters; SKILL.md allows {MAX_DESCRIPTION}", d.chars().count()),
        ),
        Some(_) => {}
    }
    for key in ["version", "author", "marketplace_id", "sync_etag"] {
        if let Some(v) = top.get(key)
            && !v.is_string()
        {
            p.add(&format!("$.{key}"), "must be a string");
        }
    }
    if top.get("version").and_then(Value::as_str).is_some_and(|v| v.trim().is_empty()) {
        p.add("$.version", "must not be empty");
    }
    for key in ["tags", "intent_patterns", "trigger_phrases"] {
        if let Some(v) = top.get(key) {
            string_array(v, &format!("$.{key}"), &mut p);
        }
    }
    if let Some(v) = top.get("source")
        && !v.as_str().and_then(SkillSource::parse).is_some_and(SkillSource::is_package_source)
    {
        p.add("$.source", "must be one of system, community, user");
    }
    match top.get("artifacts") {
        None => p.add("$.artifacts", "is required (an array)"),
        Some(Value::Array(list)) if list.is_empty() => {
            p.add("$.artifacts", "must hold at least one artifact")
        }
        Some(Value::Array(list)) => validate_artifacts(list, &mut p),
        Some(_) => p.add("$.artifacts", "must be an array"),
    }
    for key in top.keys() {
        if !TOP_KEYS.contains(&key.as_str()) {
            p.add(&format!("$.{key}"), "unknown key");
        }
    }
    if !p.0.is_empty() {
        return Err(p.0);
    }
    let mut doc = doc;
    if let Some(obj) = doc.as_object_mut() {
        obj.entry("id").or_insert_with(|| Value::String(uuid::Uuid::new_v4().to_string()));
    }
    serde_json::from_value(doc)
        .map_err(|e| vec![Problem { path: "$".into(), reason: format!("unexpected shape: {e}") }])
}

fn string_array(v: &Value, path: &str, p: &mut Problems) {
    match v.as_array() {
        None => p.add(path, "must be an array of strings"),
        Some(items) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    p.add(&format!("{path}[{i}]"), "must be a string");
                }
            }
        }
    }
}

fn validate_artifacts(list: &[Value], p: &mut Problems) {
    // (name, variant) pairs seen, and the kind of each artifact name, for fallback checks.
    let mut seen: HashMap<(String, Option<String>), usize> = HashMap::new();
    let mut kinds_by_name: HashMap<String, HashSet<ArtifactKind>> = HashMap::new();
    let mut fallbacks: Vec<(String, String)> = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let at = format!("$.artifacts[{i}]");
        let Some(obj) = a.as_object() else {
            p.add(&at, "must be an object");
            continue;
        };
        for key in obj.keys() {
            if !ARTIFACT_KEYS.contains(&key.as_str()) {
                p.add(&format!("{at}.{key}"), "unknown key");
            }
        }
        let kind = match obj.get("kind").and_then(Value::as_str) {
            None => {
                p.add(&format!("{at}.kind"), "is required (a string)");
                None
            }
            Some(k @ ("approach" | "example")) => {
                p.add(
                    &format!("{at}.kind"),
                    &format!("kind {k:?} is reserved: it has no handler yet"),
                );
                None
            }
            Some(k) => {
                let kind = ArtifactKind::parse(k);
                if kind.is_none() {
                    p.add(
                        &format!("{at}.kind"),
                        &format!("unknown kind {k:?} (expected description, prompt_template, code_template or dspy_module)"),
                    );
                }
                kind
            }
        };
        let name = match obj.get("name").and_then(Value::as_str) {
            Some(n) if !n.trim().is_empty() => Some(n.to_string()),
            _ => {
                p.add(&format!("{at}.name"), "is required (a non-empty string)");
                None
            }
        };
        if let Some(o) = obj.get("ordinal")
            && o.as_u64().is_none()
        {
            p.add(&format!("{at}.ordinal"), "must be a non-negative integer");
        }
        let variant = match obj.get("model_variant") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(_) => {
                p.add(&format!("{at}.model_variant"), "must be a non-empty string or null");
                None
            }
        };
        let content = obj.get("content").and_then(Value::as_str);
        if content.is_none_or(|c| c.trim().is_empty()) {
            p.add(&format!("{at}.content"), "is required (a non-empty string)");
        }
        let metadata = obj.get("metadata");
        if let Some(m) = metadata
            && !m.is_object()
        {
            p.add(&format!("{at}.metadata"), "must be an object");
        }
        let meta = metadata.and_then(Value::as_object);
        if let Some(assertions) = meta.and_then(|m| m.get("assertions")) {
            validate_assertions(assertions, &format!("{at}.metadata.assertions"), p);
        }
        if let Some(blob) = obj.get("state_blob") {
            if !blob.is_string() {
                p.add(&format!("{at}.state_blob"), "must be a string");
            } else if kind.is_some_and(|k| k != ArtifactKind::DspyModule) {
                p.add(&format!("{at}.state_blob"), "only a dspy_module carries a state_blob");
            }
        }
        match (kind, content) {
            (Some(ArtifactKind::PromptTemplate | ArtifactKind::CodeTemplate), Some(c)) => {
                if let Err(e) = super::render::check_syntax(c) {
                    p.add(&format!("{at}.content"), &format!("template does not parse: {e}"));
                }
            }
            (Some(ArtifactKind::DspyModule), Some(c)) => {
                dspy_checks(c, meta, &at, name.as_deref(), p, &mut fallbacks)
            }
            _ => {}
        }
        if let (Some(name), Some(kind)) = (&name, kind) {
            let key_variant = if is_default_variant(variant.as_deref()) { None } else { variant };
            let key = (name.clone(), key_variant);
            if let Some(first) = seen.get(&key) {
                p.add(
                    &format!("{at}.name"),
                    &format!("duplicates $.artifacts[{first}] (same name and model_variant)"),
                );
            } else {
                seen.insert(key, i);
            }
            kinds_by_name.entry(name.clone()).or_default().insert(kind);
        }
    }
    for (at, target) in fallbacks {
        match kinds_by_name.get(&target) {
            Some(kinds) if kinds.contains(&ArtifactKind::PromptTemplate) => {}
            Some(_) => p.add(&at, &format!("names {target:?}, which is not a prompt_template")),
            None => p.add(&at, &format!("names {target:?}, but no artifact has that name")),
        }
    }
}

fn dspy_checks(
    content: &str,
    meta: Option<&Map<String, Value>>,
    at: &str,
    name: Option<&str>,
    p: &mut Problems,
    fallbacks: &mut Vec<(String, String)>,
) {
    match serde_json::from_str::<Value>(content) {
        Ok(v) if v.get("template_id").and_then(Value::as_str).is_some() => {}
        Ok(_) => p.add(
            &format!("{at}.content"),
            "a dspy_module's content must be a JSON object with a string template_id",
        ),
        Err(e) => {
            p.add(&format!("{at}.content"), &format!("a dspy_module's content must be JSON: {e}"))
        }
    }
    let path = format!("{at}.metadata.fallback_artifact");
    match meta.and_then(|m| m.get("fallback_artifact")) {
        None => p.add(
            &path,
            "is required: a dspy_module must name a prompt_template to fall back to when the DSPy runtime is absent",
        ),
        Some(Value::String(target)) if Some(target.as_str()) == name => {
            p.add(&path, "a dspy_module cannot fall back to itself")
        }
        Some(Value::String(target)) => fallbacks.push((path, target.clone())),
        Some(_) => p.add(&path, "must be a string naming a prompt_template artifact"),
    }
}

/// The artifacts of `pkg` sorted for execution and display: by ordinal, then name.
pub fn ordered(pkg: &Package) -> Vec<&Artifact> {
    let mut list: Vec<&Artifact> = pkg.artifacts.iter().collect();
    list.sort_by(|a, b| a.ordinal.cmp(&b.ordinal).then_with(|| a.name.cmp(&b.name)));
    list
}
