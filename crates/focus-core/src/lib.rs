//! focus-core: the pure heart of focus.
//!
//! Everything here is logic without input or output: no network, no files, no
//! processes. Reading order: [`json`] (the codec every other crate speaks),
//! [`message`] (what a conversation is made of), [`cancel`] (how work is stopped),
//! [`provider`] (how a model is called, as a stream of events), [`tool`] (what the
//! model can call), [`event`] (what the agent reports; [`event_lines`] prints it as pi's JSON lines), [`agent`] (the loop); [`overflow`]
//! tells a context-overflow failure from others; [`scan`] is a
//! byte-search helper the parser and the session reader share, [`shared_text`] the
//! string type that lets copies of a message share its texts, [`sync`] the locks that
//! survive a panic, [`char_boundary`] cuts text by bytes without splitting a
//! character, and [`civil_date`] turns dates into day counts and back.

#![forbid(unsafe_code)]

pub mod agent;
pub mod cancel;
pub mod char_boundary;
pub mod civil_date;
pub mod event;
pub mod event_deltas;
pub mod event_lines;
pub mod json;
pub mod message;
pub mod overflow;
pub mod provider;
pub mod scan;
pub mod shared_text;
pub mod sync;
pub mod tool;
