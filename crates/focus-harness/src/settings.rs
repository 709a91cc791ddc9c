//! Settings (under construction).
