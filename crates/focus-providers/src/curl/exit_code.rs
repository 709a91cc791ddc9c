//! From curl's exit code and stderr to a [`TransportError`] a user can act on.
//!
//! The codes are those listed under EXIT CODES in curl(1); curl's own words are
//! kept in the message (with secrets redacted) because they name the host, the
//! certificate problem, the proxy…

use focus_transport::TransportError;

/// The error for a curl run that ended with `code` and printed `stderr`.
pub(super) fn error_for_exit(code: i32, stderr: &str) -> TransportError {
    let detail = describe(code, stderr);
    match code {
        5 | 6 => TransportError::Dns(detail),
        7 | 97 => TransportError::Connect(detail),
        28 => TransportError::Timeout(detail),
        35 | 51 | 53 | 54 | 58 | 59 | 60 | 64 | 66 | 77 | 80 | 82 | 83 | 90 | 91 | 98 => {
            TransportError::Tls(detail)
        }
        // 52: empty reply; 18: body shorter than announced; 55/56: send/receive
        // failure; 16/92: HTTP/2 framing or stream error. All mean the connection
        // ended early, which a retry may fix.
        16 | 18 | 52 | 55 | 56 | 92 => TransportError::StreamCut(detail),
        _ => TransportError::Other(format!("HTTP request failed: {detail}")),
    }
}

/// The error for a curl process ended by a signal it was not sent by us.
pub(super) fn error_for_signal(signal: Option<i32>, stderr: &str) -> TransportError {
    let signal = signal.map_or("a signal".to_string(), |s| format!("signal {s}"));
    TransportError::Other(format!(
        "curl was killed by {signal}{}",
        stderr_suffix(stderr)
    ))
}

/// curl's message plus the exit code (and what it means, when curl said nothing).
fn describe(code: i32, stderr: &str) -> String {
    let said = last_lines(stderr);
    let hint = match code {
        // curl before 8.6 has no "too large" code and says "out of memory" when a
        // server sends a header over its 100 KiB limit.
        27 => "; a response header over 100 KiB gives this too",
        100 => "; the server sent more than curl accepts",
        _ => "",
    };
    if said.is_empty() {
        format!("curl exit code {code} ({}{hint})", meaning(code))
    } else {
        format!("{said} (curl exit code {code}{hint})")
    }
}

fn stderr_suffix(stderr: &str) -> String {
    let said = last_lines(stderr);
    if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    }
}

/// The last few non-empty lines of stderr, joined (curl prints one line per error,
/// sometimes preceded by warnings).
fn last_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(3);
    let mut text = lines[start..].join(" / ");
    if text.len() > 1000 {
        text.truncate(focus_core::char_boundary::floor(&text, 1000));
        text.push('…');
    }
    text
}

/// A short meaning for the codes curl may end with silently.
fn meaning(code: i32) -> &'static str {
    match code {
        1 => "unsupported protocol",
        2 => "curl failed to initialise",
        3 => "malformed URL",
        5 => "could not resolve proxy",
        6 => "could not resolve host",
        7 => "failed to connect",
        8 => "unparseable server reply",
        16 => "HTTP/2 error",
        18 => "transfer closed with data missing",
        26 => "could not read the request body",
        27 => "out of memory",
        28 => "operation timed out",
        35 => "TLS handshake failed",
        52 => "empty reply from server",
        55 => "failed sending data",
        56 => "failure receiving data",
        60 => "server certificate not trusted",
        92 => "HTTP/2 stream error",
        97 => "proxy handshake failed",
        100 => "a value was too large",
        _ => "see EXIT CODES in `man curl`",
    }
}

/// Replaces every occurrence of each secret in `text` with `[redacted]`.
pub(super) fn redact(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_string();
    for secret in secrets {
        if !secret.is_empty() && text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "[redacted]");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_the_main_codes() {
        assert!(
            matches!(error_for_exit(6, "curl: (6) Could not resolve host: x"), TransportError::Dns(m) if m.contains("Could not resolve host: x"))
        );
        assert!(
            matches!(error_for_exit(7, ""), TransportError::Connect(m) if m.contains("failed to connect"))
        );
        assert!(matches!(error_for_exit(28, ""), TransportError::Timeout(_)));
        assert!(matches!(error_for_exit(35, ""), TransportError::Tls(_)));
        assert!(matches!(error_for_exit(60, ""), TransportError::Tls(_)));
        assert!(matches!(
            error_for_exit(52, ""),
            TransportError::StreamCut(_)
        ));
        assert!(matches!(
            error_for_exit(56, ""),
            TransportError::StreamCut(_)
        ));
        assert!(matches!(
            error_for_exit(18, ""),
            TransportError::StreamCut(_)
        ));
        assert!(
            matches!(error_for_exit(3, ""), TransportError::Other(m) if m.contains("malformed URL"))
        );
        assert!(error_for_exit(27, "curl: (27) Out of memory")
            .to_string()
            .contains("100 KiB"));
    }

    #[test]
    fn keeps_only_the_last_lines() {
        let message = error_for_exit(7, "w1\nw2\n\nw3\ncurl: (7) Failed to connect\n").to_string();
        assert!(
            message.contains("w2 / w3 / curl: (7) Failed to connect (curl exit code 7)"),
            "{message}"
        );
        assert!(!message.contains("w1"));
    }

    #[test]
    fn redacts_secrets() {
        let secrets = vec!["sk-123".to_string(), String::new()];
        assert_eq!(
            redact("key sk-123 and sk-123", &secrets),
            "key [redacted] and [redacted]"
        );
    }
}
