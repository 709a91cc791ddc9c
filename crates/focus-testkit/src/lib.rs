//! focus-testkit: support for the workspace's tests, used only as a
//! dev-dependency (no library crate of focus depends on it for real).
//!
//! Its first job is one rule, kept in one place: where the shared test data is,
//! and what happens when it is not there. The data (JSONTestSuite, SSE cases,
//! recorded provider streams, pi's sample sessions) lives outside the repository,
//! in `../shared/` beside the workspace. A test that needs it asks
//! [`conformance_dir`] or [`pi_samples_dir`]:
//!
//! - found: the folder;
//! - missing under `CI=true`: a panic, because CI must run every suite;
//! - missing elsewhere: `None` (the test returns early), a `SKIPPED:` line on
//!   stderr, and a line appended to the file `FOCUS_SKIP_LOG` names, so that
//!   `scripts/test` can end by counting the skipped suites instead of letting
//!   them pass unseen.
//!
//! A test that cannot run here for another reason (no tmux, no curl, no
//! Landlock, running as root) returns early after [`skipped`], which prints the
//! same `SKIPPED:` line and appends to the same log: it is counted as skipped,
//! never as passed.
//!
//! Beside that rule, the helpers more than one crate's tests share:
//!
//! - [`scripted`]: the agent loop's test doubles, [`scripted::ScriptedProvider`]
//!   (canned replies streamed as a real provider streams) and
//!   [`scripted::FnTool`];
//! - [`server`]: [`server::TestServer`], a scripted HTTP/1.1 server on loopback;
//! - [`mock_llm`]: [`mock_llm::MockLlm`], a mock LLM server for all four wire
//!   APIs, playing a scenario on a [`server::TestServer`];
//! - [`rng`]: [`rng::Rng`], the seeded generator of the property tests and
//!   benchmarks;
//! - [`streams`]: the recorded provider streams of the conformance data;
//! - [`mutate`]: random damage to JSON documents for the hostile-input tests;
//! - [`alone`]: a process of its own for a test inside a crate's one test binary;
//! - [`tree`]: the workspace's source files, for the checks over the whole tree.

#![forbid(unsafe_code)]

pub mod alone;
pub mod mock_llm;
pub mod mutate;
pub mod rng;
pub mod scripted;
pub mod server;
pub mod streams;
pub mod tree;

use std::io::Write;
use std::path::{Path, PathBuf};

/// The conformance data folder `sub` (`"JSONTestSuite"`, `"sse"`, `"providers"`…),
/// from `FOCUS_CONFORMANCE_DIR` or `../shared/conformance` beside the workspace.
pub fn conformance_dir(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("FOCUS_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared().join("conformance"));
    found_or_skipped(root.join(sub), "conformance data", "FOCUS_CONFORMANCE_DIR")
}

/// pi's recorded samples (sessions, request bodies, JSON events), from
/// `FOCUS_PI_SAMPLES_DIR`, `FOCUS_REFERENCE_DIR/pi-samples` or
/// `../shared/reference/pi-samples` beside the workspace.
pub fn pi_samples_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FOCUS_PI_SAMPLES_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("FOCUS_REFERENCE_DIR").map(|r| PathBuf::from(r).join("pi-samples"))
        })
        .unwrap_or_else(|| shared().join("reference/pi-samples"));
    found_or_skipped(dir, "pi samples", "FOCUS_PI_SAMPLES_DIR")
}

/// `../shared` beside the workspace.
fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// `dir` if it is a folder; otherwise the skip (see the crate's comment).
fn found_or_skipped(dir: PathBuf, what: &str, variable: &str) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir);
    }
    let note = format!(
        "{what} not found at {} (set {variable} to run these checks)",
        dir.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{note}; CI requires it");
    }
    eprintln!("SKIPPED: {note}");
    record_skip(&note);
    None
}

/// Reports that the calling test does not run here and why (`note`, such as
/// "tmux not installed"): a `SKIPPED:` line on stderr and a line in the skip
/// log `scripts/test` counts. The test then returns early. (Requirements that
/// CI must meet are the caller's to enforce before calling this.)
pub fn skipped(note: &str) {
    eprintln!("SKIPPED: {note}");
    record_skip(note);
}

/// Appends `note` to the file `FOCUS_SKIP_LOG` names, if any (one line per skip;
/// `O_APPEND` keeps lines from test threads and processes whole).
fn record_skip(note: &str) {
    let Some(log) = std::env::var_os("FOCUS_SKIP_LOG") else {
        return;
    };
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = writeln!(file, "{test}: {note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_a_visible_skip() {
        if std::env::var("CI").as_deref() == Ok("true") {
            return; // a missing folder panics there, by design
        }
        let log = std::env::temp_dir().join(format!("focus-skip-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        std::env::set_var("FOCUS_SKIP_LOG", &log);
        let missing = std::env::temp_dir().join("focus-testkit-no-such-folder");
        assert_eq!(found_or_skipped(missing, "data", "X"), None);
        // A test returning early for a missing program lands in the same log.
        skipped("tmux not installed; interactive mode tests not run");
        std::env::remove_var("FOCUS_SKIP_LOG");
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(logged.contains("data not found at"), "{logged}");
        assert_eq!(logged.lines().count(), 2, "{logged}");
        assert!(
            logged
                .lines()
                .nth(1)
                .unwrap()
                .ends_with(": tmux not installed; interactive mode tests not run"),
            "{logged}"
        );
        let _ = std::fs::remove_file(&log);
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(found_or_skipped(here.clone(), "data", "X"), Some(here));
    }
}
