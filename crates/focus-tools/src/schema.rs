//! The JSON Schema of a tool's parameters, from a few named pieces, so every
//! tool spells an object, a string, a count or a flag the same way (and a file
//! path with the same words).

use focus_core::json::{Object, Value};
use focus_core::json_object;

/// `{"type": "object", "properties": {…}, "required": […]}`, properties in the
/// order given.
pub fn object<const N: usize>(properties: [(&str, Value); N], required: &[&str]) -> Value {
    let mut props = Object::new();
    for (name, schema) in properties {
        props.insert(name, schema);
    }
    let required: Vec<Value> = required.iter().map(|name| Value::from(*name)).collect();
    json_object! {
        "type" => "object",
        "properties" => props,
        "required" => required,
    }
}

/// A string property.
pub fn string(description: &str) -> Value {
    json_object! { "type" => "string", "description" => description }
}

/// An integer property of at least `minimum`.
pub fn integer(minimum: i32, description: &str) -> Value {
    json_object! { "type" => "integer", "minimum" => minimum, "description" => description }
}

/// A true/false property.
pub fn boolean(description: &str) -> Value {
    json_object! { "type" => "boolean", "description" => description }
}

/// The `path` of the file a tool works on, in the words every file tool uses.
pub fn file_path() -> Value {
    string("Path to the file, relative to the working directory or absolute")
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json_array;

    #[test]
    fn builds_what_the_literal_would() {
        let built = object(
            [("path", file_path()), ("limit", integer(1, "How many"))],
            &["path"],
        );
        let literal = json_object! {
            "type" => "object",
            "properties" => json_object! {
                "path" => json_object! {
                    "type" => "string",
                    "description" => "Path to the file, relative to the working directory or absolute",
                },
                "limit" => json_object! {
                    "type" => "integer", "minimum" => 1, "description" => "How many",
                },
            },
            "required" => json_array!["path"],
        };
        assert_eq!(built.to_json_string(), literal.to_json_string());
    }
}
