//! Open flags std does not name, per target (for
//! `std::os::unix::fs::OpenOptionsExt::custom_flags`; no call is made here).

/// `O_NONBLOCK`: opening a FIFO does not wait for a writer, and a read that
/// would wait fails with `WouldBlock`. The same value on every architecture of
/// Linux's generic ABI (focus-sys refuses MIPS and SPARC, where it differs).
#[cfg(target_os = "linux")]
pub const O_NONBLOCK: i32 = 0o4000;
/// `O_NONBLOCK`: opening a FIFO does not wait for a writer, and a read that
/// would wait fails with `WouldBlock` (macOS and the BSDs share the value).
#[cfg(not(target_os = "linux"))]
pub const O_NONBLOCK: i32 = 0x4;
