//! The terminal the kit draws on: whether a descriptor is one, and its size,
//! through focus-sys (the only crate that calls the C library).

/// Standard input's descriptor.
pub const STDIN: i32 = 0;
/// Standard output's descriptor.
pub const STDOUT: i32 = 1;
/// Standard error's descriptor.
pub const STDERR: i32 = 2;

/// Whether `fd` is a terminal.
pub fn is_tty(fd: i32) -> bool {
    focus_sys::terminal::is_tty(fd)
}

/// The size of the terminal on `fd` as (columns, rows), if it is one.
pub fn window_size(fd: i32) -> Option<(u16, u16)> {
    focus_sys::terminal::window_size(fd)
}

/// The width of the terminal on stdout, or stderr (80 when unknown).
pub fn width() -> usize {
    window_size(STDOUT)
        .or_else(|| window_size(STDERR))
        .map_or(80, |(cols, _)| cols as usize)
}

/// While alive, the terminal on a descriptor is in raw mode (keys arrive one by
/// one, unechoed); dropping it, also while a panic unwinds, puts back the
/// attributes it found. It holds them itself: no process-wide state.
pub struct RawMode {
    fd: i32,
    original: focus_sys::terminal::Termios,
}

impl RawMode {
    /// Puts the terminal on `fd` (normally [`STDIN`]) in raw mode.
    ///
    /// # Errors
    ///
    /// When `fd` is not a terminal or its attributes cannot be read or set.
    pub fn enter(fd: i32) -> std::io::Result<RawMode> {
        let original = focus_sys::terminal::get_attributes(fd)?;
        focus_sys::terminal::set_attributes(fd, &focus_sys::terminal::make_raw(&original))?;
        Ok(RawMode { fd, original })
    }

    /// The descriptor in raw mode.
    pub fn fd(&self) -> i32 {
        self.fd
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = focus_sys::terminal::set_attributes(self.fd, &self.original);
    }
}
