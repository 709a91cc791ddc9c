//! End-to-end tests of the `focus` binary: one integration test binary with one
//! module per area, so linking happens once.

mod choice;
mod crash;
mod export;
mod flags;
mod hooks;
mod hostile;
mod interactive;
mod interactive_pickers;
mod interactive_tree;
mod keys;
mod modes;
mod robustness;
mod rpc;
mod sandbox;
mod signals;
mod support;
