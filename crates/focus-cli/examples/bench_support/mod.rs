//! What the focus-cli benchmarks share: reading a `--flag VALUE`, finding the
//! focus binary built beside them, a models.json naming a mock server, and
//! talking to tmux. Included by each with `#[path]` (not an example itself).

#![allow(dead_code)] // each benchmark uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;

/// The value after `name` on the command line, if both are there.
pub fn flag_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// The focus binary of the same build as this benchmark:
/// `target/release/examples/bench_x` → `target/release/focus`.
pub fn default_focus() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    exe.parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("focus"))
        .unwrap_or_default()
}

/// Writes `home/models.json` naming the mock server at `base_url` (one model,
/// `mock/mock-model`, free, with a 10M-token window and `max_tokens` of output),
/// understood by focus and pi alike.
pub fn write_models_json(home: &Path, base_url: &str, max_tokens: u64) {
    let _ = std::fs::create_dir_all(home);
    let text = format!(
        r#"{{"providers":{{"mock":{{"baseUrl":"{base_url}","api":"openai-completions","apiKey":"MOCK_API_KEY",
"models":[{{"id":"mock-model","name":"Mock","contextWindow":10000000,"maxTokens":{max_tokens},"reasoning":false,"input":["text"],
"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}}}]}}}}}}"#
    );
    let _ = std::fs::write(home.join("models.json"), text);
}

/// Runs `tmux args…` and returns what it printed (empty if it failed).
pub fn tmux(args: &[&str]) -> String {
    Command::new("tmux")
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}
