//! [`Limits`]: how much of a head a server may send (its own file, so the
//! files reading a response need nothing of `std_http.rs`).

/// The caps on what a server may send before it is refused: each bounds the
/// memory a hostile server can make focus use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest line of the head (status line, one header, one trailer).
    pub max_header_line: usize,
    /// The most header lines (and, separately, trailer lines).
    pub max_headers: usize,
    /// The largest head as a whole.
    pub max_head_bytes: usize,
    /// The longest chunk-size line, extensions included.
    pub max_chunk_line: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_header_line: 64 * 1024,
            max_headers: 256,
            max_head_bytes: 256 * 1024,
            max_chunk_line: 4 * 1024,
        }
    }
}
