//! The few terminal calls std does not wrap (`isatty`, raw mode, window size),
//! from focus-sys, the only crate with `unsafe`, where each target's `termios`
//! layout is written out.

pub use focus_sys::terminal::{
    get_attributes, is_tty, make_raw, set_attributes, set_attributes_now, window_size,
    without_output_processing, Termios,
};
