//! The agent loop (under construction).
