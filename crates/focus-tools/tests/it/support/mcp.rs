//! The MCP test server (`examples/mcp_test_server.rs`) for the tests that start it.

use focus_core::cancel::CancelToken;
use focus_core::json::parse_str;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The test server binary: next to this test's binary under `examples/`, built
/// (into a separate target dir, to avoid waiting on cargo's lock) if missing.
pub fn server_binary() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let profile_dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .expect("target/<profile>");
            let candidate = profile_dir.join("examples").join("mcp_test_server");
            if candidate.exists() {
                return candidate;
            }
            let target = profile_dir.join("mcp-test-server-build");
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "-p", "focus-tools", "--example", "mcp_test_server"])
                .env("CARGO_TARGET_DIR", &target)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build for the test server");
            assert!(status.success(), "building mcp_test_server failed");
            target
                .join("debug")
                .join("examples")
                .join("mcp_test_server")
        })
        .clone()
}

/// Calls `tool` with `args` (JSON text).
pub fn run(tool: &dyn Tool, args: &str) -> ToolOutput {
    run_with(tool, args, &CancelToken::new())
}

/// [`run`] with a cancel token the test controls.
pub fn run_with(tool: &dyn Tool, args: &str, cancel: &CancelToken) -> ToolOutput {
    let on_update = |_: ToolOutput| {};
    let ctx = ToolContext {
        call_id: "call_1",
        cancel,
        on_update: &on_update,
    };
    tool.execute(&parse_str(args).unwrap(), &ctx)
}
