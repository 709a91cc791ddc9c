//! Validates tool-call arguments against a tool's JSON Schema, before the tool runs.
//!
//! The subset real tool schemas use: `type` (one name or a list; `integer` accepts
//! whole numbers such as `3.0`, as JSON Schema says), `properties`, `required`,
//! `additionalProperties` (`false` or a schema), `items`, `enum`, `const`,
//! `minimum`/`maximum`, `minLength`/`maxLength`, `minItems`/`maxItems`, `anyOf`/`oneOf`,
//! `allOf`. Unknown keywords (`description`, `pattern`, `format`…) are ignored, and a
//! malformed schema never fails a call on its own.
//!
//! Nothing is coerced: `"5"` is not a number and `1` is not `true`. pi lets its
//! validator coerce types; we tell the model exactly what was wrong instead, with the
//! path: `arguments.path: expected string, found number`.

use crate::json::{Object, Value};

/// Checks `value` against `schema`. On failure, every problem found (up to a dozen),
/// each as `path: what was wrong`.
///
/// # Errors
///
/// `value` does not satisfy `schema`: every problem found (at most a dozen), each naming the path
/// and what was wrong.
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check(schema, value, "arguments", 0, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        problems.truncate(MAX_PROBLEMS);
        Err(problems)
    }
}

/// Enough to fix the call; more would flood the model's context.
const MAX_PROBLEMS: usize = 12;

/// How many allowed values an `enum` problem lists.
const MAX_ENUM_SHOWN: usize = 20;

/// How deep nested schemas are followed. Schemas come from MCP servers and the
/// parser allows 10,000 levels, which would overflow the loop thread's stack; no
/// real tool schema comes near this, and deeper parts accept anything (a
/// malformed schema never fails a call on its own).
const MAX_SCHEMA_DEPTH: usize = 64;

fn check(schema: &Value, value: &Value, path: &str, depth: usize, problems: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        return; // `true`, `{}` or malformed: accepts anything
    };
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(expected) = schema.get("type") {
        if !type_matches(expected, value) {
            let names = match expected {
                Value::Array(list) => list.iter().filter_map(Value::as_str).collect::<Vec<_>>(),
                other => other.as_str().into_iter().collect(),
            };
            if !names.is_empty() {
                let wanted = names.join(" or ");
                problems.push(format!("{path}: expected {wanted}, found {}", found(value)));
                return; // the other keywords would only repeat the type problem
            }
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        if !allowed.contains(value) {
            // A schema from an MCP server may list thousands of values; the first
            // few are enough to show the model what is wanted.
            let mut list: Vec<String> = allowed
                .iter()
                .take(MAX_ENUM_SHOWN)
                .map(Value::to_json_string)
                .collect();
            if allowed.len() > MAX_ENUM_SHOWN {
                list.push(format!("… ({} more)", allowed.len() - MAX_ENUM_SHOWN));
            }
            problems.push(format!(
                "{path}: must be one of {}, found {}",
                list.join(", "),
                value.to_json_string()
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            problems.push(format!("{path}: must be {}", constant.to_json_string()));
        }
    }
    check_bounds(schema, value, path, problems);
    check_combinators(schema, value, path, depth, problems);
    match value {
        Value::Object(object) => check_object(schema, object, path, depth, problems),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(
                        item_schema,
                        item,
                        &format!("{path}[{i}]"),
                        depth + 1,
                        problems,
                    );
                }
            }
        }
        _ => {}
    }
}

fn check_object(
    schema: &Object,
    object: &Object,
    path: &str,
    depth: usize,
    problems: &mut Vec<String>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for key in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(key) {
                problems.push(format!(
                    "{}: required property is missing",
                    child(path, key)
                ));
            }
        }
    }
    for (key, item) in object.iter() {
        match properties.and_then(|p| p.get(key)) {
            Some(property) => check(property, item, &child(path, key), depth + 1, problems),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let known: Vec<&str> =
                        properties.map(|p| p.keys().collect()).unwrap_or_default();
                    problems.push(format!(
                        "{}: unknown property (expected one of: {})",
                        child(path, key),
                        known.join(", ")
                    ));
                }
                Some(extra @ Value::Object(_)) => {
                    check(extra, item, &child(path, key), depth + 1, problems)
                }
                _ => {}
            },
        }
    }
}

