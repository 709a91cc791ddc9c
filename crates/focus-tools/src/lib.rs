//! focus-tools (under construction).
