//! The repository's scripts, run as a user runs them, with stand-ins for the
//! programs they call: `scripts/test` reports what it skipped even when a test
//! fails.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("focus-scripts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes an executable shell script.
fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `scripts/test` (a copy, in a scratch tree: it must not touch the real
/// `target/`) with a `cargo` that passes fmt, clippy and doc, then runs "tests"
/// of which two skip and one fails: the skips are counted and listed, and the
/// script still fails.
#[test]
fn scripts_test_counts_skips_when_a_test_fails() {
    let dir = scratch("test-skips");
    std::fs::create_dir_all(dir.join("tree/scripts")).unwrap();
    std::fs::copy(
        workspace().join("scripts/test"),
        dir.join("tree/scripts/test"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    script(
        &dir.join("bin/cargo"),
        "if [ \"$1\" = test ]; then\n\
         echo 'interactive::a: tmux not installed' >> \"$FOCUS_SKIP_LOG\"\n\
         echo 'conformance::b: conformance data not found' >> \"$FOCUS_SKIP_LOG\"\n\
         echo 'test result: FAILED. 1 failed'; exit 101\nfi\nexit 0\n",
    );
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(dir.join("tree/scripts/test"))
        .env("PATH", path)
        .env_remove("CI")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "a failing test must fail the script\n{stdout}"
    );
    assert!(
        stdout.contains("== 2 test(s) skipped"),
        "the skip count is missing\n{stdout}"
    );
    assert!(
        stdout.contains("skipped: interactive::a: tmux not installed"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
