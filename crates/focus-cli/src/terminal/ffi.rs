//! The few terminal calls std does not wrap (`isatty`, raw mode, window size),
//! from focus-sys, the only crate with `unsafe`, where each target's `termios`
//! layout is written out.

pub use focus_sys::terminal::{
    get_attributes, is_tty, make_raw, set_attributes, window_size, Termios,
};
