//! Support for tests across the workspace: where the conformance data is
//! ([`conformance_dir`]) and a scripted HTTP/1.1 server ([`server::TestServer`]).

pub mod server;

use std::path::PathBuf;

/// The conformance data folder `sub` (e.g. `"sse"`, `"providers"`), from
/// `FOCUS_CONFORMANCE_DIR` or `../shared/conformance` beside the workspace.
///
/// When it is absent, returns `None` after saying so on stderr, so the calling test
/// can skip; under `CI=true` its absence panics, because CI must run it.
pub fn conformance_dir(sub: &str) -> Option<PathBuf> {
    let root = match std::env::var_os("FOCUS_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    };
    let dir = root.join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "conformance data missing at {} (set FOCUS_CONFORMANCE_DIR); CI requires it",
            dir.display()
        );
    }
    eprintln!(
        "SKIPPED: conformance data not found at {} (set FOCUS_CONFORMANCE_DIR to run these checks)",
        dir.display()
    );
    None
}
