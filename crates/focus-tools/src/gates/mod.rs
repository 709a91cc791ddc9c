//! Permission modes, the read-only shell judge and user hooks (under construction).
