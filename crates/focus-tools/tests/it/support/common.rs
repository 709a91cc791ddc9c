//! Test support: throw-away directory trees and a one-line way to call a tool.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use focus_core::cancel::CancelToken;
use focus_core::json::Value;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

/// A directory under the system temp dir, removed on drop.
pub struct TempTree {
    pub root: PathBuf,
}

impl TempTree {
    pub fn new(name: &str) -> TempTree {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!(
            "focus-tools-test-{name}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("create temp tree");
        TempTree { root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, content).expect("write file");
        path
    }

    pub fn mkdir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).expect("read file")
    }

    pub fn read_bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).expect("read file")
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Calls `tool` with `args` and a fresh, never-cancelled token.
pub fn call(tool: &dyn Tool, args: Value) -> ToolOutput {
    let cancel = CancelToken::new();
    call_with(tool, args, &cancel, &|_| {})
}

/// Calls `tool` with a given token and update sink.
pub fn call_with(
    tool: &dyn Tool,
    args: Value,
    cancel: &CancelToken,
    on_update: &(dyn Fn(ToolOutput) + Sync),
) -> ToolOutput {
    let ctx = ToolContext {
        call_id: "call_1",
        cancel,
        on_update,
    };
    tool.execute(&args, &ctx)
}

/// The tool named `name` working in `cwd`, with a state of its own
/// (unconfined, sharing its record of files seen with no other tool).
pub fn tool(name: &str, cwd: &Path) -> std::sync::Arc<dyn Tool> {
    tool_in(name, cwd, &focus_tools::ToolState::unconfined())
}

/// The tool named `name` working in `cwd` with `state` (tools built with one
/// state share its sandbox, its record of files seen and its spill directory).
pub fn tool_in(name: &str, cwd: &Path, state: &focus_tools::ToolState) -> std::sync::Arc<dyn Tool> {
    focus_tools::tool_by_name(name, cwd, state).expect("known tool")
}
