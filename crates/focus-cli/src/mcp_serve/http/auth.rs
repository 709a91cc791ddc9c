//! Who may talk to the HTTP server: a client that shows the bearer token
//! (`Authorization: Bearer …`, compared in constant time) and, when it sends
//! an `Origin` (a browser does), comes from a loopback origin: MCP's defence
//! against DNS rebinding. The token is the file's first line
//! (`--token-file`), else `FOCUS_MCP_AUTH_TOKEN`, else 32 random bytes made
//! for this run.

use std::io::Read;
use std::path::Path;

/// The environment variable the token may come from (its name ends like a
/// credential's, so focus keeps it from every tool's environment).
pub const TOKEN_VARIABLE: &str = "FOCUS_MCP_AUTH_TOKEN";

/// Where the token came from.
#[derive(Debug, PartialEq, Eq)]
pub enum TokenSource {
    /// `--token-file`.
    File,
    /// [`TOKEN_VARIABLE`].
    Environment,
    /// Made for this run (to be shown to the user once).
    Generated,
}

/// The bearer token, and where it came from.
pub fn token(file: Option<&Path>) -> Result<(String, TokenSource), String> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--token-file {}: {e}", path.display()))?;
        let token = text.lines().next().unwrap_or("").trim().to_string();
        return checked(token, &format!("--token-file {}", path.display()))
            .map(|t| (t, TokenSource::File));
    }
    if let Some(token) = focus_sys::secrets::var(TOKEN_VARIABLE) {
        return checked(token.trim().to_string(), TOKEN_VARIABLE)
            .map(|t| (t, TokenSource::Environment));
    }
    Ok((random_hex(32)?, TokenSource::Generated))
}

/// A token long enough to resist guessing, in characters a header carries.
fn checked(token: String, from: &str) -> Result<String, String> {
    if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "the token from {from} must be at least 16 visible ASCII characters"
        ));
    }
    Ok(token)
}

/// `bytes` random bytes from the kernel, as hex.
pub fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buffer = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buffer))
        .map_err(|e| format!("cannot read /dev/urandom for a token: {e}"))?;
    Ok(buffer.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether the `Authorization` header shows `token`.
pub fn authorized(header: Option<&str>, token: &str) -> bool {
    let Some(value) = header else {
        return false;
    };
    let Some((scheme, shown)) = value.trim().split_once(' ') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer") && same(shown.trim().as_bytes(), token.as_bytes())
}

/// Compares without stopping at the first difference (the time taken says
/// nothing of how much of a guess was right).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether an `Origin` header is acceptable: absent (not a browser), or a
/// loopback origin (`http://127.0.0.1:…`, `http://localhost:…`, `http://[::1]:…`).
pub fn origin_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let Some(rest) = rest else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split([':', '/']).next().unwrap_or("")
    };
    matches!(host, "127.0.0.1" | "localhost" | "::1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_opens_the_door() {
        let token = "0123456789abcdef0123";
        assert!(authorized(Some("Bearer 0123456789abcdef0123"), token));
        assert!(authorized(Some("bearer  0123456789abcdef0123 "), token));
        for wrong in [
            None,
            Some(""),
            Some("Bearer"),
            Some("Bearer 0123456789abcdef012"),
            Some("Bearer 0123456789abcdef0124"),
            Some("Basic 0123456789abcdef0123"),
        ] {
            assert!(!authorized(wrong, token), "{wrong:?}");
        }
        assert_eq!(random_hex(32).unwrap().len(), 64);
        assert_ne!(random_hex(16).unwrap(), random_hex(16).unwrap());
        assert!(checked("short".into(), "x").is_err());
    }

    #[test]
    fn browsers_from_elsewhere_are_refused() {
        for ok in [
            None,
            Some("http://127.0.0.1:6274"),
            Some("http://localhost"),
            Some("http://[::1]:3000"),
        ] {
            assert!(origin_allowed(ok), "{ok:?}");
        }
        for bad in [
            Some("http://evil.example"),
            Some("http://127.0.0.1.evil.example"),
            Some("null"),
            Some("file://"),
        ] {
            assert!(!origin_allowed(bad), "{bad:?}");
        }
    }
}
