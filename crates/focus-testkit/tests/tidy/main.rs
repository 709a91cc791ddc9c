//! Tidy: rules about the whole tree that no compiler checks, each stated as an
//! absence (rust-analyzer's `tidy.rs` is the model).
//!
//! - `Cargo.lock` holds the workspace's own crates and nothing else: no crates.
//! - Every Rust file opens with a `//!` comment saying what it is for.
//! - Processes are started (`Command::new`) only in the files listed in
//!   [`PROCESS_HOMES`], waited for against a clock (`try_wait`) only in
//!   [`CHILD_WAIT_HOMES`], and sockets opened only in [`SOCKET_HOMES`]; a new
//!   place must be added there, on purpose, with its reason.
//! - `unsafe` lives only in focus-sys: every other crate root forbids it, and no
//!   file elsewhere (examples and tests included) opens an `unsafe` block or
//!   declares an `unsafe` item.
//! - A crate's integration tests are one binary, `tests/it` (one link instead
//!   of one per file); the few others are listed in [`OTHER_TEST_BINARIES`].
//! - focus-testkit (test doubles and test data) is only ever a
//!   dev-dependency: no build of focus links it.
//! - focus-tui, the terminal kit, names no agent, session, provider or tool
//!   type and depends on focus-sys and focus-core only ([`tui_kit`]).
//! - No circle of more than 3 files in any crate's module imports
//!   ([`imports`]; the circles still there are listed, with their reasons).
//! - Every crate's manifest spells its package keys (nothing inherited from
//!   the workspace), so a crate's folder copied into another workspace loads
//!   as it is (`scripts/vendor-check` copies each one out and tests it).
//! - No process-wide state: no `static` with interior mutability (`Mutex`,
//!   `RwLock`, atomics, `Once*`, `Cell`s, `Lazy*`), no `static mut` and no
//!   `thread_local!` outside focus-sys and the files listed in
//!   [`PROCESS_STATE_HOMES`]: what tools, sessions or providers share is a
//!   value owned by whoever built them.
//! - The CLI's modes (`crates/focus-cli/src/modes/`) and the other front ends
//!   ([`OTHER_FRONT_ENDS`]: the MCP server, subagents, the harness's test
//!   front end) keep no run lifecycle of their own: no call that records
//!   events, joins a run, recycles event buffers, compacts, retries an
//!   overflow or writes the session ([`LIFECYCLE_CALLS`]); the harness's
//!   `Conversation` does all of it.
//!
//! Test code (`tests/`, `examples/`, focus-testkit, which is only ever a
//! dev-dependency, and everything after a `#[cfg(test)]` line in a source file)
//! is free to do any of these.
//!
//! Beside these rules, the checks of the documents against the code:
//! [`docs_cite_real_names`] (every name cited exists, with its index of the
//! sources, [`docs_cite`]) and [`docs_claims`] (what the crate map, the
//! vendoring table and the retry rule say about the crates is true), and
//! [`errors_documented`] (every public function returning a `Result` in a
//! library crate has an `# Errors` section).

mod docs_cite;
mod docs_cite_real_names;
mod docs_claims;
mod errors_documented;

use focus_testkit::tree::{rust_files, workspace};
use std::path::Path;

/// Where focus starts processes, and why.
const PROCESS_HOMES: &[(&str, &str)] = &[
    (
        "crates/focus-sys/src/namespaces.rs",
        "the once-per-process probe: does a jailed `sh -c :` start here?",
    ),
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
        "crates/focus-tools/src/git_tree.rs",
        "--output-diff: git add, write-tree and diff through a temporary index",
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
        "crates/focus-cli/src/mcp_serve/http/mod.rs",
        "`focus mcp serve --listen`: the loopback Streamable HTTP server",
    ),
    (
        "crates/focus-transport/src/std_http.rs",
        "the plain-HTTP transport: shutting its socket down on cancel",
    ),
    (
        "crates/focus-transport/src/std_http/connect.rs",
        "the plain-HTTP transport: resolving and connecting",
    ),
    (
        "crates/focus-transport/src/std_http/connection.rs",
        "the plain-HTTP transport: reading and writing a connection",
    ),
];

/// Where a crate other than focus-sys keeps state for the whole process, and
/// why it cannot be a value someone owns.
const PROCESS_STATE_HOMES: &[(&str, &str)] = &[
    (
        "crates/focus-cli/src/terminal/raw.rs",
        "the CLI's signal and panic handling: the terminal mode the panic hook restores",
    ),
    (
        "crates/focus-harness/src/session/arena.rs",
        "not yet a value: the session loader's spare block buffers (at most 64 MiB), \
         to move into the store that reloads sessions",
    ),
];

/// Integration-test binaries besides each crate's `tests/it`, and why.
const OTHER_TEST_BINARIES: &[(&str, &str)] = &[(
    "crates/focus-testkit/tests/tidy",
    "these rules about the whole tree, and the documents checked against the code",
)];

