//! The `focus` binary: everything happens in [`focus_cli::run`].

use std::io::Write;

fn main() {
    let arguments = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned());
    let code = focus_cli::run(arguments);
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}
