//! End-to-end tests of the `focus` binary: one integration test binary with one
//! module per area, so linking happens once. `e2e` plays the scenarios of
//! `fixtures/scenarios/` for all four wire APIs.

mod choice;
mod crash;
mod e2e;
mod export;
mod flags;
mod headless;
mod hooks;
mod hostile;
mod interactive;
mod interactive_approvals;
mod interactive_commands;
mod interactive_links;
mod interactive_models;
mod interactive_notes;
mod interactive_pickers;
mod interactive_rewind;
mod interactive_screen;
mod interactive_switches;
mod interactive_tree;
mod interactive_vs_pi;
mod keys;
mod local_servers;
mod mcp_serve;
mod mcp_session;
mod modes;
mod private_files;
mod protected;
mod rewind;
mod rewind_crash;
mod robustness;
mod rpc;
mod sandbox;
mod sanitizers;
mod scripts;
mod session_lock;
mod signals;
mod stall;
mod subagents;
mod support;
mod transport;
mod trust;
