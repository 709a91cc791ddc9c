//! focus-harness (under construction).