fn check_bounds(schema: &Object, value: &Value, path: &str, problems: &mut Vec<String>) {
    let limit = |key: &str| schema.get(key).and_then(Value::as_f64);
    let mut bound = |key: &str, actual: f64, too_small: bool, what: &str| {
        if let Some(limit) = limit(key) {
            if (too_small && actual < limit) || (!too_small && actual > limit) {
                let word = if too_small { "at least" } else { "at most" };
                problems.push(format!(
                    "{path}: must be {word} {limit}{what}, found {actual}"
                ));
            }
        }
    };
    match value {
        Value::Number(n) => {
            bound("minimum", n.as_f64(), true, "");
            bound("maximum", n.as_f64(), false, "");
        }
        Value::String(s) => {
            let chars = s.chars().count() as f64;
            bound("minLength", chars, true, " characters long");
            bound("maxLength", chars, false, " characters long");
        }
        Value::Array(items) => {
            bound("minItems", items.len() as f64, true, " items");
            bound("maxItems", items.len() as f64, false, " items");
        }
        _ => {}
    }
}

fn check_combinators(
    schema: &Object,
    value: &Value,
    path: &str,
    depth: usize,
    problems: &mut Vec<String>,
) {
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for sub in all {
            check(sub, value, path, depth + 1, problems);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            let passes = |sub: &Value| {
                let mut scratch = Vec::new();
                check(sub, value, path, depth + 1, &mut scratch);
                scratch.is_empty()
            };
            let matching = options.iter().filter(|sub| passes(sub)).count();
            if matching == 0 {
                problems.push(format!("{path}: matches none of the allowed forms ({key})"));
            } else if key == "oneOf" && matching > 1 {
                problems.push(format!(
                    "{path}: matches more than one allowed form (oneOf)"
                ));
            }
        }
    }
}

fn type_matches(expected: &Value, value: &Value) -> bool {
    match expected {
        Value::String(name) => is_type(name, value),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| is_type(n, value)),
        _ => true, // malformed `type`: do not fail the call over the schema's bug
    }
}

fn is_type(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("null", Value::Null)
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_integer() || n.as_i64().is_some() || n.as_u64().is_some()
        }
        (other, _) => !KNOWN_TYPES.contains(&other), // an unknown type name accepts anything
    }
}

const KNOWN_TYPES: [&str; 7] = [
    "string", "boolean", "object", "array", "null", "number", "integer",
];

/// How a value is named in an error: its JSON type, with `integer` vs `number`
/// when that is the point.
fn found(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_none() => {
            "number (not an integer)"
        }
        other => other.type_name(),
    }
}

/// `path.key`, or `path["odd key"]` when the key is not a plain identifier.
fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::from(key).to_json_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    fn problems(schema: &str, value: &str) -> Vec<String> {
        validate(&parse_str(schema).unwrap(), &parse_str(value).unwrap())
            .err()
            .unwrap_or_default()
    }

    #[test]
    fn types_required_and_paths() {
        let schema = r#"{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"limit":{"type":"integer"}}}"#;
        assert!(problems(schema, r#"{"path":"a","limit":3}"#).is_empty());
        assert!(problems(schema, r#"{"path":"a","limit":3.0}"#).is_empty());
        assert_eq!(
            problems(schema, r#"{"path":5}"#),
            ["arguments.path: expected string, found number"]
        );
        assert_eq!(
            problems(schema, r#"{"limit":2.5}"#),
            [
                "arguments.path: required property is missing",
                "arguments.limit: expected integer, found number (not an integer)"
            ]
        );
        assert_eq!(
            problems(schema, "[]"),
            ["arguments: expected object, found array"]
        );
    }

    #[test]
    fn no_coercion_enums_nesting_and_extras() {
        let schema = r#"{"type":"object","additionalProperties":false,"properties":{
            "mode":{"enum":["a","b"]},
            "flag":{"type":"boolean"},
            "edits":{"type":"array","minItems":1,"items":{"type":"object","required":["old"],"properties":{"old":{"type":"string"}}}}}}"#;
        assert_eq!(
            problems(
                schema,
                r#"{"mode":"c","flag":"true","edits":[{"old":"x"},{"new":1}],"odd key":1}"#
            ),
            [
                r#"arguments.mode: must be one of "a", "b", found "c""#,
                "arguments.flag: expected boolean, found string",
                "arguments.edits[1].old: required property is missing",
                r#"arguments["odd key"]: unknown property (expected one of: mode, flag, edits)"#
            ]
        );
        assert_eq!(
            problems(schema, r#"{"edits":[]}"#),
            ["arguments.edits: must be at least 1 items, found 0"]
        );
    }

    #[test]
    fn malformed_schemas_accept_and_unions_work() {
        assert!(problems(r#"{"type":7,"properties":3}"#, r#"{"a":1}"#).is_empty());
        assert!(problems("true", "5").is_empty());
        let union = r#"{"type":["string","null"]}"#;
        assert!(problems(union, "null").is_empty());
        assert_eq!(
            problems(union, "1"),
            ["arguments: expected string or null, found number"]
        );
        let any = r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#;
        assert!(problems(any, "3").is_empty());
        assert_eq!(
            problems(any, "true"),
            ["arguments: matches none of the allowed forms (anyOf)"]
        );
    }
}
