//! focus-tui: a terminal kit that knows nothing of agents.
//!
//! The parts of an interactive terminal program that any std-only project can
//! reuse: how wide text is on screen ([`width`]) and how lines become rows that
//! fit a window ([`rows`], two aligned columns in [`columns`]), a differential
//! renderer that commits what is finished to the scrollback and redraws only a
//! live area below it ([`screen`]), colours that respect
//! `NO_COLOR` and pipes ([`style`], themed by [`theme`]), keys as terminals send
//! them ([`keys`]), what they do ([`keymap`]) and the user's own bindings
//! ([`keybindings`]), a multi-line editor with history ([`editor`]), Markdown
//! a line at a time ([`markdown`], tables in [`table`]), syntax highlighting for
//! fenced code ([`highlight`]), a list to choose from ([`picker`]) with fuzzy
//! matching ([`fuzzy`]), text from outside made printable ([`printable`]),
//! unmasking of hidden characters ([`reveal`]), links in plain text as OSC 8
//! hyperlinks ([`links`]), images inline ([`graphics`], their sizes read by
//! [`image_info`] from bytes [`base64`] decodes), and the terminal itself
//! ([`terminal`], through focus-sys, the only crate with `unsafe`). focus's interactive mode wires conversation
//! events to these; `cargo run -p focus-tui --example editor` and `--example
//! screen` use them alone.
//!
//! Dependencies: focus-sys (terminal calls) and focus-core's JSON codec (theme,
//! history and keybindings files); never focus-core's agent or event types (a tidy rule).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod base64;
pub mod columns;
pub mod editor;
pub mod fuzzy;
pub mod graphics;
pub mod highlight;
pub mod image_info;
pub mod keybindings;
pub mod keymap;
pub mod keys;
pub mod links;
pub mod markdown;
pub mod picker;
pub mod printable;
pub mod reveal;
pub mod rows;
pub mod screen;
pub mod style;
pub mod table;
pub mod terminal;
pub mod theme;
pub mod width;
