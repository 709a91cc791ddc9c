//! What the model asked `edit` to do: the replacements read from the call's
//! arguments ([`parse_edits`]), in every shape models send them.

use focus_core::json::Value;

/// One requested replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// Text to find (exactly once).
    pub old_text: String,
    /// Text to put in its place.
    pub new_text: String,
}

/// Reads the replacements from the arguments: `edits: [{oldText, newText}]`
/// (also spelled `old_text`/`new_text`), or pi's older single-edit shape with
/// `oldText`/`newText` at the top level.
///
/// # Errors
///
/// No edits, an edit without `oldText` or `newText`, an empty `oldText`, or a value of the wrong
/// type; the message names it.
pub fn parse_edits(args: &Value) -> Result<Vec<Replacement>, String> {
    let pair = |item: &Value, label: &str| -> Result<Replacement, String> {
        let field = |camel: &str, snake: &str| -> Result<String, String> {
            match (&item[camel], &item[snake]) {
                (Value::String(s), _) | (Value::Null, Value::String(s)) => Ok(s.clone()),
                (Value::Null, Value::Null) => Err(format!("{label} is missing \"{camel}\".")),
                (other, _) => Err(format!(
                    "{label}: \"{camel}\" must be a string, got {}.",
                    other.type_name()
                )),
            }
        };
        Ok(Replacement {
            old_text: field("oldText", "old_text")?,
            new_text: field("newText", "new_text")?,
        })
    };
    // Some models send the array as a JSON string; accept that too.
    let decoded;
    let mut edits = &args["edits"];
    if let Value::String(text) = edits {
        if let Ok(value @ Value::Array(_)) = focus_core::json::parse_str(text) {
            decoded = value;
            edits = &decoded;
        }
    }
    match edits {
        Value::Array(items) if items.is_empty() => {
            Err("\"edits\" is empty: give at least one {oldText, newText} pair.".to_string())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| pair(item, &format!("Edit {}", i + 1)))
            .collect(),
        Value::Null if !args["oldText"].is_null() || !args["old_text"].is_null() => {
            Ok(vec![pair(args, "The edit")?])
        }
        Value::Null => Err("Missing required argument \"edits\".".to_string()),
        other => Err(format!(
            "Argument \"edits\" must be an array of {{oldText, newText}} objects, got {}.",
            other.type_name()
        )),
    }
}
