//! focus-cli: the `focus` command, which puts the layers together.
//!
//! Reading order: [`args`] (the flags), [`input`] (the first prompt), [`terminal`]
//! (tty, raw mode, colors), [`demo`] (the offline demo model), then the modes.
//! `main.rs` only calls [`run`].

#![warn(missing_docs)]

pub mod args;
pub mod demo;
pub mod input;
pub mod terminal;

/// Exit code for a command line that cannot run.
pub const EXIT_USAGE: i32 = 2;
/// Exit code for a run that failed (provider error, bad session file…).
pub const EXIT_FAILURE: i32 = 1;

/// Runs focus with `arguments` (without the program name) and returns the exit code.
pub fn run(arguments: impl Iterator<Item = String>) -> i32 {
    let args = match args::parse(arguments) {
        Ok(args) => args,
        Err(error) => {
            eprintln!("{error}");
            return EXIT_USAGE;
        }
    };
    if args.help {
        print!("{}", args::HELP);
        return 0;
    }
    if args.version {
        println!("focus {}", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    eprintln!("focus: this mode is not wired yet");
    EXIT_FAILURE
}
