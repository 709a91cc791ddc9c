//! focus-providers (under construction).
