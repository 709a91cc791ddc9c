//! Tidy: rules about the whole tree that no compiler checks, each stated as an
//! absence (rust-analyzer's `tidy.rs` is the model).
//!
//! - `Cargo.lock` holds the workspace's own crates and nothing else: no crates.
//! - Every Rust file opens with a `//!` comment saying what it is for.
//! - Processes are started (`Command::new`) only in the files listed in
//!   [`PROCESS_HOMES`], waited for against a clock (`try_wait`) only in
//!   [`CHILD_WAIT_HOMES`], and sockets opened only in [`SOCKET_HOMES`]; a new
//!   place must be added there, on purpose, with its reason.
//!
//! Test code (`tests/`, `examples/`, focus-testkit, which is only ever a
//! dev-dependency, and everything after a `#[cfg(test)]` line in a source file)
//! is free to do any of these.

use std::path::{Path, PathBuf};

/// Where focus starts processes, and why.
const PROCESS_HOMES: &[(&str, &str)] = &[
    (
        "crates/focus-sys/src/process/shell.rs",
        "`sh -c` and `bash -c`: hooks, `!command` keys and the bash tool",
    ),
    (
        "crates/focus-sys/src/secrets.rs",
        "focus restarting itself without the keys in its environment",
    ),
    (
        "crates/focus-providers/src/curl.rs",
        "the curl transport (`curl --version`)",
    ),
    (
        "crates/focus-providers/src/curl/process.rs",
        "the curl transport: one curl per request",
    ),
    (
        "crates/focus-tools/src/mcp/server.rs",
        "MCP servers over stdio",
    ),
    (
        "crates/focus-cli/src/modes/interactive/external.rs",
        "Ctrl+G: the user's $VISUAL or $EDITOR on the draft",
    ),
    (
        "crates/focus-cli/src/modes/interactive/clipboard.rs",
        "/copy: the clipboard program (wl-copy, xclip, xsel, pbcopy)",
    ),
];

/// Where focus polls a child process, and why: one loop for "wait until a
/// deadline, kill the group, reap".
const CHILD_WAIT_HOMES: &[(&str, &str)] = &[
    (
        "crates/focus-sys/src/process.rs",
        "kill_and_reap and reap_if_exited: a child that must go, or that ended",
    ),
    (
        "crates/focus-sys/src/process/deadline.rs",
        "Job::run_with_deadline: every child with a deadline",
    ),
];

/// Where focus opens sockets, and why.
const SOCKET_HOMES: &[(&str, &str)] = &[
    (
        "crates/focus-cli/src/probe.rs",
        "the loopback probe for a local model server",
    ),
    (
        "crates/focus-transport/src/testkit/server.rs",
        "the scripted loopback test server",
    ),
    (
        "crates/focus-transport/src/testkit/server/scripted.rs",
        "the scripted loopback test server",
    ),
    (
        "crates/focus-transport/src/testkit/server/recorded.rs",
        "the scripted loopback test server",
    ),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `path` relative to the workspace, with `/`.
fn relative(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The production part of a source file: up to its first `#[cfg(test)]`.
fn production_code(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |at| &text[..at])
}

#[test]
fn cargo_lock_holds_only_the_workspace() {
    let lock = std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap();
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    for line in lock.lines() {
        let Some(name) = line.strip_prefix("name = ") else {
            continue;
        };
        let name = name.trim_matches('"');
        assert!(
            manifest.contains(&format!("\"crates/{name}\"")),
            "Cargo.lock names {name}, which is not a crate of this workspace"
        );
    }
}

#[test]
fn every_rust_file_opens_with_a_module_comment() {
    let missing: Vec<String> = rust_files(&workspace().join("crates"))
        .into_iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|path| relative(&path))
        .collect();
    assert!(
        missing.is_empty(),
        "no //! comment at the top of: {missing:?}"
    );
}

#[test]
fn processes_and_sockets_only_in_their_homes() {
    let check = |needles: &[&str], homes: &[(&str, &str)], what: &str| {
        let mut strays = Vec::new();
        for path in rust_files(&workspace().join("crates")) {
            let name = relative(&path);
            let test_code = !name.contains("/src/") || name.starts_with("crates/focus-testkit/");
            if test_code || homes.iter().any(|(home, _)| *home == name) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if needles.iter().any(|n| production_code(&text).contains(n)) {
                strays.push(name);
            }
        }
        assert!(
            strays.is_empty(),
            "{what} outside the files listed in tidy.rs: {strays:?}"
        );
        for (home, why) in homes {
            assert!(
                workspace().join(home).is_file(),
                "tidy.rs lists {home} ({why}), which does not exist"
            );
        }
    };
    check(&["Command::new"], PROCESS_HOMES, "processes started");
    check(&["try_wait"], CHILD_WAIT_HOMES, "children polled");
    check(
        &[
            "TcpStream",
            "TcpListener",
            "UdpSocket",
            "UnixStream",
            "UnixListener",
        ],
        SOCKET_HOMES,
        "sockets opened",
    );
}
