//! JSONTestSuite conformance: every `y_` file accepted, every `n_` file rejected, every
//! `i_` file answered without a panic; plus round trips over the accepted files and
//! the number/string cases of `test_transform/`.
//!
//! The suite lives outside the repository (see DEVELOPERS.md); when it is absent the
//! tests print SKIPPED and pass, except under `CI=true`, where absence is a failure.

use focus_core::json::{parse, Value};
use focus_testkit::conformance_dir;
use std::path::Path;

/// `(file name, contents)` of every file in `dir/sub` whose name starts with `prefix`, sorted.
fn cases(dir: &Path, sub: &str, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir.join(sub)).expect("readable conformance dir") {
        let entry = entry.expect("dir entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && name.ends_with(".json") {
            out.push((name, std::fs::read(entry.path()).expect("readable case")));
        }
    }
    out.sort();
    out
}

#[test]
fn every_y_file_is_accepted_and_round_trips() {
    let Some(dir) = conformance_dir("json") else {
        return;
    };
    let files = cases(&dir, "test_parsing", "y_");
    assert_eq!(files.len(), 95, "expected the 95 y_ files of JSONTestSuite");
    let mut failures = Vec::new();
    for (name, bytes) in &files {
        let value = match parse(bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: rejected: {e}"));
                continue;
            }
        };
        for text in [value.to_json_string(), value.to_pretty_string()] {
            match parse(text.as_bytes()) {
                Ok(again) if again == value => {}
                Ok(again) => {
                    failures.push(format!("{name}: round trip changed {value:?} to {again:?}"))
                }
                Err(e) => failures.push(format!("{name}: serialized text {text:?} rejected: {e}")),
            }
        }
        let once = value.to_json_string();
        let twice = parse(once.as_bytes()).map(|v| v.to_json_string());
        if twice.as_deref() != Ok(once.as_str()) {
            failures.push(format!(
                "{name}: serialization not stable: {once:?} then {twice:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_n_file_is_rejected_with_a_position() {
    let Some(dir) = conformance_dir("json") else {
        return;
    };
    let files = cases(&dir, "test_parsing", "n_");
    assert_eq!(
        files.len(),
        188,
        "expected the 188 n_ files of JSONTestSuite"
    );
    let mut accepted = Vec::new();
    for (name, bytes) in &files {
        match parse(bytes) {
            Ok(v) => accepted.push(format!("{name}: accepted as {v:?}")),
            Err(e) => {
                assert!(
                    e.offset <= bytes.len(),
                    "{name}: offset {} past end",
                    e.offset
                );
                assert!(e.line >= 1 && e.column >= 1, "{name}: position {e}");
                assert!(!e.message.is_empty(), "{name}: empty message");
            }
        }
    }
    assert!(accepted.is_empty(), "{}", accepted.join("\n"));
}

#[test]
fn every_i_file_gets_an_answer() {
    let Some(dir) = conformance_dir("json") else {
        return;
    };
    let files = cases(&dir, "test_parsing", "i_");
    assert_eq!(files.len(), 35, "expected the 35 i_ files of JSONTestSuite");
    let mut accepted = 0;
    for (name, bytes) in &files {
        // A panic here fails the test, which is the point: every answer must be clean.
        match parse(bytes) {
            Ok(v) => {
                accepted += 1;
                println!("i_ accepted: {name}");
                assert_eq!(
                    parse(v.to_json_string().as_bytes()).as_ref(),
                    Ok(&v),
                    "{name}"
                );
            }
            Err(e) => println!("i_ rejected: {name}: {e}"),
        }
    }
    println!("{accepted} of {} i_ files accepted", files.len());
}

/// `test_transform/` holds valid documents whose values parsers tend to alter; focus
/// must write each one back with its numbers and strings unchanged.
#[test]
fn transform_cases_keep_numbers_and_strings() {
    let Some(dir) = conformance_dir("json") else {
        return;
    };
    for (name, bytes) in cases(&dir, "test_transform", "") {
        let Ok(value) = parse(&bytes) else {
            // Invalid code points in raw bytes are rejected, as strict UTF-8 requires.
            assert!(name.contains("invalid_codepoint"), "{name} rejected");
            continue;
        };
        let text = value.to_json_string();
        if name.starts_with("number_") {
            let original: String = String::from_utf8_lossy(&bytes)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            assert_eq!(text, original, "{name}: number changed");
        }
        assert_eq!(parse(text.as_bytes()).as_ref(), Ok(&value), "{name}");
    }
}

#[test]
fn numbers_keep_their_exact_value_and_text() {
    let cases: &[(&str, Option<u64>, Option<i64>)] = &[
        ("18446744073709551615", Some(u64::MAX), None),
        ("9223372036854775807", Some(i64::MAX as u64), Some(i64::MAX)),
        ("-9223372036854775808", None, Some(i64::MIN)),
        ("0", Some(0), Some(0)),
    ];
    for (text, as_u, as_i) in cases {
        let v = parse(text.as_bytes()).unwrap();
        assert_eq!(v.as_u64(), *as_u, "{text}");
        assert_eq!(v.as_i64(), *as_i, "{text}");
        assert!(v.as_number().unwrap().is_integer(), "{text}");
        assert_eq!(v.to_json_string(), *text);
    }
    for text in [
        "1.0",
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "-0",
        "-0.0",
        "1E+2",
        "18446744073709551616",
        "-9223372036854775809",
        "0.1",
        "1.000000000000000005",
    ] {
        let v = parse(text.as_bytes()).unwrap();
        let n = v.as_number().unwrap();
        assert!(!n.is_integer(), "{text} is held as a float");
        assert_eq!(n.original_text(), Some(text));
        assert_eq!(v.to_json_string(), text, "{text} written back unchanged");
    }
    assert_eq!(parse(b"1e400").unwrap().as_f64(), Some(f64::INFINITY));
    assert!(parse(b"-0").unwrap().as_f64().unwrap().is_sign_negative());
    assert_ne!(parse(b"1").unwrap(), parse(b"1.0").unwrap());
    assert_eq!(parse(b"1.0").unwrap(), parse(b"1.00").unwrap());
}

#[test]
fn constructed_non_finite_floats_serialize_as_null() {
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(Value::from(f).to_json_string(), "null");
    }
    assert_eq!(Value::from(2.0).to_json_string(), "2.0");
    assert_eq!(Value::from(-0.0).to_json_string(), "-0.0");
    assert_eq!(Value::from(0.1).to_json_string(), "0.1");
    assert_eq!(Value::from(1e300).to_json_string(), "1e300");
    assert_eq!(Value::from(-2.5e-7).to_json_string(), "-2.5e-7");
    assert_eq!(Value::from(123456.0).to_json_string(), "123456.0");
    for f in [
        1e300,
        -2.5e-7,
        0.1 + 0.2,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
    ] {
        let back = parse(Value::from(f).to_json_string().as_bytes()).unwrap();
        assert_eq!(back.as_f64(), Some(f), "{f:e} round trips");
    }
    assert_eq!(Value::from(-7i64).to_json_string(), "-7");
}
