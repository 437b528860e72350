//! Output assertions stored in an artifact's `metadata.assertions`: structural (a JSON
//! Schema subset), length (character range), pattern (regex match / no match), and semantic
//! (model-judged: stored and reported, never run here). The schema subset lives in `schema.rs`.

use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value};

use super::problems::Problems;
use super::schema::{check_schema, validate_schema};

/// Checks the `assertions` array at `path`, adding a problem for each thing wrong.
pub fn validate_assertions(value: &Value, path: &str, problems: &mut Problems) {
    let Some(list) = value.as_array() else {
        problems.add(path, "must be an array of assertions");
        return;
    };
    for (i, a) in list.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let Some(obj) = a.as_object() else {
            problems.add(&at, "must be an object");
            continue;
        };
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
        let check = obj.get("check").and_then(Value::as_str);
        let (want_check, allowed): (&[&str], &[&str]) = match kind {
            "structural" => (&["json_schema"], &["schema"]),
            "length" => (&["char_range"], &["min", "max"]),
            "pattern" => (&["regex_match", "regex_no_match"], &["pattern"]),
            "semantic" => (&["llm_eval"], &["prompt", "expected"]),
            _ => {
                problems.add(
                    &format!("{at}.type"),
                    "must be one of structural, length, pattern, semantic",
                );
                continue;
            }
        };
        match check {
            Some(c) if want_check.contains(&c) => {}
            _ => problems
                .add(&format!("{at}.check"), &format!("must be one of {}", want_check.join(", "))),
        }
        for key in obj.keys() {
            let common = ["type", "check", "description", "severity"];
            if !common.contains(&key.as_str()) && !allowed.contains(&key.as_str()) {
                problems
                    .add(&format!("{at}.{key}"), &format!("unknown key for a {kind} assertion"));
            }
        }
        if let Some(s) = obj.get("severity")
            && !matches!(s.as_str(), Some("hard" | "soft"))
        {
            problems.add(&format!("{at}.severity"), "must be \"hard\" or \"soft\"");
        }
        match kind {
            "structural" => match obj.get("schema") {
                Some(schema) => validate_schema(schema, &format!("{at}.schema"), problems),
                None => problems.add(&format!("{at}.schema"), "is required"),
            },
            "length" => validate_length(obj, &at, problems),
            "pattern" => match obj.get("pattern").and_then(Value::as_str) {
                Some(p) => {
                    if let Err(e) = Regex::new(p) {
                        let first = e.to_string().lines().last().unwrap_or("").trim().to_string();
                        problems.add(&format!("{at}.pattern"), &format!("invalid regex: {first}"));
                    }
                }
                None => problems.add(&format!("{at}.pattern"), "is required (a regex string)"),
            },
            _ => {
                if obj.get("prompt").and_then(Value::as_str).is_none_or(str::is_empty) {
                    problems.add(&format!("{at}.prompt"), "is required (a non-empty string)");
                }
            }
        }
    }
}

fn validate_length(obj: &Map<String, Value>, at: &str, problems: &mut Problems) {
    let bound = |key: &str, problems: &mut Problems| match obj.get(key) {
        None => None,
        Some(v) => match v.as_u64() {
            Some(n) => Some(n),
            None => {
                problems.add(&format!("{at}.{key}"), "must be a non-negative integer");
                None
            }
        },
    };
    let (min, max) = (bound("min", problems), bound("max", problems));
    if !obj.contains_key("min") && !obj.contains_key("max") {
        problems.add(at, "a length assertion needs min, max or both");
    }
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        problems.add(&format!("{at}.min"), &format!("min {lo} is greater than max {hi}"));
    }
}

crate::text_enum! {
    /// What one assertion found in an output.
    pub enum AssertionVerdict {
        Passed = "passed",
        Failed = "failed",
        /// Semantic assertions need a model.
        NotRun = "not_run",
    }
}

/// One assertion's verdict against an output.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AssertionResult {
    pub index: usize,
    #[serde(rename = "type")]
    pub kind: String,
    pub check: String,
    pub verdict: AssertionVerdict,
    pub detail: String,
}

/// Evaluates every assertion in `metadata.assertions` against `output`.
/// Assertions were validated at import, so malformed ones only occur in hand-edited rows; they
/// fail with the reason rather than being skipped.
pub fn evaluate(metadata: Option<&Value>, output: &str) -> Vec<AssertionResult> {
    let list = metadata.and_then(|m| m.get("assertions")).and_then(Value::as_array);
    let Some(list) = list else { return Vec::new() };
    list.iter()
        .enumerate()
        .map(|(index, a)| {
            let text = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let (kind, check) = (text("type"), text("check"));
            let (verdict, detail) = match kind.as_str() {
                "structural" => verdict(check_structural(a.get("schema"), output)),
                "length" => verdict(check_length(a, output)),
                "pattern" => verdict(check_pattern(&check, &text("pattern"), output)),
                "semantic" => {
                    (AssertionVerdict::NotRun, format!("model-judged: {}", text("prompt")))
                }
                other => (AssertionVerdict::Failed, format!("unknown assertion type {other:?}")),
            };
            AssertionResult { index, kind, check, verdict, detail }
        })
        .collect()
}

