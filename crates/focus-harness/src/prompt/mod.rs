//! System prompt (under construction).
