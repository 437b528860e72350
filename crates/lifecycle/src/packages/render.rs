//! Template rendering with minijinja and the model-variant choice.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value;

use super::model::{Artifact, is_default_variant};
use crate::text::slug::slug;

/// Parses `source` as a template without rendering it.
pub fn check_syntax(source: &str) -> Result<(), String> {
    let env = Environment::new();
    env.template_from_str(source).map(|_| ()).map_err(|e| one_line(&e))
}

/// Renders `source` with `vars`. A variable the template uses but `vars` lacks is an error that
/// names it, not a silent empty string.
pub fn render_str(source: &str, vars: &BTreeMap<String, Value>) -> Result<String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    match env.render_str(source, to_jinja_map(vars)) {
        Ok(text) => Ok(text),
        Err(e) => bail!("rendering failed: {}", one_line(&e)),
    }
}

fn to_jinja_map(vars: &BTreeMap<String, Value>) -> minijinja::Value {
    let map: BTreeMap<String, minijinja::Value> =
        vars.iter().map(|(k, v)| (k.clone(), to_jinja(v))).collect();
    minijinja::Value::from(map)
}

fn to_jinja(v: &Value) -> minijinja::Value {
    match v {
        Value::Null => minijinja::Value::from(()),
        Value::Bool(b) => minijinja::Value::from(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => minijinja::Value::from(i),
            (None, Some(f)) => minijinja::Value::from(f),
            (None, None) => minijinja::Value::from(n.to_string()),
        },
        Value::String(s) => minijinja::Value::from(s.as_str()),
        Value::Array(items) => items.iter().map(to_jinja).collect(),
        Value::Object(map) => {
            let m: BTreeMap<String, minijinja::Value> =
                map.iter().map(|(k, v)| (k.clone(), to_jinja(v))).collect();
            minijinja::Value::from(m)
        }
    }
}

fn one_line(e: &minijinja::Error) -> String {
    let mut text = e.to_string();
    if let Some(line) = e.line() {
        text = format!("{text} (template line {line})");
    }
    text
}

/// The model family a model id belongs to ("claude-sonnet-4" → "anthropic"); unknown ids are
/// their own family, so `--model openai` and `--model anthropic` work as given.
pub fn model_family(model: &str) -> String {
    let m = model.to_ascii_lowercase();
    let family = if m.contains("claude") || m == "anthropic" {
        "anthropic"
    } else if m.starts_with("gpt") || m.starts_with("o1") || m.starts_with("o3") || m == "openai" {
        "openai"
    } else if m.contains("gemini") || m == "google" {
        "google"
    } else {
        return m;
    };
    family.to_string()
}

/// Does `artifact` answer to `wanted` (its exact name, case-insensitively, or its slug)?
pub fn name_matches(artifact: &Artifact, wanted: &str) -> bool {
    artifact.name.eq_ignore_ascii_case(wanted) || slug(&artifact.name) == slug(wanted)
}

/// Picks the row of the artifact named `wanted` for `model`: an exact model-family
/// match, else the default variant (NULL or "default"), else the first by ordinal.
pub fn choose_variant<'a>(
    artifacts: &'a [Artifact],
    wanted: &str,
    model: Option<&str>,
) -> Result<&'a Artifact> {
    if artifacts.is_empty() {
        bail!("this skill has no artifacts: it is a plain SKILL.md skill, not a package");
    }
    let mut rows: Vec<&Artifact> = artifacts.iter().filter(|a| name_matches(a, wanted)).collect();
    if rows.is_empty() {
        let names: Vec<&str> = artifacts.iter().map(|a| a.name.as_str()).collect();
        bail!("no artifact named {wanted:?} (artifacts: {})", names.join(", "));
    }
    rows.sort_by_key(|a| a.ordinal);
    if let Some(model) = model {
        let family = model_family(model);
        let exact = rows.iter().find(|a| {
            a.model_variant
                .as_deref()
                .is_some_and(|v| v.eq_ignore_ascii_case(&family) || v == model)
        });
        if let Some(a) = exact {
            return Ok(a);
        }
    }
    if let Some(a) = rows.iter().find(|a| is_default_variant(a.model_variant.as_deref())) {
        return Ok(a);
    }
    Ok(rows[0])
}

/// Parses `k=v` pairs: `--var` values are strings; `--var-json` values are JSON.
pub fn parse_vars(strings: &[String], json: &[String]) -> Result<BTreeMap<String, Value>> {
    let mut vars = BTreeMap::new();
    for pair in strings {
        let Some((k, v)) = pair.split_once('=') else {
            bail!("--var {pair:?} is not KEY=VALUE");
        };
        vars.insert(k.to_string(), Value::String(v.to_string()));
    }
    for pair in json {
        let Some((k, v)) = pair.split_once('=') else {
            bail!("--var-json {pair:?} is not KEY=JSON");
        };
        let value = serde_json::from_str(v)
            .map_err(|e| anyhow::anyhow!("--var-json {k}: value is not JSON: {e}"))?;
        vars.insert(k.to_string(), value);
    }
    Ok(vars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packages::model::ArtifactKind;

    fn art(name: &str, ordinal: i64, variant: Option<&str>) -> Artifact {
        Artifact {
            kind: ArtifactKind::PromptTemplate,
            name: name.into(),
            ordinal,
            content: format!("{variant:?}"),
            model_variant: variant.map(String::from),
            state_blob: None,
            metadata: None,
        }
    }

    #[test]
    fn variant_choice_exact_then_default_then_first_by_ordinal() {
        let all =
            vec![art("P", 2, Some("openai")), art("P", 1, None), art("P", 3, Some("anthropic"))];
        assert_eq!(choose_variant(&all, "P", Some("claude-opus-4")).unwrap().ordinal, 3);
        assert_eq!(choose_variant(&all, "p", Some("gpt-5")).unwrap().ordinal, 2);
        assert_eq!(choose_variant(&all, "P", Some("mistral")).unwrap().ordinal, 1);
        assert_eq!(choose_variant(&all, "P", None).unwrap().ordinal, 1);
        let no_default = vec![art("P", 5, Some("openai")), art("P", 4, Some("anthropic"))];
        assert_eq!(choose_variant(&no_default, "P", Some("mistral")).unwrap().ordinal, 4);
        assert!(choose_variant(&no_default, "Q", None).is_err());
    }

    #[test]
    fn missing_variable_is_named() {
        let err = render_str("Hi {{ who }}", &BTreeMap::new()).unwrap_err().to_string();
        assert!(err.contains("undefined"), "{err}");
    }
}
