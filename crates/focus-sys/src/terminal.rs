//! The terminal calls std does not wrap: `isatty`, `tcgetattr`/`tcsetattr`
//! (raw mode for the line editor) and `ioctl(TIOCGWINSZ)` (the window size).
//!
//! `struct termios` is not the same everywhere, and writing a Linux layout
//! through a pointer on macOS would let `tcgetattr` write past the struct. So
//! each target family gets its own layout and flag values, read from its
//! headers (glibc's and musl's `bits/termios.h`, macOS's `sys/termios.h`, the
//! BSDs' `sys/_termios.h`):
//!
//! | target | flag word | control chars | speeds | flag values |
//! |--------|-----------|---------------|--------|-------------|
//! | Linux (generic ABI) | `unsigned int` | `c_line` + 32 | `unsigned int` | octal, System V |
//! | macOS | `unsigned long` | 20 | `unsigned long` | BSD |
//! | FreeBSD, NetBSD, DragonFly, OpenBSD | `unsigned int` | 20 | `unsigned int` / `int` | BSD |

use std::io;
use std::os::raw::{c_int, c_ulong, c_ushort};

#[cfg(target_os = "linux")]
mod target {
    use std::os::raw::{c_int, c_uint, c_ulong};

    /// `tcflag_t`.
    pub type Flag = c_uint;
    /// `speed_t`.
    pub type Speed = c_uint;
    /// `NCCS`: how many control characters `struct termios` holds.
    pub const NCCS: usize = 32;

    pub const BRKINT: Flag = 0o000002;
    pub const ICRNL: Flag = 0o000400;
    pub const INPCK: Flag = 0o000020;
    pub const ISTRIP: Flag = 0o000040;
    pub const IXON: Flag = 0o002000;
    pub const CS8: Flag = 0o000060;
    pub const ECHO: Flag = 0o000010;
    pub const ICANON: Flag = 0o000002;
    pub const IEXTEN: Flag = 0o100000;
    pub const ISIG: Flag = 0o000001;
    pub const VTIME: usize = 5;
    pub const VMIN: usize = 6;
    pub const TCSAFLUSH: c_int = 2;
    pub const TIOCGWINSZ: c_ulong = 0x5413;
}

#[cfg(not(target_os = "linux"))]
mod target {
    use std::os::raw::{c_int, c_ulong};

    /// `tcflag_t`: `unsigned long` on macOS, `unsigned int` on the BSDs.
    #[cfg(target_os = "macos")]
    pub type Flag = c_ulong;
    /// `tcflag_t`: `unsigned long` on macOS, `unsigned int` on the BSDs.
    #[cfg(not(target_os = "macos"))]
    pub type Flag = std::os::raw::c_uint;

    /// `speed_t` (`int` on OpenBSD, where it is declared as such in the struct).
    #[cfg(target_os = "macos")]
    pub type Speed = c_ulong;
    /// `speed_t` (`int` on OpenBSD, where it is declared as such in the struct).
    #[cfg(target_os = "openbsd")]
    pub type Speed = c_int;
    /// `speed_t` (`int` on OpenBSD, where it is declared as such in the struct).
    #[cfg(not(any(target_os = "macos", target_os = "openbsd")))]
    pub type Speed = std::os::raw::c_uint;

    /// `NCCS`: how many control characters `struct termios` holds.
    pub const NCCS: usize = 20;

    pub const BRKINT: Flag = 0x0000_0002;
    pub const ICRNL: Flag = 0x0000_0100;
    pub const INPCK: Flag = 0x0000_0010;
    pub const ISTRIP: Flag = 0x0000_0020;
    pub const IXON: Flag = 0x0000_0200;
    pub const CS8: Flag = 0x0000_0300;
    pub const ECHO: Flag = 0x0000_0008;
    pub const ICANON: Flag = 0x0000_0100;
    pub const IEXTEN: Flag = 0x0000_0400;
    pub const ISIG: Flag = 0x0000_0080;
    pub const VMIN: usize = 16;
    pub const VTIME: usize = 17;
    pub const TCSAFLUSH: c_int = 2;
    /// `_IOR('t', 104, struct winsize)`.
    pub const TIOCGWINSZ: c_ulong = 0x4008_7468;
}

use target::*;

