//! Signals: Ctrl+C in print and JSON modes, stopping ourselves on Ctrl+Z, and
//! the polite termination signals (SIGTERM, SIGHUP, SIGQUIT).
//!
//! Every handler here does only what is async-signal-safe: an atomic update,
//! and `_exit` when a second signal says "now". The rest of focus polls the
//! counters ([`interrupts`], [`terminations`]) from ordinary code, so a run is
//! aborted cleanly (the partial answer kept, every tool call given a result)
//! instead of dying halfway through writing the session file.
//!
//! Numbers (every signal number focus uses is here): SIGHUP 1, SIGINT 2,
//! SIGQUIT 3, SIGKILL 9 and SIGTERM 15 are the same on every supported target;
//! SIGTSTP is 20 on Linux's generic ABI and 18 on macOS and the BSDs.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Once;

/// Hang-up: the terminal went away.
pub const SIGHUP: i32 = 1;
/// Interrupt: Ctrl+C.
pub const SIGINT: i32 = 2;
/// Quit: Ctrl+\.
pub const SIGQUIT: i32 = 3;
/// Kill: cannot be caught or ignored (what a timeout sends a process group).
pub const SIGKILL: i32 = 9;
/// Termination request (`kill`'s default).
pub const SIGTERM: i32 = 15;
/// The terminal stop signal (Ctrl+Z).
#[cfg(target_os = "linux")]
pub const SIGTSTP: i32 = 20;
/// The terminal stop signal (Ctrl+Z).
#[cfg(not(target_os = "linux"))]
pub const SIGTSTP: i32 = 18;

/// How many times Ctrl+C was pressed.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
/// How many termination signals arrived.
static TERMINATIONS: AtomicUsize = AtomicUsize::new(0);
/// The last termination signal's number (0: none yet).
static LAST_TERMINATION: AtomicI32 = AtomicI32::new(0);
static INSTALL_INTERRUPTS: Once = Once::new();
static INSTALL_TERMINATIONS: Once = Once::new();

extern "C" {
    /// `signal(2)`; glibc, musl, macOS and the BSDs all give it BSD semantics
    /// (the handler stays installed, interrupted calls restart).
    // Also declared in `ffi`, with SIG_DFL's integer as the handler.
    #[allow(clashing_extern_declarations)]
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
    fn _exit(status: c_int) -> !;
    fn raise(signum: c_int) -> c_int;
}

/// SIGINT's handler: count; on the second press, exit at once.
extern "C" fn on_sigint(_: c_int) {
    if INTERRUPTS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit is async-signal-safe and ends the process immediately.
        unsafe { _exit(128 + SIGINT) }
    }
}

/// The termination signals' handler: record which; on the second, exit at once
/// with the shell's code for it (128 + the signal number).
extern "C" fn on_termination(signum: c_int) {
    LAST_TERMINATION.store(signum, Ordering::SeqCst);
    if TERMINATIONS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit is async-signal-safe and ends the process immediately.
        unsafe { _exit(128 + signum) }
    }
}

/// Catches SIGINT from now on (idempotent): the first Ctrl+C is counted
/// ([`interrupts`]), the second exits with code 130.
pub fn catch_interrupts() {
    INSTALL_INTERRUPTS.call_once(|| {
        // SAFETY: installs a handler that only touches an atomic and calls
        // _exit; the function pointer is valid for the life of the process.
        unsafe {
            signal(SIGINT, on_sigint);
        }
    });
}

/// How many times Ctrl+C was pressed since [`catch_interrupts`].
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}

/// Catches SIGTERM, SIGHUP and SIGQUIT from now on (idempotent): the first is
/// recorded ([`terminations`], [`last_termination`]) so the caller can abort
/// the run and exit cleanly; a second one exits at once (128 + its number).
/// Install it only where something polls [`terminations`]: otherwise focus
/// would ignore a request to stop.
pub fn catch_terminations() {
    INSTALL_TERMINATIONS.call_once(|| {
        for signum in [SIGTERM, SIGHUP, SIGQUIT] {
            // SAFETY: the handler only touches atomics and calls _exit; the
            // function pointer is valid for the life of the process.
            unsafe {
                signal(signum, on_termination);
            }
        }
    });
}

/// How many termination signals arrived since [`catch_terminations`].
pub fn terminations() -> usize {
    TERMINATIONS.load(Ordering::SeqCst)
}

/// The number of the last termination signal caught, if any.
pub fn last_termination() -> Option<i32> {
    match LAST_TERMINATION.load(Ordering::SeqCst) {
        0 => None,
        signum => Some(signum),
    }
}

/// Stops this process, as Ctrl+Z does in a terminal that is not in raw mode;
/// returns when it runs again (the shell's `fg`). Where job control is off the
/// signal is ignored and this returns at once.
pub fn stop_self() {
    // SAFETY: raise only sends a signal to the calling thread; SIGTSTP's
    // default action stops the whole process, and no handler of ours is
    // involved.
    unsafe {
        raise(SIGTSTP);
    }
}

/// Sends `signum` to this thread (for tests of the handlers above).
#[cfg(test)]
fn raise_signal(signum: i32) {
    // SAFETY: raise takes an integer; the handlers it may run are ours.
    unsafe {
        raise(signum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_termination_signal_is_recorded_not_fatal() {
        catch_terminations();
        let before = terminations();
        raise_signal(SIGHUP);
        // raise() returns after the handler ran on this thread.
        assert_eq!(terminations(), before + 1);
        assert_eq!(last_termination(), Some(SIGHUP));
    }
}
