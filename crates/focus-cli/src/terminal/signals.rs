//! Ctrl+C in print and JSON modes: the first one aborts the run (so the session
//! stays well-formed: the partial answer is kept and every tool call gets its
//! result), a second one exits at once. One `signal(2)` call, through libc.
//! And Ctrl+Z in interactive mode, where raw mode delivers it as a key: focus
//! stops itself with `raise(3)`.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

const SIGINT: c_int = 2;
/// Linux's number for the terminal stop signal (x86, ARM and the generic ABI).
const SIGTSTP: c_int = 20;

/// How many times Ctrl+C was pressed.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);
static INSTALL: Once = Once::new();

extern "C" {
    fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
    fn _exit(status: c_int) -> !;
    fn raise(signum: c_int) -> c_int;
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

/// Stops this process, as Ctrl+Z does in a terminal that is not in raw mode;
/// returns when it runs again (the shell's `fg`). Where job control is off the
/// signal is ignored and this returns at once.
pub fn stop_self() {
    // SAFETY: raise only sends a signal to the calling thread; SIGTSTP's default
    // action stops the whole process, and no handler of ours is involved.
    unsafe {
        raise(SIGTSTP);
    }
}
