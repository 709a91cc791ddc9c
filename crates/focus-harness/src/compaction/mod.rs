//! Compaction (under construction).
