//! [`Target`]: where an `http://` URL points — host, port, and the request
//! target (path and query) that goes on the request line.

use crate::protocol_error::ProtocolError;

/// The parts of an `http://` URL the transport needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The host as it connects: a name, an IPv4 address, or an IPv6 address
    /// without its brackets.
    pub host: String,
    /// The port (80 when the URL gives none).
    pub port: u16,
    /// The `Host` header value: the authority as the URL spells it (brackets kept).
    pub authority: String,
    /// The request target: path and query, `/` when the URL has no path. The
    /// fragment is never sent.
    pub path: String,
}

impl Target {
    /// Reads `url`, which must be `http://host[:port][/path][?query]`. User info
    /// (`user:pw@`) is refused: the plain transport sends no credentials of its own.
    ///
    /// # Errors
    ///
    /// A [`ProtocolError`] for a URL that is not `http://`, has user info, an empty or malformed
    /// host, or a port that is no number.
    pub fn parse(url: &str) -> Result<Target, ProtocolError> {
        let bad = |why: &str| ProtocolError::BadUrl(why.to_string());
        let url = url.trim();
        let scheme_ok = url
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
        if !scheme_ok {
            return Err(bad("the plain HTTP transport serves only http:// URLs"));
        }
        if url.bytes().any(|b| b.is_ascii_control() || b == b' ') {
            return Err(bad("the URL contains a space or control character"));
        }
        let rest = &url[7..];
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.contains('@') {
            return Err(bad(
                "user info in the URL (user:password@) is not supported",
            ));
        }
        let (host, port_text) = split_host_port(authority)?;
        let port = match port_text {
            None | Some("") => 80,
            Some(digits) => digits
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0 && digits.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
        };
        let tail = tail.split('#').next().unwrap_or("");
        let path = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        Ok(Target {
            host,
            port,
            authority: authority.to_string(),
            path,
        })
    }

    /// `host:port` for messages (never the path or query, which may hold a key).
    pub fn label(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Splits `host[:port]` or `[v6][:port]`, checking the host's characters.
fn split_host_port(authority: &str) -> Result<(String, Option<&str>), ProtocolError> {
    let bad = |why: &str| ProtocolError::BadUrl(why.to_string());
    if let Some(inside) = authority.strip_prefix('[') {
        let (v6, after) = inside
            .split_once(']')
            .ok_or_else(|| bad("an IPv6 address misses its closing `]`"))?;
        v6.parse::<std::net::Ipv6Addr>()
            .map_err(|_| bad("the bracketed host is not an IPv6 address"))?;
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or_else(|| bad("text after the IPv6 address is not `:port`"))?,
            ),
        };
        return Ok((v6.to_string(), port));
    }
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if !host_ok {
        return Err(bad(
            "the host is empty or holds characters a host name cannot",
        ));
    }
    Ok((host.to_ascii_lowercase(), port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hosts_ports_and_paths() {
        let t = Target::parse("http://Example.COM:8080/v1/x?k=1#frag").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("example.com", 8080, "/v1/x?k=1")
        );
        assert_eq!(t.authority, "Example.COM:8080");
        let t = Target::parse("HTTP://[::1]:11434").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("::1", 11434, "/")
        );
        assert_eq!(t.label(), "[::1]:11434");
        let t = Target::parse("http://127.0.0.1?q").unwrap();
        assert_eq!((t.port, t.path.as_str()), (80, "/?q"));
    }

    #[test]
    fn refuses_what_it_cannot_serve() {
        for url in [
            "https://a/",
            "http://u:p@a/",
            "http://a:99999/",
            "http://a:0/",
            "http://a:+80/",
            "http://[::1/",
            "http://[nothost]/",
            "http://a b/",
            "http:///x",
            "http://a/\r\nX: y",
        ] {
            assert!(Target::parse(url).is_err(), "{url}");
        }
    }
}
