//! Killing a whole process group: a timeout or an abort sends SIGKILL to the
//! shell *and* everything it started.
//!
//! The shell is started as the leader of a new process group (std's
//! `CommandExt::process_group(0)`), everything it starts inherits the group,
//! and [`kill_group`] signals the group at once. The call into the C library
//! lives in focus-sys (`focus_sys::process`), the only crate with `unsafe`.

pub use focus_sys::process::kill_group;
