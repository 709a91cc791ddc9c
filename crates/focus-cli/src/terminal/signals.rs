//! Ctrl+C in print and JSON modes: the first one aborts the run (so the session
//! stays well-formed: the partial answer is kept and every tool call gets its
//! result), a second one exits at once. SIGTERM, SIGHUP and SIGQUIT count as an
//! abort too. And Ctrl+Z in interactive mode, where raw mode delivers it as a
//! key: focus stops itself. The handlers live in focus-sys (`focus_sys::signals`).

pub use focus_sys::signals::stop_self;

/// Catches SIGINT, SIGTERM, SIGHUP and SIGQUIT from now on (idempotent); each
/// first arrival is counted by [`interrupts`], a second one exits at once.
pub fn catch_interrupts() {
    focus_sys::signals::catch_interrupts();
    focus_sys::signals::catch_terminations();
}

/// How many times the run was asked to stop since the process started: Ctrl+C
/// presses plus termination signals.
pub fn interrupts() -> usize {
    focus_sys::signals::interrupts() + focus_sys::signals::terminations()
}
