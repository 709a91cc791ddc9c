//! The `focus` binary.
fn main() {}