/// `path` relative to the workspace, with `/`.
fn relative(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every `(path, reason)` of a list here names something that exists: a list
/// that outlives its entries would excuse what is no longer there.
fn all_listed_exist(list: &[(&str, &str)]) {
    for (path, why) in list {
        assert!(
            workspace().join(path).exists(),
            "tidy/main.rs lists {path} ({why}), which does not exist"
        );
    }
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
            "{what} outside the files listed in tidy/main.rs: {strays:?}"
        );
        all_listed_exist(homes);
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

#[test]
fn unsafe_lives_only_in_focus_sys() {
    // Spelled in two pieces, so that this file does not name what it looks for.
    let forms = ["{", "fn", "impl", "extern"].map(|after| format!("{} {after}", "unsafe"));
    let mut offenders = Vec::new();
    let mut roots = 0;
    for krate in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let name = krate.file_name().to_string_lossy().into_owned();
        if name == "focus-sys" || !krate.path().is_dir() {
            continue;
        }
        for root in ["src/lib.rs", "src/main.rs"] {
            if let Ok(text) = std::fs::read_to_string(krate.path().join(root)) {
                roots += 1;
                if !text.contains("#![forbid(unsafe_code)]") {
                    offenders.push(format!("{name}/{root} does not forbid unsafe_code"));
                }
            }
        }
        for file in rust_files(&krate.path()) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if forms.iter().any(|form| code.contains(form.as_str())) {
                    offenders.push(format!("{}:{}: {}", relative(&file), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(roots >= 6, "found only {roots} crate roots");
    assert!(
        offenders.is_empty(),
        "unsafe outside focus-sys:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn integration_tests_are_one_binary_per_crate() {
    let mut strays = Vec::new();
    for krate in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let Ok(entries) = std::fs::read_dir(krate.path().join("tests")) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = relative(&entry.path());
            let binary = entry.path().is_dir() || name.ends_with(".rs");
            let listed = OTHER_TEST_BINARIES.iter().any(|(other, _)| *other == name);
            if binary && !name.ends_with("/tests/it") && !listed {
                strays.push(name);
            }
        }
    }
    assert!(
        strays.is_empty(),
        "test binaries outside tests/it (move them there, or list them in tidy/main.rs): {strays:?}"
    );
    all_listed_exist(OTHER_TEST_BINARIES);
}

#[test]
fn the_testkit_is_only_a_dev_dependency() {
    let mut users = 0;
    for krate in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let Ok(manifest) = std::fs::read_to_string(krate.path().join("Cargo.toml")) else {
            continue;
        };
        let mut section = "";
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
            } else if line.starts_with("focus-testkit") {
                users += 1;
                assert_eq!(
                    section,
                    "[dev-dependencies]",
                    "{}: focus-testkit under {section}",
                    relative(&krate.path())
                );
            }
        }
    }
    assert!(users >= 5, "only {users} crates use focus-testkit");
}

/// The `static` items and `thread_local!` blocks of `code` that hold state
/// which can change: `(line number, line)`.
fn mutable_statics(code: &str) -> Vec<(usize, String)> {
    const INTERIOR: &[&str] = &[
        "Mutex", "RwLock", "Atomic", "Once", "Cell", "Lazy", "Condvar",
    ];
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("").trim_start();
        let item = ["pub ", "pub(crate) ", "pub(super) "]
            .iter()
            .find_map(|vis| code.strip_prefix(vis))
            .unwrap_or(code);
        let mutable = match item.strip_prefix("static ") {
            Some(rest) if rest.starts_with("mut ") => true,
            Some(rest) => rest
                .split_once(':')
                .map(|(_, ty)| ty.split('=').next().unwrap_or(ty))
                .is_some_and(|ty| INTERIOR.iter().any(|word| ty.contains(word))),
            None => item.starts_with("thread_local!"),
        };
        if mutable {
            found.push((n + 1, line.trim().to_string()));
        }
    }
    found
}

#[test]
fn the_state_finder_sees_what_it_must() {
    let code = "static SEEN: Mutex<Option<HashMap<PathBuf, Seen>>> = Mutex::new(None);\n\
                fn f() {\n    static N: AtomicU64 = AtomicU64::new(0);\n}\n\
                pub static CURRENT: RwLock<Option<Arc<Sandbox>>> = RwLock::new(None);\n\
                pub(crate) static mut RAW: u32 = 0;\n\
                thread_local! {\n    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());\n}\n\
                static NAMES: &[&str] = &[\"Mutex\"];\n\
                static NULL: Value = Value::Null;\n\
                // static OLD: Mutex<()> = Mutex::new(());\n";
    let lines: Vec<usize> = mutable_statics(code).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, [1, 3, 5, 6, 7, 8]);
}

