//! The `focus` binary: everything happens in [`focus_cli::run`].

#![forbid(unsafe_code)]

use std::io::Write;

fn main() {
    // First: keys leave the environment (focus may restart here).
    focus_cli::keys::hide();
    let arguments = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    // Spilled bash output lives only as long as the session's tools (issue 19,
    // item 5): `run` has dropped them, and their spill directory, when it returns.
    let code = focus_cli::run(arguments);
    let _ = std::io::stdout().flush();
    // For the benchmark: the process's peak resident set size, from the kernel.
    if std::env::var_os("FOCUS_REPORT_PEAK_RSS").is_some() {
        if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
            if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
                eprintln!(
                    "focus-peak-rss: {}",
                    line.trim_start_matches("VmHWM:").trim()
                );
            }
        }
    }
    std::process::exit(code);
}
