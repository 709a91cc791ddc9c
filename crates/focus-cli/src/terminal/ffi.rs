//! The few libc calls the terminal needs and std does not wrap: `isatty`,
//! `tcgetattr`/`tcsetattr` (raw mode) and `ioctl(TIOCGWINSZ)` (window size).
//!
//! Each `unsafe` block is one call into libc, which std already links; the safe
//! functions below are the only way the rest of focus reaches them. Layouts are
//! Linux's (glibc and musl agree on `struct termios` and `struct winsize`).

use std::io;
use std::os::raw::{c_int, c_uint, c_ulong, c_ushort};

/// `struct termios` on Linux: four flag words, the line discipline, 32 control
/// characters, and the two speeds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Termios {
    c_iflag: c_uint,
    c_oflag: c_uint,
    c_cflag: c_uint,
    c_lflag: c_uint,
    c_line: u8,
    c_cc: [u8; 32],
    c_ispeed: c_uint,
    c_ospeed: c_uint,
}

/// `struct winsize`: rows, columns, and pixel sizes we ignore.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct WinSize {
    ws_row: c_ushort,
    ws_col: c_ushort,
    ws_xpixel: c_ushort,
    ws_ypixel: c_ushort,
}

extern "C" {
    fn isatty(fd: c_int) -> c_int;
    fn tcgetattr(fd: c_int, termios: *mut Termios) -> c_int;
    fn tcsetattr(fd: c_int, optional_actions: c_int, termios: *const Termios) -> c_int;
    fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
}

// Flag bits from <termios.h> (Linux values).
const BRKINT: c_uint = 0o000002;
const ICRNL: c_uint = 0o000400;
const INPCK: c_uint = 0o000020;
const ISTRIP: c_uint = 0o000040;
const IXON: c_uint = 0o002000;
const CS8: c_uint = 0o000060;
const ECHO: c_uint = 0o000010;
const ICANON: c_uint = 0o000002;
const IEXTEN: c_uint = 0o100000;
const ISIG: c_uint = 0o000001;
const VTIME: usize = 5;
const VMIN: usize = 6;
const TCSAFLUSH: c_int = 2;
const TIOCGWINSZ: c_ulong = 0x5413;

/// Whether `fd` is a terminal.
pub fn is_tty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number; any value is allowed.
    unsafe { isatty(fd) == 1 }
}

/// The current terminal attributes of `fd`.
pub fn get_attributes(fd: i32) -> io::Result<Termios> {
    let mut termios = Termios::default();
    // SAFETY: `termios` is a valid, writable `struct termios` for the call's duration.
    let rc = unsafe { tcgetattr(fd, &mut termios) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(termios)
}

/// Sets the terminal attributes of `fd` (after pending output is written).
pub fn set_attributes(fd: i32, termios: &Termios) -> io::Result<()> {
    // SAFETY: `termios` points to a valid `struct termios` that libc only reads.
    let rc = unsafe { tcsetattr(fd, TCSAFLUSH, termios) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `cfmakeraw` by hand, minus one thing: no echo, no line buffering, no signal
/// keys (Ctrl+C arrives as a byte so the editor decides what it means); reads return
/// as soon as one byte is there. Output processing stays on, so `\n` still starts
/// a new line at column 0 and streamed text can be printed as is.
pub fn make_raw(original: &Termios) -> Termios {
    let mut raw = *original;
    raw.c_iflag &= !(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_cflag |= CS8;
    raw.c_lflag &= !(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    raw
}

/// The window size of the terminal on `fd` as (columns, rows), if it is one.
pub fn window_size(fd: i32) -> Option<(u16, u16)> {
    let mut size = WinSize::default();
    // SAFETY: TIOCGWINSZ writes one `struct winsize` through the pointer, which is
    // valid and writable for the call's duration.
    let rc = unsafe { ioctl(fd, TIOCGWINSZ, &mut size as *mut WinSize) };
    if rc != 0 || size.ws_col == 0 {
        return None;
    }
    Some((size.ws_col, size.ws_row))
}
