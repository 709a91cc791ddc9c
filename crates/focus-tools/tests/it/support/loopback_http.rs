//! A plain-HTTP [`Transport`] over a std `TcpStream`, for the MCP tests that talk
//! to a real server on loopback (focus-tools does no HTTP itself; the front end
//! passes it a transport). One request per connection (`Connection: close`);
//! bodies by `Content-Length`, `chunked` or until the server closes; a cancel
//! shuts the socket down, which ends a read in progress.

use focus_core::cancel::{CancelRegistration, CancelToken};
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// The transport.
pub struct LoopbackHttp;

/// `http://host:port/path?query` → (`host:port`, `/path?query`).
fn split_url(url: &str) -> Result<(String, String), TransportError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| TransportError::Other(format!("not an http:// URL: {url}")))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    Ok((host.to_string(), path.to_string()))
}

impl Transport for LoopbackHttp {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        let (host, path) = split_url(&request.url)?;
        let stream = TcpStream::connect(&host)
            .map_err(|e| TransportError::Connect(format!("{host}: {e}")))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| TransportError::Other(e.to_string()))?;
        let watcher = stream
            .try_clone()
            .map_err(|e| TransportError::Other(e.to_string()))?;
        let registration = cancel.on_cancel(move || {
            let _ = watcher.shutdown(Shutdown::Both);
        });
        let mut head = format!(
            "{} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n",
            request.method,
            request.body.len()
        );
        for (name, value) in &request.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut writer = &stream;
        writer
            .write_all(head.as_bytes())
            .and_then(|_| writer.write_all(&request.body))
            .map_err(|e| TransportError::Other(format!("writing the request: {e}")))?;
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        reader
            .read_line(&mut status_line)
            .map_err(|e| TransportError::Other(format!("reading the status: {e}")))?;
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| TransportError::Other(format!("bad status line {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader
                .read_line(&mut line)
                .map_err(|e| TransportError::Other(format!("reading headers: {e}")))?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let body: Box<dyn Read + Send> = if find("Transfer-Encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            Box::new(Chunked {
                inner: reader,
                left: 0,
                done: false,
            })
        } else if let Some(length) = find("Content-Length").and_then(|v| v.parse::<u64>().ok()) {
            Box::new(reader.take(length))
        } else {
            Box::new(reader)
        };
        Ok(HttpResponse {
            status,
            headers,
            body: Box::new(Body {
                inner: body,
                _registration: registration,
            }),
        })
    }
}

/// The body, keeping the cancel registration alive while it is read.
struct Body {
    inner: Box<dyn Read + Send>,
    _registration: CancelRegistration,
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

/// A `chunked` body decoded (extensions and trailers skipped).
struct Chunked {
    inner: BufReader<TcpStream>,
    left: usize,
    done: bool,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut line = String::new();
            self.inner.read_line(&mut line)?;
            let size = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size, 16).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, "bad chunk size")
            })?;
            if size == 0 {
                self.done = true;
                return Ok(0);
            }
            self.left = size;
        }
        let want = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.left -= n;
        if self.left == 0 {
            let mut crlf = String::new();
            self.inner.read_line(&mut crlf)?;
        }
        Ok(n)
    }
}
