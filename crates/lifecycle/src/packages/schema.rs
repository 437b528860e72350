//! The JSON Schema subset used by structural assertions: `type`, `required`, `properties`,
//! `enum`, `items`, `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`, plus
//! the annotations `$schema`, `title`, `description`. Implemented here rather than with the
//! `jsonschema` crate, whose dependency tree is large for this subset. Any other keyword is
//! rejected at import, so no constraint is ever silently ignored.

use serde_json::Value;

use super::problems::Problems;

const TYPES: [&str; 7] = ["object", "array", "string", "number", "integer", "boolean", "null"];
const ANNOTATIONS: [&str; 3] = ["$schema", "title", "description"];

/// Adds a problem for every unsupported or malformed keyword of `schema`, found at `path`.
pub fn validate_schema(schema: &Value, path: &str, problems: &mut Problems) {
    let Some(obj) = schema.as_object() else {
        problems.add(path, "a schema must be an object");
        return;
    };
    for (key, v) in obj {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "type" => {
                let names: Vec<&Value> = match v {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                if names.is_empty() || names.iter().any(|n| !n.as_str().is_some_and(|s| TYPES.contains(&s))) {
                    problems.add(&at, &format!("must be one of {} (or an array of them)", TYPES.join(", ")));
                }
            }
            "required" => {
                if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
                    problems.add(&at, "must be an array of property names");
                }
            }
            "properties" => match v.as_object() {
                Some(props) => {
                    for (name, sub) in props {
                        validate_schema(sub, &format!("{at}.{name}"), problems);
                    }
                }
                None => problems.add(&at, "must be an object of schemas"),
            },
            "items" => validate_schema(v, &at, problems),
            "enum" => {
                if v.as_array().is_none_or(|a| a.is_empty()) {
                    problems.add(&at, "must be a non-empty array");
                }
            }
            "minimum" | "maximum" => {
                if !v.is_number() {
                    problems.add(&at, "must be a number");
                }
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                if v.as_u64().is_none() {
                    problems.add(&at, "must be a non-negative integer");
                }
            }
            k if ANNOTATIONS.contains(&k) => {}
            _ => problems.add(&at, "unsupported JSON Schema keyword (supported: type, required, properties, enum, items, minimum, maximum, minLength, maxLength, minItems, maxItems)"),
        }
    }
}

fn type_matches(name: &str, v: &Value) -> bool {
    match name {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// Checks `v` (found at `at`) against `schema`; the first violation, with its path.
pub fn check_schema(schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = |k: &str| schema.get(k);
    if let Some(t) = s("type") {
        let names: Vec<&str> = match t {
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect(),
        };
        if !names.iter().any(|n| type_matches(n, v)) {
            return Err(format!("{at}: expected {}, found {}", names.join(" or "), type_name(v)));
        }
    }
    if let Some(options) = s("enum").and_then(Value::as_array)
        && !options.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {}", Value::Array(options.clone())));
    }
    if let Some(n) = v.as_f64() {
        if let Some(lo) = s("minimum").and_then(Value::as_f64).filter(|lo| n < *lo) {
            return Err(format!("{at}: {n} is less than the minimum {lo}"));
        }
        if let Some(hi) = s("maximum").and_then(Value::as_f64).filter(|hi| n > *hi) {
            return Err(format!("{at}: {n} is greater than the maximum {hi}"));
        }
    }
    if let Some(text) = v.as_str() {
        bounds(text.chars().count(), s("minLength"), s("maxLength"), at, "characters")?;
    }
    if let Some(items) = v.as_array() {
        bounds(items.len(), s("minItems"), s("maxItems"), at, "items")?;
        if let Some(item_schema) = s("items") {
            for (i, item) in items.iter().enumerate() {
                check_schema(item_schema, item, &format!("{at}[{i}]"))?;
            }
        }
    }
    if let Some(obj) = v.as_object() {
        for key in s("required").and_then(Value::as_array).into_iter().flatten() {
            let key = key.as_str().unwrap_or("");
            if !obj.contains_key(key) {
                return Err(format!("{at}: missing required property {key:?}"));
            }
        }
        for (key, sub) in s("properties").and_then(Value::as_object).into_iter().flatten() {
            if let Some(child) = obj.get(key) {
                check_schema(sub, child, &format!("{at}.{key}"))?;
            }
        }
    }
    Ok(())
}

fn bounds(
    n: usize,
    min: Option<&Value>,
    max: Option<&Value>,
    at: &str,
    unit: &str,
) -> Result<(), String> {
    let n = n as u64;
    if let Some(lo) = min.and_then(Value::as_u64).filter(|lo| n < *lo) {
        return Err(format!("{at}: {n} {unit}, fewer than {lo}"));
    }
    if let Some(hi) = max.and_then(Value::as_u64).filter(|hi| n > *hi) {
        return Err(format!("{at}: {n} {unit}, more than {hi}"));
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
