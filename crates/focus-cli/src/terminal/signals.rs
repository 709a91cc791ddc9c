//! Ctrl+C in print and JSON modes: the first one aborts the run (so the session
//! stays well-formed: the partial answer is kept and every tool call gets its
//! result), a second one exits at once. One `signal(2)` call, through libc.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

const SIGINT: c_int = 2;

/// How many times Ctrl+C was pressed.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();

extern "C" {
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
    fn _exit(status: c_int) -> !;
}

/// The handler does only async-signal-safe things: an atomic add, and `_exit` on
/// the second press.
extern "C" fn on_sigint(_: c_int) {
    if INTERRUPTS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: _exit is async-signal-safe and ends the process immediately.
        unsafe { _exit(130) }
    }
}

/// Catches SIGINT from now on (idempotent).
pub fn catch_interrupts() {
    INSTALL.call_once(|| {
        // SAFETY: installs a handler that only touches an atomic and calls _exit;
        // the function pointer is valid for the life of the process.
        unsafe {
            signal(SIGINT, on_sigint);
        }
    });
}

/// How many times Ctrl+C was pressed since the process started.
pub fn interrupts() -> usize {
    INTERRUPTS.load(Ordering::SeqCst)
}
