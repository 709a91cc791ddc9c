//! Time limits on a loaded machine. A test that checks a limit *works* on a
//! stalled body needs the head to arrive inside the limit first; a small limit
//! cannot promise that when the machine is busy (a curl start or a server
//! thread can wait longer than the limit for a core). So the limit starts
//! small and doubles each time it ends the wait for the head — with a timeout,
//! never another error — until the head gets through.

use focus_transport::{HttpResponse, TransportError};
use std::time::Duration;

/// The first limit tried.
const FIRST_LIMIT: Duration = Duration::from_millis(400);
/// No limit beyond this one: a head that 25 s cannot bring is a failure.
const LAST_LIMIT: Duration = Duration::from_millis(25_600);

/// Calls `send` with a total limit of 400 ms, 800 ms, … up to 25.6 s until it
/// answers with a head, and returns that response. Every limit that ended the
/// wait for the head must have ended it with [`TransportError::Timeout`].
pub fn head_within_a_limit(
    what: &str,
    mut send: impl FnMut(Duration) -> Result<HttpResponse, TransportError>,
) -> HttpResponse {
    let mut limit = FIRST_LIMIT;
    loop {
        match send(limit) {
            Ok(response) => return response,
            Err(TransportError::Timeout(_)) if limit < LAST_LIMIT => limit *= 2,
            Err(error) => panic!("{what}: no head within {limit:?}: {error:?}"),
        }
    }
}
