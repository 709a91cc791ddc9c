//! [`Pool`]: connections kept open after an answer that allowed it, for the next
//! request to the same server (HTTP/1.1 persistent connections, RFC 9112 §9.3).
//!
//! A connection enters the pool only when its last body was read to the end,
//! the answer did not say `Connection: close`, and nothing unasked-for followed
//! it. Before reuse it is checked without waiting: one the server closed in the
//! meantime (or that has bytes nobody asked for) is dropped. Idle connections
//! older than [`IDLE_FOR`] are dropped too: servers close theirs after a few
//! seconds, and a write into a connection closed under it fails late.

use super::connection::Connection;
use focus_core::sync::lock;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an idle connection is kept.
pub const IDLE_FOR: Duration = Duration::from_secs(30);

/// How many idle connections are kept per server.
pub const MAX_IDLE_PER_SERVER: usize = 4;

/// Idle connections, newest last.
#[derive(Default)]
pub struct Pool {
    idle: Mutex<Vec<(Instant, Connection)>>,
}

impl Pool {
    /// An empty pool.
    pub fn new() -> Pool {
        Pool::default()
    }

    /// A live idle connection to `label` (`host:port`), if there is one.
    pub fn take(&self, label: &str) -> Option<Connection> {
        let mut idle = lock(&self.idle);
        idle.retain(|(since, _)| since.elapsed() < IDLE_FOR);
        while let Some(position) = idle.iter().rposition(|(_, c)| c.label == label) {
            let (_, connection) = idle.remove(position);
            if connection.is_reusable() {
                return Some(connection);
            }
        }
        None
    }

    /// Keeps `connection` for the next request to its server.
    pub fn put(&self, connection: Connection) {
        let mut idle = lock(&self.idle);
        let same = idle
            .iter()
            .filter(|(_, c)| c.label == connection.label)
            .count();
        if same >= MAX_IDLE_PER_SERVER {
            if let Some(oldest) = idle.iter().position(|(_, c)| c.label == connection.label) {
                idle.remove(oldest);
            }
        }
        idle.push((Instant::now(), connection));
    }

    /// How many idle connections the pool holds.
    pub fn idle_count(&self) -> usize {
        lock(&self.idle).len()
    }
}
