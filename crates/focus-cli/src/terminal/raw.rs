//! [`RawMode`]: a guard that puts the terminal in raw mode and always puts it back,
//! when dropped and also when the process panics (a broken terminal after a crash
//! is the worst first impression a terminal program can make).

use super::ffi::{self, Termios};
use focus_core::sync::lock;
use std::io;
use std::sync::{Mutex, Once};

/// The attributes to restore, shared with the panic hook.
static SAVED: Mutex<Option<(i32, Termios)>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// While alive, the terminal on `fd` is in raw mode.
pub struct RawMode {
    fd: i32,
}

impl RawMode {
    /// Enters raw mode on `fd` (normally stdin).
    pub fn enter(fd: i32) -> io::Result<RawMode> {
        let original = ffi::get_attributes(fd)?;
        ffi::set_attributes(fd, &ffi::make_raw(&original))?;
        *lock(&SAVED) = Some((fd, original));
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore();
                previous(info);
            }));
        });
        Ok(RawMode { fd })
    }

    /// The descriptor in raw mode.
    pub fn fd(&self) -> i32 {
        self.fd
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts back the saved attributes, if any (idempotent).
pub fn restore() {
    let saved = lock(&SAVED).take();
    if let Some((fd, original)) = saved {
        let _ = ffi::set_attributes(fd, &original);
    }
}

/// Runs `f` with the terminal back in the mode it had before [`RawMode::enter`],
/// then puts it in raw mode again: Ctrl+Z stops focus in between, and the shell
/// (and whatever runs in it meanwhile) must find the terminal as it left it.
/// Without a saved mode (not in raw mode) it just runs `f`.
pub fn with_original_mode<T>(f: impl FnOnce() -> T) -> T {
    let saved = *lock(&SAVED);
    if let Some((fd, original)) = saved {
        let _ = ffi::set_attributes(fd, &original);
    }
    let result = f();
    if let Some((fd, original)) = saved {
        let _ = ffi::set_attributes(fd, &ffi::make_raw(&original));
    }
    result
}
