//! Depth safety: values far deeper than the parser's limit, built by hand, can be
//! dropped, cloned, compared, debug-printed and serialized on a small (2 MB) thread
//! stack, because every walk over a `Value` uses a heap work list.

use focus_core::json::{parse, parse_str, Object, Value, MAX_DEPTH};

const HAND_BUILT_DEPTH: usize = 100_000;

/// Runs `f` on a thread with a 2 MB stack (the size std gives spawned threads by
/// default), where a recursive walk of 100,000 levels would overflow.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn test thread")
        .join()
        .expect("no panic or overflow on the 2 MB thread");
}

fn deep_arrays(depth: usize) -> Value {
    let mut v = Value::from("leaf");
    for _ in 0..depth {
        v = Value::Array(vec![Value::Null, v]);
    }
    v
}

fn deep_objects(depth: usize) -> Value {
    let mut v = Value::from(1);
    for i in 0..depth {
        let mut o = Object::new();
        o.insert("n", i);
        o.insert("child", v);
        v = Value::Object(o);
    }
    v
}

fn depth_of(mut v: &Value) -> usize {
    let mut depth = 0;
    loop {
        v = match v {
            Value::Array(items) => &items[1],
            Value::Object(o) => match o.get("child") {
                Some(child) => child,
                None => return depth,
            },
            _ => return depth,
        };
        depth += 1;
    }
}

#[test]
fn hand_built_deep_arrays_are_safe_to_clone_compare_print_and_drop() {
    on_small_stack(|| {
        let v = deep_arrays(HAND_BUILT_DEPTH);
        let copy = v.clone();
        assert_eq!(depth_of(&copy), HAND_BUILT_DEPTH);
        assert!(v == copy);
        let text = v.to_json_string();
        assert_eq!(text.len(), HAND_BUILT_DEPTH * 7 + 6);
        assert!(text.starts_with("[null,[null,") && text.contains("[null,\"leaf\"]]]"));
        assert_eq!(format!("{v:?}"), text);
        assert_eq!(format!("{v}"), text);
        let mut different = deep_arrays(HAND_BUILT_DEPTH - 1);
        different = Value::Array(vec![Value::Bool(false), different]);
        assert!(v != different);
        drop(copy);
        drop(v);
    });
}

#[test]
fn hand_built_deep_objects_are_safe_to_clone_compare_print_and_drop() {
    on_small_stack(|| {
        let v = deep_objects(HAND_BUILT_DEPTH);
        let copy = v.clone();
        assert_eq!(depth_of(&copy), HAND_BUILT_DEPTH);
        assert!(v == copy);
        let text = v.to_json_string();
        assert!(text.starts_with(r#"{"n":99999,"child":{"n":99998,"#));
        assert_eq!(format!("{v:?}").len(), text.len());
        let object = copy.as_object().expect("object");
        assert!(format!("{object:?}").len() > HAND_BUILT_DEPTH);
        assert!(deep_objects(HAND_BUILT_DEPTH - 1) != v);
    });
}

#[test]
fn pretty_printing_a_deep_value_stays_off_the_call_stack() {
    on_small_stack(|| {
        // Pretty output grows with depth squared (indentation), so 3,000 levels.
        let v = deep_arrays(3_000);
        let pretty = v.to_pretty_string();
        assert_eq!(parse_str(&pretty).as_ref(), Ok(&v));
    });
}

#[test]
fn parser_output_at_the_depth_limit_round_trips_on_a_small_stack() {
    on_small_stack(|| {
        let text = format!(
            "{}{}",
            "[{\"a\":".repeat(MAX_DEPTH / 2),
            "}]".repeat(MAX_DEPTH / 2)
        )
        .replace("{\"a\":}", "{\"a\":0}");
        let v = parse(text.as_bytes()).expect("exactly MAX_DEPTH levels are accepted");
        let copy = v.clone();
        assert!(copy == v);
        assert_eq!(copy.to_json_string(), text);
        let one_more = format!("[{text}]");
        let err = parse(one_more.as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting deeper than"), "{err}");
    });
}

#[test]
fn many_siblings_with_deep_children_drop_cleanly() {
    on_small_stack(|| {
        let items: Vec<Value> = (0..20).map(|_| deep_arrays(10_000)).collect();
        let v = Value::Array(items);
        assert_eq!(v.clone(), v);
    });
}
