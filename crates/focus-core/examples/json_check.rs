//! `json_check FILE...`: checks that each file is one valid JSON text.
//!
//! Prints nothing and exits 0 when every file is valid; for each invalid or unreadable
//! file prints `FILE: <why, with byte offset, line and column>` and exits 1. Every
//! path through `main` ends in `exit(0)` or `exit(1)`: the parser never panics and
//! no output failure is allowed to unwind (so a closed stdout/stderr cannot make this
//! crash with another exit code).

use focus_core::json::parse;
use std::io::Write;
use std::process::exit;

fn main() {
    let files: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if files.is_empty() {
        report("usage: json_check FILE...");
        exit(1);
    }
    let mut all_valid = true;
    for file in &files {
        let name = file.to_string_lossy();
        match std::fs::read(file) {
            Ok(bytes) => {
                if let Err(e) = parse(&bytes) {
                    report(&format!("{name}: {e}"));
                    all_valid = false;
                }
            }
            Err(e) => {
                report(&format!("{name}: cannot read: {e}"));
                all_valid = false;
            }
        }
    }
    exit(if all_valid { 0 } else { 1 });
}

/// Writes one line to stdout, ignoring write errors (`println!` would panic on a
/// closed pipe, which would turn a verdict into a crash).
fn report(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
