//! Reading tool arguments defensively.
//!
//! The agent loop validates arguments against each tool's schema before calling
//! it, but a tool must not rely on that: these helpers turn a missing or
//! mistyped argument into an error message naming the argument, which the tool
//! returns to the model as-is.

use focus_core::json::Value;

/// The string argument `key`, or an error naming it.
///
/// # Errors
///
/// The argument is missing or not a string; the message names it.
pub fn required_str<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    match &args[key] {
        Value::String(s) => Ok(s),
        Value::Null => Err(format!("Missing required argument \"{key}\".")),
        other => Err(format!(
            "Argument \"{key}\" must be a string, got {}.",
            other.type_name()
        )),
    }
}

/// The optional string argument `key` (`None` when absent or null).
///
/// # Errors
///
/// The argument is present but not a string.
pub fn optional_str<'a>(args: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match &args[key] {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(format!(
            "Argument \"{key}\" must be a string, got {}.",
            other.type_name()
        )),
    }
}

/// The optional non-negative integer argument `key`. Integral floats (`10.0`)
/// and numeric strings (`"10"`) are accepted because models send both.
///
/// # Errors
///
/// The argument is present but not a non-negative integer (nor a string holding one).
pub fn optional_u64(args: &Value, key: &str) -> Result<Option<u64>, String> {
    let value = &args[key];
    let parsed = match value {
        Value::Null => return Ok(None),
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match parsed {
        Some(n) => Ok(Some(n)),
        None => Err(format!(
            "Argument \"{key}\" must be a non-negative integer, got {}.",
            value.to_json_string()
        )),
    }
}

/// The optional non-negative number argument `key` (fractions allowed).
///
/// # Errors
///
/// The argument is present but not a non-negative number.
pub fn optional_f64(args: &Value, key: &str) -> Result<Option<f64>, String> {
    let value = &args[key];
    let parsed = match value {
        Value::Null => return Ok(None),
        Value::Number(n) => Some(n.as_f64()),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match parsed {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(format!(
            "Argument \"{key}\" must be a non-negative number, got {}.",
            value.to_json_string()
        )),
    }
}

/// The optional boolean argument `key` (`"true"`/`"false"` strings accepted).
///
/// # Errors
///
/// The argument is present but neither a boolean nor `"true"`/`"false"`.
pub fn optional_bool(args: &Value, key: &str) -> Result<Option<bool>, String> {
    let value = &args[key];
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::String(s) if s == "true" => Ok(Some(true)),
        Value::String(s) if s == "false" => Ok(Some(false)),
        _ => Err(format!(
            "Argument \"{key}\" must be true or false, got {}.",
            value.to_json_string()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json_object;

    #[test]
    fn each_helper_names_the_argument_in_its_error() {
        let args = json_object! { "path" => 3, "n" => "x", "b" => 1, "f" => -1 };
        assert!(required_str(&args, "path")
            .unwrap_err()
            .contains("\"path\""));
        assert!(required_str(&args, "nope").unwrap_err().contains("Missing"));
        assert!(optional_str(&args, "path").is_err());
        assert!(optional_u64(&args, "n").unwrap_err().contains("\"n\""));
        assert!(optional_bool(&args, "b").unwrap_err().contains("\"b\""));
        assert!(optional_f64(&args, "f").is_err());
        let ok = json_object! { "n" => "12", "b" => "true", "f" => 1.5 };
        assert_eq!(optional_u64(&ok, "n").unwrap(), Some(12));
        assert_eq!(optional_bool(&ok, "b").unwrap(), Some(true));
        assert_eq!(optional_f64(&ok, "f").unwrap(), Some(1.5));
        assert_eq!(optional_u64(&ok, "missing").unwrap(), None);
    }
}