/// `struct termios` in this target's layout: four flag words, the line
/// discipline (Linux only), `NCCS` control characters, and the two speeds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct RawTermios {
    c_iflag: Flag,
    c_oflag: Flag,
    c_cflag: Flag,
    c_lflag: Flag,
    #[cfg(target_os = "linux")]
    c_line: u8,
    c_cc: [u8; NCCS],
    c_ispeed: Speed,
    c_ospeed: Speed,
}

/// A terminal's attributes (`struct termios` in this target's layout), as read
/// by [`get_attributes`]; opaque, so no caller depends on a layout.
#[derive(Clone, Copy, Debug, Default)]
pub struct Termios(RawTermios);

/// `struct winsize`: rows, columns, and pixel sizes we ignore (the same on
/// every supported target).
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
    fn tcgetattr(fd: c_int, termios: *mut RawTermios) -> c_int;
    fn tcsetattr(fd: c_int, optional_actions: c_int, termios: *const RawTermios) -> c_int;
    fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
}

/// Whether `fd` is a terminal.
pub fn is_tty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number; any value is allowed.
    unsafe { isatty(fd) == 1 }
}

/// The current terminal attributes of `fd`.
///
/// # Errors
///
/// `fd` is no terminal (`ENOTTY`) or not open (`EBADF`).
pub fn get_attributes(fd: i32) -> io::Result<Termios> {
    let mut termios = RawTermios::default();
    // SAFETY: `termios` is a valid, writable `struct termios` in this target's
    // layout for the call's duration.
    let rc = unsafe { tcgetattr(fd, &mut termios) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Termios(termios))
}

/// `OPOST`, "post-process output": 1 in every supported target's headers.
const OPOST: u32 = 1;

/// Sets the terminal attributes of `fd` (after pending output is written).
///
/// # Errors
///
/// `fd` is no terminal or not open, or the system refuses the attributes.
pub fn set_attributes(fd: i32, termios: &Termios) -> io::Result<()> {
    // SAFETY: the pointer is to a valid `struct termios` that libc only reads.
    let rc = unsafe { tcsetattr(fd, TCSAFLUSH, &termios.0) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `cfmakeraw` by hand: no echo, no line buffering, no signal keys (Ctrl+C
/// arrives as a byte so the editor decides what it means); reads return as soon
/// as one byte is there. Output processing is off too (`OPOST`): bytes reach the
/// terminal as written, so what writes in raw mode ends its lines with `\r\n`
/// itself, and the kernel passes a write on in one piece instead of stopping
/// at every newline.
pub fn make_raw(original: &Termios) -> Termios {
    let mut raw = original.0;
    raw.c_oflag &= !(OPOST as Flag);
    raw.c_iflag &= !(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_cflag |= CS8;
    raw.c_lflag &= !(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    Termios(raw)
}

/// The window size of the terminal on `fd` as (columns, rows), if it is one.
pub fn window_size(fd: i32) -> Option<(u16, u16)> {
    let mut size = WinSize::default();
    // SAFETY: TIOCGWINSZ writes one `struct winsize` through the pointer, which
    // is valid and writable for the call's duration.
    let rc = unsafe { ioctl(fd, TIOCGWINSZ, &mut size as *mut WinSize) };
    if rc != 0 || size.ws_col == 0 {
        return None;
    }
    Some((size.ws_col, size.ws_row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_null_is_not_a_terminal() {
        use std::os::fd::AsRawFd;
        let null = std::fs::File::open("/dev/null").expect("/dev/null opens");
        let fd = null.as_raw_fd();
        assert!(!is_tty(fd));
        assert!(get_attributes(fd).is_err());
        assert_eq!(window_size(fd), None);
    }

    #[test]
    fn raw_mode_clears_echo_and_line_buffering() {
        let cooked = RawTermios {
            c_lflag: ECHO | ICANON | ISIG,
            c_iflag: ICRNL,
            c_oflag: OPOST as Flag,
            ..Default::default()
        };
        let raw = make_raw(&Termios(cooked)).0;
        assert_eq!(raw.c_lflag & (ECHO | ICANON | ISIG), 0);
        assert_eq!(raw.c_oflag & OPOST as Flag, 0);
        assert_eq!(raw.c_iflag & ICRNL, 0);
        assert_eq!(raw.c_cc[VMIN], 1);
        assert_eq!(raw.c_cflag & CS8, CS8);
    }

    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[test]
    fn the_linux_layout_is_glibcs_size() {
        // sizeof(struct termios) with glibc and musl on the generic ABI.
        assert_eq!(std::mem::size_of::<RawTermios>(), 60);
    }
}
