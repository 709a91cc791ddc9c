//! The agent loop (under construction, issue 5).
