//! The Model Context Protocol client (under construction).
