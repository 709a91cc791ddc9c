//! Opening a connection: resolve the host (IPv4 and IPv6 addresses, in the
//! resolver's order), try each address within the connect limit, and give up at
//! once on cancel.
//!
//! std's `to_socket_addrs` and `connect_timeout` block and cannot be
//! interrupted, so they run on a short-lived helper thread while the caller waits
//! for either its result or the cancel. A cancelled attempt's thread ends by
//! itself when its connect returns (within the limit); the socket it may still
//! open is dropped, unused.

use super::target::Target;
use crate::error::TransportError;
use focus_core::cancel::CancelToken;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A connected stream to `target`, or why there is none.
///
/// # Errors
///
/// [`TransportError::Dns`] when the host does not resolve, [`TransportError::Connect`] when no
/// address accepts (refused, unreachable), [`TransportError::Timeout`] when none answers in time,
/// and `Cancelled` when `cancel` fires first.
pub fn connect(
    target: &Target,
    limit: Duration,
    cancel: &CancelToken,
) -> Result<TcpStream, TransportError> {
    let (sender, receiver) = mpsc::sync_channel::<Result<TcpStream, TransportError>>(2);
    let on_cancel = sender.clone();
    let _registration = cancel.on_cancel(move || {
        let _ = on_cancel.try_send(Err(TransportError::Cancelled));
    });
    let host = target.host.clone();
    let port = target.port;
    let label = target.label();
    let spawned = std::thread::Builder::new()
        .name("focus-http-connect".into())
        .spawn(move || {
            let _ = sender.send(resolve_and_connect(&host, port, &label, limit));
        });
    if let Err(e) = spawned {
        return Err(TransportError::Other(format!(
            "cannot start a thread to connect: {e}"
        )));
    }
    // The helper always answers within `limit` plus resolving; the margin is for
    // a resolver that itself hangs.
    match receiver.recv_timeout(limit + Duration::from_secs(5)) {
        Ok(result) => result,
        Err(_) => Err(TransportError::Timeout(format!(
            "could not resolve or connect to {} within {:.1} s",
            target.label(),
            limit.as_secs_f64()
        ))),
    }
}

fn resolve_and_connect(
    host: &str,
    port: u16,
    label: &str,
    limit: Duration,
) -> Result<TcpStream, TransportError> {
    let deadline = Instant::now() + limit;
    let addresses: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| TransportError::Dns(format!("{host}: {e}")))?
        .collect();
    if addresses.is_empty() {
        return Err(TransportError::Dns(format!("{host} has no address")));
    }
    let mut last = None;
    for address in &addresses {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match TcpStream::connect_timeout(address, left) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            TransportError::Timeout(format!(
                "could not connect to {label} within {:.1} s",
                limit.as_secs_f64()
            ))
        }
        Some(e) => TransportError::Connect(format!("{label}: {e}")),
        None => TransportError::Timeout(format!(
            "could not connect to {label} within {:.1} s",
            limit.as_secs_f64()
        )),
    })
}
