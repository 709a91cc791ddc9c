//! The `focus` binary: everything happens in [`focus_cli::run`].

#![forbid(unsafe_code)]

use std::io::Write;

fn main() {
    // First: keys leave the environment (focus may restart here).
    focus_cli::keys::hide();
    let arguments = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    let code = focus_cli::run(arguments);
    // Spilled bash output lives only as long as focus (issue 19, item 5).
    focus_tools::bash::spill::remove_spill_dir();
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
