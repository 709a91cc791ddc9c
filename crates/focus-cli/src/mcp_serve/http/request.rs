//! One HTTP/1.1 request read from a client, within bounds: a head of at most
//! [`MAX_HEAD`] bytes and [`MAX_HEADERS`] lines, and a body of at most
//! [`MAX_MESSAGE`](crate::mcp_serve::protocol::MAX_MESSAGE) bytes announced by
//! `Content-Length`. A longer body is read past in small pieces and never
//! held (the answer is 413); a body without a length is refused (411).

use std::io::{self, BufRead, Read};

/// The longest request head.
pub const MAX_HEAD: usize = 64 * 1024;

/// The most header lines.
pub const MAX_HEADERS: usize = 100;

/// A request's head and body.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, `DELETE`…
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// What the body was.
    pub body: Body,
}

/// A request's body.
#[derive(Debug)]
pub enum Body {
    /// Whole, within the limit.
    Bytes(Vec<u8>),
    /// Over the limit: read past; its length.
    TooLong(u64),
    /// Sent without `Content-Length` (chunked, say): not read; the
    /// connection cannot go on.
    NoLength,
}

impl Request {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the client wants the connection closed after the answer.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.to_ascii_lowercase().contains("close"))
    }
}

/// Why no request could be read.
#[derive(Debug)]
pub enum ReadError {
    /// The client closed the connection between requests.
    Closed,
    /// The head broke a rule; what to answer (400 or 431).
    Malformed(u16, String),
    /// The socket failed (a timeout, a reset).
    Io(io::Error),
}

/// Reads the next request from `input`, its body at most `max_body` bytes.
pub fn read(input: &mut impl BufRead, max_body: usize) -> Result<Request, ReadError> {
    let mut head_bytes = 0;
    let mut line = |first: bool| -> Result<Option<String>, ReadError> {
        let mut raw = Vec::new();
        let limit = (MAX_HEAD - head_bytes) as u64 + 1;
        let n = input
            .by_ref()
            .take(limit)
            .read_until(b'\n', &mut raw)
            .map_err(ReadError::Io)?;
        if n == 0 {
            return if first && head_bytes == 0 {
                Err(ReadError::Closed)
            } else {
                Err(ReadError::Malformed(
                    400,
                    "the request head ended early".into(),
                ))
            };
        }
        head_bytes += n;
        if head_bytes > MAX_HEAD || raw.last() != Some(&b'\n') {
            return Err(ReadError::Malformed(
                431,
                "the request head is too long".into(),
            ));
        }
        let text = String::from_utf8(raw)
            .map_err(|_| ReadError::Malformed(400, "the request head is not UTF-8".into()))?;
        let text = text.trim_end_matches(['\r', '\n']).to_string();
        Ok(if text.is_empty() { None } else { Some(text) })
    };
    // Tolerate empty lines before a request (RFC 9112, 2.2).
    let mut request_line = None;
    for _ in 0..4 {
        if let Some(found) = line(request_line.is_none())? {
            request_line = Some(found);
            break;
        }
    }
    let request_line =
        request_line.ok_or_else(|| ReadError::Malformed(400, "no request line".into()))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Malformed(400, "a malformed request line".into()));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Malformed(
            400,
            "only HTTP/1.x is spoken here".into(),
        ));
    }
    let mut headers = Vec::new();
    while let Some(text) = line(false)? {
        if headers.len() == MAX_HEADERS {
            return Err(ReadError::Malformed(431, "too many header lines".into()));
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(ReadError::Malformed(
                400,
                "a header line without a colon".into(),
            ));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        path: target.split('?').next().unwrap_or("").to_string(),
        headers,
        body: Body::Bytes(Vec::new()),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| !v.eq_ignore_ascii_case("identity"));
    let length = match request.header("content-length") {
        Some(text) => Some(
            text.parse::<u64>()
                .map_err(|_| ReadError::Malformed(400, "Content-Length is not a number".into()))?,
        ),
        None => None,
    };
    request.body = match (chunked, length) {
        (true, _) => Body::NoLength,
        (false, None) => Body::Bytes(Vec::new()),
        (false, Some(n)) if n > max_body as u64 => {
            // Read past it, a piece at a time, so the answer reaches a client
            // that is still sending.
            let skipped =
                io::copy(&mut input.by_ref().take(n), &mut io::sink()).map_err(ReadError::Io)?;
            Body::TooLong(skipped)
        }
        (false, Some(n)) => {
            let mut body = Vec::with_capacity(n as usize);
            input
                .by_ref()
                .take(n)
                .read_to_end(&mut body)
                .map_err(ReadError::Io)?;
            if (body.len() as u64) < n {
                return Err(ReadError::Malformed(400, "the body ended early".into()));
            }
            Body::Bytes(body)
        }
    };
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &[u8], max: usize) -> Result<Request, ReadError> {
        read(&mut io::BufReader::new(text), max)
    }

    #[test]
    fn a_post_with_its_body_and_the_next_one() {
        let two = b"POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nAuthorization: Bearer t\r\n\r\n{}GET / HTTP/1.1\r\n\r\n";
        let mut input = io::BufReader::new(&two[..]);
        let first = read(&mut input, 100).unwrap();
        assert_eq!(
            (first.method.as_str(), first.path.as_str()),
            ("POST", "/mcp")
        );
        assert_eq!(first.header("authorization"), Some("Bearer t"));
        assert!(matches!(first.body, Body::Bytes(ref b) if b == b"{}"));
        let second = read(&mut input, 100).unwrap();
        assert_eq!(second.method, "GET");
        assert!(matches!(read(&mut input, 100), Err(ReadError::Closed)));
    }

    #[test]
    fn oversized_and_malformed_requests_are_named() {
        let mut big = b"POST /mcp HTTP/1.1\r\nContent-Length: 5000\r\n\r\n".to_vec();
        big.extend(std::iter::repeat(b'x').take(5000));
        assert!(matches!(
            parse(&big, 100).unwrap().body,
            Body::TooLong(5000)
        ));
        let chunked = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(matches!(parse(chunked, 100).unwrap().body, Body::NoLength));
        for bad in [
            &b"NONSENSE\r\n\r\n"[..],
            b"POST /mcp HTTP/2\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nno colon\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nContent-Length: 9\r\n\r\n{}",
        ] {
            assert!(
                matches!(parse(bad, 100), Err(ReadError::Malformed(400, _))),
                "{bad:?}"
            );
        }
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.extend(std::iter::repeat(b'y').take(MAX_HEAD));
        assert!(matches!(
            parse(&long, 100),
            Err(ReadError::Malformed(431, _))
        ));
    }
}
