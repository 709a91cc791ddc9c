//! Tool schemas come from outside (MCP servers) and tool-call arguments from the
//! model: `validate()` must answer, never panic nor blow the stack, for schemas
//! that are not objects, nested as deep as the parser allows, huge enums, and
//! random mutations of real schemas. Seeded, so a failure reproduces.

use focus_core::agent::schema::validate;
use focus_core::json::{parse_str, Value, MAX_DEPTH};
use focus_testkit::rng::Rng;

/// Runs `f` on a thread with the default 2 MiB stack, as the agent loop does.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("validation panicked");
}

fn nested(open: &str, close: &str, leaf: &str, depth: usize) -> Value {
    let text = format!("{}{leaf}{}", open.repeat(depth), close.repeat(depth));
    parse_str(&text).expect("within MAX_DEPTH")
}

#[test]
fn schemas_nested_as_deep_as_the_parser_allows_do_not_overflow_the_stack() {
    let depth = MAX_DEPTH / 2 - 2;
    on_small_stack(move || {
        // Beyond a sane depth the schema accepts anything; what matters is an
        // answer instead of a stack overflow that aborts the process.
        let schema = nested(r#"{"type":"array","items":"#, "}", "{}", depth);
        let value = nested("[", "]", "1", depth);
        let _ = validate(&schema, &value);
        let schema = nested(
            r#"{"additionalProperties":"#,
            "}",
            r#"{"type":"string"}"#,
            depth,
        );
        let value = nested(r#"{"a":"#, "}", "1", depth);
        let _ = validate(&schema, &value);
        let schema = nested(r#"{"allOf":["#, "]}", r#"{"type":"string"}"#, depth);
        let _ = validate(&schema, &Value::Null);
        let schema = nested(r#"{"anyOf":["#, "]}", r#"{"type":"string"}"#, depth);
        let _ = validate(&schema, &Value::Null);
        // Realistic nesting is still checked all the way down.
        let schema = nested(
            r#"{"additionalProperties":"#,
            "}",
            r#"{"type":"string"}"#,
            20,
        );
        let value = nested(r#"{"a":"#, "}", "1", 20);
        assert!(
            validate(&schema, &value).is_err(),
            "the innermost 1 is not a string"
        );
    });
}

#[test]
fn deep_values_compared_by_enum_and_const_do_not_overflow_the_stack() {
    let depth = MAX_DEPTH - 2;
    on_small_stack(move || {
        let deep = nested("[", "]", "1", depth);
        let mut schema = focus_core::json::Object::new();
        schema.insert("enum", Value::Array(vec![deep.clone()]));
        schema.insert("const", deep.clone());
        assert_eq!(validate(&Value::Object(schema), &deep), Ok(()));
    });
}

#[test]
fn odd_schemas_accept_or_reject_without_panicking() {
    let value = parse_str(r#"{"path":"a","n":3,"list":[1,"x",null],"o":{"k":true}}"#).unwrap();
    for schema in [
        "null",
        "true",
        "false",
        "[]",
        "\"object\"",
        "3",
        r#"{"type":7}"#,
        r#"{"type":[]}"#,
        r#"{"type":["nope"]}"#,
        r#"{"properties":[]}"#,
        r#"{"properties":{"path":5}}"#,
        r#"{"required":"path"}"#,
        r#"{"required":[1,null,"missing"]}"#,
        r#"{"minimum":"3","maximum":null,"minLength":-1,"maxLength":1e400}"#,
        r#"{"properties":{"n":{"minimum":1e400,"maximum":-1e400}}}"#,
        r#"{"properties":{"list":{"items":[{"type":"string"}],"minItems":-5,"maxItems":18446744073709551616}}}"#,
        r#"{"anyOf":[]}"#,
        r#"{"oneOf":[{},{}]}"#,
        r#"{"allOf":"x","anyOf":{},"oneOf":null}"#,
        r##"{"$ref":"#","properties":{"o":{"$ref":"#"}}}"##,
        r#"{"additionalProperties":false}"#,
        r#"{"additionalProperties":[]}"#,
    ] {
        let schema = parse_str(schema).unwrap();
        let _ = validate(&schema, &value);
    }
}

#[test]
fn huge_enums_give_a_bounded_message() {
    let allowed: Vec<Value> = (0..100_000).map(|i| Value::from(format!("v{i}"))).collect();
    let mut schema = focus_core::json::Object::new();
    schema.insert("enum", Value::Array(allowed));
    let problems = validate(&Value::Object(schema), &Value::from("nope")).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].len() < 4_000,
        "a 100,000-value enum is not pasted whole into the model's context ({} bytes)",
        problems[0].len()
    );
}

#[test]
fn many_bad_items_are_reported_up_to_the_cap() {
    let schema = parse_str(r#"{"type":"array","items":{"type":"string"}}"#).unwrap();
    let value = Value::Array((0..50_000).map(|_| Value::Null).collect());
    let problems = validate(&schema, &value).unwrap_err();
    assert!(problems.len() <= 12);
}

#[test]
fn random_schema_and_value_mutations_never_panic() {
    let base = parse_str(
        r#"{"type":"object","properties":{"path":{"type":"string","minLength":1},"n":{"type":"integer","minimum":0,"maximum":10},"mode":{"enum":["a","b"]},"list":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]},"maxItems":3},"o":{"type":"object","additionalProperties":{"type":"boolean"}}},"required":["path"],"additionalProperties":false}"#,
    )
    .unwrap();
    let pool: Vec<Value> = [
        "null",
        "1",
        "-1",
        "1.5",
        "1e400",
        "\"\"",
        "\"x\"",
        "[]",
        "{}",
        "true",
        "[null]",
        r#"{"type":"nope"}"#,
        r#"["string","integer"]"#,
        "18446744073709551616",
    ]
    .iter()
    .map(|s| parse_str(s).unwrap())
    .collect();
    let mut rng = Rng::new(0x5c4e_3a11);
    fn mutate(v: &mut Value, rng: &mut Rng, pool: &[Value], depth: usize) {
        if rng.below(5) == 0 || depth > 6 {
            *v = pool[rng.below(pool.len())].clone();
            return;
        }
        match v {
            Value::Object(o) => {
                let keys: Vec<String> = o.keys().map(str::to_string).collect();
                for k in keys {
                    if rng.below(3) == 0 {
                        mutate(o.get_mut(&k).unwrap(), rng, pool, depth + 1);
                    }
                }
            }
            Value::Array(a) => {
                for c in a.iter_mut() {
                    mutate(c, rng, pool, depth + 1);
                }
            }
            _ => *v = pool[rng.below(pool.len())].clone(),
        }
    }
    let value =
        parse_str(r#"{"path":"p","n":3,"mode":"a","list":["x",null],"o":{"k":true}}"#).unwrap();
    for _ in 0..2_000 {
        let mut schema = base.clone();
        let mut args = value.clone();
        mutate(&mut schema, &mut rng, &pool, 0);
        mutate(&mut args, &mut rng, &pool, 0);
        if let Err(problems) = validate(&schema, &args) {
            assert!(!problems.is_empty() && problems.len() <= 12);
            assert!(
                problems.iter().all(|p| p.starts_with("arguments")),
                "{problems:?}"
            );
        }
    }
}
