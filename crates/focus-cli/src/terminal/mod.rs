//! The terminal: whether we are on one, raw mode for the line editor, the window
//! size, and colors that respect `NO_COLOR` and pipes, themed ([`theme`]).
//! The kit parts (width, style, theme, reveal) are focus-tui's, re-exported here.

pub mod ffi;
pub mod raw;
pub mod signals;
pub use focus_tui::{reveal, style, theme, width};

/// Standard input's descriptor.
pub const STDIN: i32 = 0;
/// Standard output's descriptor.
pub const STDOUT: i32 = 1;
/// Standard error's descriptor.
pub const STDERR: i32 = 2;

/// Whether `fd` is a terminal.
pub fn is_tty(fd: i32) -> bool {
    ffi::is_tty(fd)
}

/// The width of the terminal on stdout (80 when unknown).
pub fn width() -> usize {
    ffi::window_size(STDOUT)
        .or_else(|| ffi::window_size(STDERR))
        .map_or(80, |(cols, _)| cols as usize)
}
