//! The ways focus talks to the world: [`print`](mod@print) (one prompt, answer on stdout),
//! [`json`] (every event as a JSON line), [`outcome`] (how those two end: exit
//! code, result record), [`output_diff`] (`--output-diff`), [`rpc`] (commands on stdin),
//! [`interactive`] (the terminal UI), [`resume`] (choosing a session) and
//! [`trust`] (asking whether a folder's settings may widen what runs).

pub mod interactive;
pub mod json;
pub mod outcome;
pub mod output_diff;
pub mod print;
pub mod resume;
pub mod rpc;
pub mod trust;