fn verdict(result: Result<String, String>) -> (AssertionVerdict, String) {
    match result {
        Ok(detail) => (AssertionVerdict::Passed, detail),
        Err(detail) => (AssertionVerdict::Failed, detail),
    }
}

fn check_structural(schema: Option<&Value>, output: &str) -> Result<String, String> {
    let schema = schema.ok_or("assertion has no schema")?;
    let value: Value =
        serde_json::from_str(output.trim()).map_err(|e| format!("output is not JSON: {e}"))?;
    check_schema(schema, &value, "$")?;
    Ok("output matches the JSON schema".into())
}

fn check_length(a: &Value, output: &str) -> Result<String, String> {
    let n = output.chars().count() as u64;
    let min = a.get("min").and_then(Value::as_u64);
    let max = a.get("max").and_then(Value::as_u64);
    let range = format!(
        "{}..={}",
        min.map_or("".into(), |m| m.to_string()),
        max.map_or("".into(), |m| m.to_string())
    );
    if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
        Err(format!("{n} characters, outside {range}"))
    } else {
        Ok(format!("{n} characters, within {range}"))
    }
}

fn check_pattern(check: &str, pattern: &str, output: &str) -> Result<String, String> {
    let re = Regex::new(pattern).map_err(|e| format!("invalid regex: {e}"))?;
    let found = re.find(output);
    match (check, found) {
        ("regex_no_match", None) => Ok(format!("no match for /{pattern}/")),
        ("regex_no_match", Some(m)) => {
            Err(format!("/{pattern}/ matched {:?} at byte {}", m.as_str(), m.start()))
        }
        (_, Some(_)) => Ok(format!("matches /{pattern}/")),
        (_, None) => Err(format!("no match for /{pattern}/")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(assertions: Value, output: &str) -> Vec<&'static str> {
        evaluate(Some(&json!({ "assertions": assertions })), output)
            .iter()
            .map(|r| r.verdict.as_str())
            .collect()
    }

    #[test]
    fn schema_subset_checks_nested_types_required_enum_and_bounds() {
        let schema = json!([{ "type": "structural", "check": "json_schema", "schema": {
            "type": "object", "required": ["contradictions"],
            "properties": { "contradictions": { "type": "array", "minItems": 1,
                "items": { "type": "object", "required": ["a"], "properties": {
                    "a": { "type": "integer", "minimum": 1 },
                    "level": { "enum": ["low", "high"] } } } } } } }]);
        assert_eq!(
            run(schema.clone(), r#"{"contradictions":[{"a":2,"level":"low"}]}"#),
            ["passed"]
        );
        assert_eq!(run(schema.clone(), r#"{"contradictions":[]}"#), ["failed"]);
        assert_eq!(run(schema.clone(), r#"{"contradictions":[{"a":0}]}"#), ["failed"]);
        assert_eq!(
            run(schema.clone(), r#"{"contradictions":[{"a":1,"level":"mid"}]}"#),
            ["failed"]
        );
        assert_eq!(run(schema.clone(), r#"{"other":1}"#), ["failed"]);
        assert_eq!(run(schema, "not json"), ["failed"]);
    }

    #[test]
    fn length_pattern_and_semantic() {
        let a = json!([
            { "type": "length", "check": "char_range", "min": 3, "max": 5 },
            { "type": "pattern", "check": "regex_no_match", "pattern": "```" },
            { "type": "pattern", "check": "regex_match", "pattern": "^ab" },
            { "type": "semantic", "check": "llm_eval", "prompt": "ok?", "expected": "yes" }
        ]);
        assert_eq!(run(a.clone(), "abcd"), ["passed", "passed", "passed", "not_run"]);
        assert_eq!(run(a, "x```yz"), ["failed", "failed", "failed", "not_run"]);
    }

    #[test]
    fn unsupported_schema_keyword_is_a_problem() {
        let mut p = Problems::default();
        validate_assertions(
            &json!([{ "type": "structural", "check": "json_schema", "schema": { "oneOf": [] } }]),
            "$.a",
            &mut p,
        );
        assert_eq!(p.0.len(), 1, "{:?}", p.0);
        assert_eq!(p.0[0].path, "$.a[0].schema.oneOf");
    }
}
