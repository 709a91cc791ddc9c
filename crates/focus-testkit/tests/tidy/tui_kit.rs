//! focus-tui is a terminal kit that knows nothing of agents: its sources (the
//! library and its examples) name no harness, provider, tool or transport crate
//! and none of focus-core's agent, event, message, provider or tool types, and
//! its manifest depends on focus-sys and focus-core (for the JSON codec) only.

use focus_testkit::tree::{rust_files, workspace};

/// Names the kit's sources must not hold, and why.
const AGENT_NAMES: &[(&str, &str)] = &[
    (
        "focus_harness",
        "sessions and conversations are the CLI's wiring",
    ),
    ("focus_providers", "models are not the kit's business"),
    ("focus_tools", "tools are not the kit's business"),
    ("focus_transport", "the network is not the kit's business"),
    ("focus_core::agent", "the agent loop"),
    ("focus_core::event", "the agent's events"),
    ("focus_core::message", "conversation messages"),
    ("focus_core::provider", "provider types"),
    ("focus_core::tool", "tool types"),
];

/// The only dependencies the kit may have.
const KIT_DEPENDENCIES: &[&str] = &["focus-core", "focus-sys"];

#[test]
fn the_terminal_kit_names_no_agent_types() {
    let kit = workspace().join("crates/focus-tui");
    let mut files = rust_files(&kit.join("src"));
    files.extend(rust_files(&kit.join("examples")));
    assert!(files.len() >= 10, "only {} files in focus-tui", files.len());
    let mut found = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for (number, line) in text.lines().enumerate() {
            for (name, why) in AGENT_NAMES {
                if line.contains(name) {
                    found.push(format!(
                        "{}:{}: `{name}` ({why})",
                        path.display(),
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "focus-tui names agent types:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_terminal_kit_depends_on_sys_and_core_only() {
    let manifest =
        std::fs::read_to_string(workspace().join("crates/focus-tui/Cargo.toml")).unwrap();
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("focus-tui/Cargo.toml has a [dependencies] table");
    let dependencies = dependencies.split("\n[").next().unwrap_or("");
    let names: Vec<&str> = dependencies
        .lines()
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    assert!(
        !names.is_empty(),
        "no dependencies read from focus-tui/Cargo.toml"
    );
    for name in names {
        assert!(
            KIT_DEPENDENCIES.contains(&name),
            "focus-tui depends on {name}; it may depend on {KIT_DEPENDENCIES:?} only"
        );
    }
}
