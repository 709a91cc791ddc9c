//! The `json_check` example as a user runs it: silent success, `FILE: error` lines
//! with a position, and only exit codes 0 and 1 whatever the input.
//!
//! `cargo test` builds examples before running tests; when the binary is missing
//! (e.g. `cargo test -p focus-core --test it json_check_cli` alone), the test
//! builds it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>/examples/json_check`, found from this test binary's location
/// (`target/<profile>/deps/it-…`); built by asking Cargo when it is missing
/// (`cargo test --test it json_check_cli` alone does not build examples).
fn json_check() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile_dir
        .join("examples")
        .join(format!("json_check{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .args([
                "build",
                "--quiet",
                "--example",
                "json_check",
                "--manifest-path",
            ])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
        if profile_dir.ends_with("release") {
            cargo.arg("--release");
        }
        let output = cargo.output().expect("run cargo");
        assert!(
            output.status.success(),
            "building json_check failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    path
}

/// A scratch directory unique to this test process.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("focus-json-check-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn run(bin: &Path, files: &[&Path]) -> (i32, String) {
    let out = Command::new(bin)
        .args(files)
        .output()
        .expect("run json_check");
    let code = out.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn valid_files_pass_silently_and_invalid_ones_are_named_with_a_position() {
    let bin = json_check();
    let dir = scratch_dir("verdicts");
    let good = dir.join("good.json");
    let bad = dir.join("bad.json");
    std::fs::write(&good, b"{\"a\": [1, 2.5, \"x\"]}\n").unwrap();
    std::fs::write(&bad, b"{\n  \"a\": [1, 2,]\n}\n").unwrap();

    assert_eq!(run(&bin, &[&good, &good]), (0, String::new()));

    let (code, out) = run(&bin, &[&good, &bad]);
    assert_eq!(code, 1);
    assert_eq!(
        out.trim_end(),
        format!(
            "{}: expected a JSON value, found ']' at line 2, column 14 (byte 15)",
            bad.display()
        )
    );

    let missing = dir.join("missing.json");
    let (code, out) = run(&bin, &[&missing]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with(&format!("{}: cannot read", missing.display())),
        "{out}"
    );

    let (code, _) = run(&bin, &[&dir]);
    assert_eq!(code, 1, "a directory is reported, not a crash");
    let (code, _) = run(&bin, &[]);
    assert_eq!(code, 1, "no arguments is a usage error");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn hostile_files_get_a_verdict_not_a_crash() {
    let bin = json_check();
    let dir = scratch_dir("hostile");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("deep.json", "[".repeat(200_000).into_bytes()),
        ("binary.json", (0..=255u8).cycle().take(4096).collect()),
        ("empty.json", Vec::new()),
        ("bom.json", b"\xef\xbb\xbf{}".to_vec()),
        (
            "huge_number.json",
            format!("1{}", "0".repeat(100_000)).into_bytes(),
        ),
    ];
    for (name, bytes) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let (code, _) = run(&bin, &[&path]);
        assert!(code == 0 || code == 1, "{name}: exit code {code}");
        if name == "huge_number.json" {
            assert_eq!(code, 0, "a long integer is valid JSON");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