#[test]
fn no_process_wide_state_outside_focus_sys() {
    let mut strays = Vec::new();
    for path in rust_files(&workspace().join("crates")) {
        let name = relative(&path);
        let test_code = !name.contains("/src/") || name.starts_with("crates/focus-testkit/");
        let home = PROCESS_STATE_HOMES.iter().any(|(home, _)| *home == name);
        if test_code || home || name.starts_with("crates/focus-sys/") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (n, line) in mutable_statics(production_code(&text)) {
            strays.push(format!("{name}:{n}: {line}"));
        }
    }
    assert!(
        strays.is_empty(),
        "state kept for the whole process (make it a value its builder owns, or list the \
         file in tidy/main.rs with its reason):\n{}",
        strays.join("\n")
    );
    all_listed_exist(PROCESS_STATE_HOMES);
}

#[test]
fn manifests_spell_their_package_keys() {
    let mut crates = 0;
    for krate in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let Ok(manifest) = std::fs::read_to_string(krate.path().join("Cargo.toml")) else {
            continue;
        };
        crates += 1;
        let name = relative(&krate.path());
        for line in manifest.lines().map(str::trim) {
            assert!(
                !line.contains(".workspace") && !line.contains("workspace ="),
                "{name}/Cargo.toml inherits from the workspace (`{line}`): spell the value, \
                 so the crate copies out alone"
            );
        }
        for key in ["name", "version", "edition", "rust-version", "license"] {
            assert!(
                manifest
                    .lines()
                    .any(|l| l.starts_with(&format!("{key} = "))),
                "{name}/Cargo.toml has no `{key} = …`"
            );
        }
    }
    assert!(crates >= 8, "found only {crates} crates");
}

/// Calls that belong to a run's lifecycle, which the harness's `Conversation`
/// owns (`conversation/lifecycle.rs`), and why no mode makes them.
const LIFECYCLE_CALLS: &[(&str, &str)] = &[
    (
        ".record(",
        "recording a run's events: the loop's observer writes the session",
    ),
    (
        ".join()",
        "joining a run: `poll` takes the history back at `RunEnded`",
    ),
    (
        "recycle(",
        "recycling event buffers: a polled batch goes home when dropped",
    ),
    (
        "take_all(",
        "taking a run's queue: `Conversation::poll` does",
    ),
    (
        "run_ended(",
        "giving the history back: the conversation does at `RunEnded`",
    ),
    (
        "after_run",
        "deciding on compaction after a run: the lifecycle does",
    ),
    (
        "compact(",
        "compacting: ask with `request_compaction`, see the events",
    ),
    ("compact_session", "compacting: the lifecycle does"),
    (
        "prepare_compaction",
        "planning a compaction: the lifecycle does",
    ),
    (
        "record_compaction",
        "recording a compaction: the lifecycle does",
    ),
    (
        "append_compaction",
        "recording a compaction: the lifecycle does",
    ),
    ("OverflowRecovery", "the overflow retry: the lifecycle does"),
    ("spawn_agent", "starting a run: `Conversation::prompt` does"),
    ("run_agent", "running the loop: the lifecycle does"),
    (
        "append_message(",
        "writing the session: the conversation does",
    ),
];

/// Mode files that may make one of [`LIFECYCLE_CALLS`] for another reason
/// (none today: the matcher's scoped threads moved to focus-tui).
const LIFECYCLE_EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// The front ends besides the CLI's modes, which follow a conversation the
/// same way and are held to the same rule: the MCP server (its `agent` tool),
/// subagents (the CLI's factory and the harness's `task` tool, which drives
/// each child), and the harness's test front end.
const OTHER_FRONT_ENDS: &[&str] = &[
    "crates/focus-cli/src/mcp_serve",
    "crates/focus-cli/src/subagents.rs",
    "crates/focus-harness/src/subagents/task.rs",
    "crates/focus-harness/tests/it/front_end.rs",
];

#[test]
fn modes_keep_no_run_lifecycle_of_their_own() {
    let modes = workspace().join("crates/focus-cli/src/modes");
    let mode_files = rust_files(&modes);
    assert!(
        mode_files.len() >= 30,
        "only {} mode files found under {modes:?}",
        mode_files.len()
    );
    let mut paths = mode_files;
    for front_end in OTHER_FRONT_ENDS {
        let path = workspace().join(front_end);
        assert!(path.exists(), "{front_end} (OTHER_FRONT_ENDS) is gone");
        if path.is_dir() {
            paths.extend(rust_files(&path));
        } else {
            paths.push(path);
        }
    }
    let mut found = Vec::new();
    for path in paths {
        let file = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        for (line_number, line) in production_code(&text).lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (call, why) in LIFECYCLE_CALLS {
                let excused = LIFECYCLE_EXCEPTIONS
                    .iter()
                    .any(|(f, c, _)| *f == file && c == call);
                if code.contains(call) && !excused {
                    found.push(format!("{file}:{}: `{call}`: {why}", line_number + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "lifecycle calls in the front ends:\n{}",
        found.join("\n")
    );
    let listed: Vec<(&str, &str)> = LIFECYCLE_EXCEPTIONS
        .iter()
        .map(|(f, _, w)| (*f, *w))
        .collect();
    all_listed_exist(&listed);
}

mod imports;
mod tui_kit;
