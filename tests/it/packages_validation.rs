//! Every validation rule of the package importer, through the library: each broken document is
//! rejected with the JSON path and reason of its one problem.

use serde_json::{Value, json};
use skilldeck::packages::validate_package;

use crate::packages::fixture_json;

fn problems_of(doc: &Value) -> Vec<String> {
    match validate_package(&doc.to_string()) {
        Ok(_) => Vec::new(),
        Err(list) => list.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn each_rule_reports_its_path_and_reason() {
    type Mutation = fn(&mut Value);
    let cases: Vec<(&str, Mutation, &str)> = vec![
        ("not an object", |d| *d = json!([1]), "$: a package must be a JSON object"),
        ("bad id", |d| d["id"] = json!(7), "$.id: must be a UUID string"),
        (
            "no name",
            |d| {
                d.as_object_mut().unwrap().remove("name");
            },
            "$.name: is required",
        ),
        (
            "symbol name",
            |d| d["name"] = json!("!!!"),
            "$.name: must contain at least one ASCII letter or digit",
        ),
        ("long name", |d| d["name"] = json!("a".repeat(65)), "$.name: its folder name"),
        (
            "no description",
            |d| {
                d.as_object_mut().unwrap().remove("description");
            },
            "$.description: is required",
        ),
        (
            "blank description",
            |d| d["description"] = json!("  "),
            "$.description: must not be empty",
        ),
        (
            "long description",
            |d| d["description"] = json!("d".repeat(1025)),
            "$.description: is 1025 characters; SKILL.md allows 1024",
        ),
        ("numeric version", |d| d["version"] = json!(1), "$.version: must be a string"),
        ("empty version", |d| d["version"] = json!(""), "$.version: must not be empty"),
        ("tags not list", |d| d["tags"] = json!("a"), "$.tags: must be an array of strings"),
        (
            "tag not string",
            |d| d["intent_patterns"][1] = json!(3),
            "$.intent_patterns[1]: must be a string",
        ),
        (
            "bad source",
            |d| d["source"] = json!("cloud"),
            "$.source: must be one of system, community, user",
        ),
        ("unknown key", |d| d["extra"] = json!(1), "$.extra: unknown key"),
        (
            "no artifacts",
            |d| {
                d.as_object_mut().unwrap().remove("artifacts");
            },
            "$.artifacts: is required",
        ),
        (
            "empty artifacts",
            |d| d["artifacts"] = json!([]),
            "$.artifacts: must hold at least one artifact",
        ),
        ("artifacts not list", |d| d["artifacts"] = json!({}), "$.artifacts: must be an array"),
        (
            "artifact not object",
            |d| d["artifacts"][0] = json!("x"),
            "$.artifacts[0]: must be an object",
        ),
        (
            "artifact unknown key",
            |d| d["artifacts"][0]["colour"] = json!(1),
            "$.artifacts[0].colour: unknown key",
        ),
        (
            "no kind",
            |d| {
                d["artifacts"][0].as_object_mut().unwrap().remove("kind");
            },
            "$.artifacts[0].kind: is required",
        ),
        (
            "unknown kind",
            |d| d["artifacts"][0]["kind"] = json!("wasm"),
            "$.artifacts[0].kind: unknown kind \"wasm\"",
        ),
        (
            "deferred kind",
            |d| d["artifacts"][0]["kind"] = json!("example"),
            "$.artifacts[0].kind: kind \"example\" is reserved",
        ),
        (
            "no artifact name",
            |d| d["artifacts"][0]["name"] = json!(""),
            "$.artifacts[0].name: is required",
        ),
        (
            "negative ordinal",
            |d| d["artifacts"][0]["ordinal"] = json!(-1),
            "$.artifacts[0].ordinal: must be a non-negative integer",
        ),
        (
            "bad variant",
            |d| d["artifacts"][1]["model_variant"] = json!(5),
            "$.artifacts[1].model_variant: must be a non-empty string or null",
        ),
        (
            "no content",
            |d| d["artifacts"][0]["content"] = json!(""),
            "$.artifacts[0].content: is required",
        ),
        (
            "metadata not object",
            |d| d["artifacts"][0]["metadata"] = json!([]),
            "$.artifacts[0].metadata: must be an object",
        ),
        (
            "blob on a template",
            |d| d["artifacts"][1]["state_blob"] = json!("x"),
            "$.artifacts[1].state_blob: only a dspy_module carries a state_blob",
        ),
        (
            "blob not string",
            |d| d["artifacts"][3]["state_blob"] = json!(1),
            "$.artifacts[3].state_blob: must be a string",
        ),
        (
            "bad template",
            |d| d["artifacts"][2]["content"] = json!("{{ x"),
            "$.artifacts[2].content: template does not parse",
        ),
        (
            "dspy content not json",
            |d| d["artifacts"][3]["content"] = json!("chain"),
            "$.artifacts[3].content: a dspy_module's content must be JSON",
        ),
        (
            "dspy without template_id",
            |d| d["artifacts"][3]["content"] = json!("{}"),
            "$.artifacts[3].content: a dspy_module's content must be a JSON object with a string template_id",
        ),
        (
            "dspy without fallback",
            |d| d["artifacts"][3]["metadata"] = json!({}),
            "$.artifacts[3].metadata.fallback_artifact: is required",
        ),
        (
            "dspy fallback not string",
            |d| d["artifacts"][3]["metadata"]["fallback_artifact"] = json!(1),
            "$.artifacts[3].metadata.fallback_artifact: must be a string",
        ),
        (
            "dspy fallback missing",
            |d| d["artifacts"][3]["metadata"]["fallback_artifact"] = json!("Nope"),
            "$.artifacts[3].metadata.fallback_artifact: names \"Nope\", but no artifact has that name",
        ),
        (
            "dspy fallback wrong kind",
            |d| d["artifacts"][3]["metadata"]["fallback_artifact"] = json!("Overview"),
            "names \"Overview\", which is not a prompt_template",
        ),
        (
            "dspy fallback to itself",
            |d| d["artifacts"][3]["metadata"]["fallback_artifact"] = json!("DSPy Checker"),
            "a dspy_module cannot fall back to itself",
        ),
        (
            "duplicate artifact",
            |d| {
                let a = d["artifacts"][1].clone();
                d["artifacts"].as_array_mut().unwrap().push(a);
            },
            "$.artifacts[4].name: duplicates $.artifacts[1] (same name and model_variant)",
        ),
        (
            "null and default variant clash",
            |d| {
                let mut a = d["artifacts"][1].clone();
                a["model_variant"] = json!("default");
                d["artifacts"].as_array_mut().unwrap().push(a);
            },
            "$.artifacts[4].name: duplicates $.artifacts[1]",
        ),
        (
            "assertions not list",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": {}}),
            "$.artifacts[1].metadata.assertions: must be an array",
        ),
        (
            "assertion type",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "vibes"}]}),
            "$.artifacts[1].metadata.assertions[0].type: must be one of structural, length, pattern, semantic",
        ),
        (
            "assertion check",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "length", "check": "tokens", "max": 3}]})
            },
            "assertions[0].check: must be one of char_range",
        ),
        (
            "assertion unknown key",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "length", "check": "char_range", "max": 3, "unit": "x"}]}),
            "assertions[0].unit: unknown key for a length assertion",
        ),
        (
            "length bounds",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "length", "check": "char_range", "min": 9, "max": 3}]}),
            "assertions[0].min: min 9 is greater than max 3",
        ),
        (
            "length without bounds",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "length", "check": "char_range"}]})
            },
            "assertions[0]: a length assertion needs min, max or both",
        ),
        (
            "length not integer",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "length", "check": "char_range", "max": "3"}]})
            },
            "assertions[0].max: must be a non-negative integer",
        ),
        (
            "bad regex",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "pattern", "check": "regex_match", "pattern": "(" }]}),
            "assertions[0].pattern: invalid regex",
        ),
        (
            "no regex",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "pattern", "check": "regex_match"}]})
            },
            "assertions[0].pattern: is required",
        ),
        (
            "no schema",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "structural", "check": "json_schema"}]})
            },
            "assertions[0].schema: is required",
        ),
        (
            "schema keyword",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "structural", "check": "json_schema", "schema": {"type": "object", "properties": {"a": {"pattern": "x"}}}}]}),
            "assertions[0].schema.properties.a.pattern: unsupported JSON Schema keyword",
        ),
        (
            "schema type",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "structural", "check": "json_schema", "schema": {"type": "list"}}]}),
            "assertions[0].schema.type: must be one of object",
        ),
        (
            "semantic prompt",
            |d| {
                d["artifacts"][1]["metadata"] =
                    json!({"assertions": [{"type": "semantic", "check": "llm_eval"}]})
            },
            "assertions[0].prompt: is required",
        ),
        (
            "severity",
            |d| d["artifacts"][1]["metadata"] = json!({"assertions": [{"type": "semantic", "check": "llm_eval", "prompt": "p", "severity": "fatal"}]}),
            "assertions[0].severity: must be \"hard\" or \"soft\"",
        ),
    ];
    assert!(problems_of(&fixture_json("consistency-checker.json")).is_empty());
    for (label, mutate, expected) in cases {
        let mut doc = fixture_json("consistency-checker.json");
        mutate(&mut doc);
        let problems = problems_of(&doc);
        assert_eq!(problems.len(), 1, "{label}: expected one problem, got {problems:#?}");
        assert!(
            problems[0].contains(expected),
            "{label}: expected {expected:?}, got {:?}",
            problems[0]
        );
    }
}

#[test]
fn a_package_without_an_id_is_given_one_and_optional_keys_stay_absent() {
    let mut doc = fixture_json("consistency-checker.json");
    let obj = doc.as_object_mut().unwrap();
    for key in ["id", "version", "tags", "source", "intent_patterns", "trigger_phrases"] {
        obj.remove(key);
    }
    let pkg = validate_package(&doc.to_string()).unwrap();
    assert!(uuid::Uuid::parse_str(&pkg.id).is_ok());
    let back = serde_json::to_value(&pkg).unwrap();
    let mut keys: Vec<&str> = back.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["artifacts", "description", "id", "name"]);
}

#[test]
fn a_byte_order_mark_is_tolerated() {
    let text = format!("\u{feff}{}", fixture_json("variants.json"));
    assert_eq!(validate_package(&text).unwrap().name, "Release Notes");
}
