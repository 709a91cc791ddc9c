//! The curl config text for one request: URL, method, headers, body file and
//! timeouts, written to curl's stdin (`curl --config -`) so that none of it shows
//! in the process list.
//!
//! The config syntax (`name = "value"`, backslash escapes inside quotes) is
//! documented under `-K, --config` in curl(1). Everything that goes into it is
//! checked first: a line break in a header would let a value inject further curl
//! options, and a header name starting with `@` would make curl read a file.
//!
//! Every option used, with the curl release that brought it (from curl's own
//! option history), so that focus runs on any curl from
//! [`super::MIN_CURL_VERSION`] (7.54.0) on: `-q`, `--config`, `url`, `silent`,
//! `show-error`, `include`, `header`, `head`, `request`, `max-time` (curl 4 to
//! 6), `data-binary` (7.2), `connect-timeout` (7.7), `no-buffer` and `globoff`
//! (7.x, before 7.10), `noproxy` (7.19.4), `proto` (7.20.2),
//! `suppress-connect-headers` (7.54.0, the newest). A test runs the transport
//! through a curl stand-in that knows only 7.54.0's options.

use super::proxy::{self, ProxyChoice, ProxyEnv};
use focus_transport::{HttpRequest, TransportError};
use std::fmt::Write as _;
use std::path::Path;

/// Builds the config for `request`; `body_file` is where the body bytes wait, if
/// there is a body.
pub(super) fn build_config(
    request: &HttpRequest,
    body_file: Option<&Path>,
    proxy_env: &ProxyEnv,
) -> Result<String, TransportError> {
    let mut config = String::with_capacity(512);
    let url = request.url.trim();
    check_url(url)?;
    push_option(&mut config, "url", Some(url));
    match proxy::choose(url, proxy_env) {
        ProxyChoice::CurlDecides => {}
        ProxyChoice::Direct => push_option(&mut config, "noproxy", Some("*")),
        ProxyChoice::Through(proxy) => push_option(&mut config, "proxy", Some(&proxy)),
    }
    // Fixed behaviour, whatever the user's environment:
    push_option(&mut config, "silent", None); // no progress meter…
    push_option(&mut config, "show-error", None); // …but errors on stderr
    push_option(&mut config, "no-buffer", None); // stream the body as it arrives
    push_option(&mut config, "include", None); // the response head comes first on stdout
    push_option(&mut config, "suppress-connect-headers", None); // no proxy CONNECT head
    push_option(&mut config, "globoff", None); // `[` and `{` in URLs are literal
    push_option(&mut config, "proto", Some("=http,https"));
    // curl would otherwise send `Expect: 100-continue` for bigger bodies and wait
    // for the server's go-ahead; APIs do not need that round trip.
    push_option(&mut config, "header", Some("Expect:"));

    let method = request.method.trim();
    if !method.is_empty() && !method.bytes().all(is_token_byte) {
        return Err(TransportError::Other(format!(
            "the HTTP method {method:?} is not a valid token"
        )));
    }
    match method {
        "HEAD" => push_option(&mut config, "head", None),
        "" => {}
        _ => push_option(&mut config, "request", Some(method)),
    }
    for (name, value) in &request.headers {
        push_option(&mut config, "header", Some(&header_line(name, value)?));
    }
    if let Some(path) = body_file {
        let path = path.to_str().ok_or_else(|| {
            TransportError::CannotStart(format!(
                "the temporary file path {} is not UTF-8; set TMPDIR to a plain directory",
                path.display()
            ))
        })?;
        push_option(&mut config, "data-binary", Some(&format!("@{path}")));
    } else if matches!(method, "POST" | "PUT" | "PATCH") {
        // An empty body still gets `Content-Length: 0`: without it, some servers
        // and proxies answer 411 Length Required.
        push_option(&mut config, "data-binary", Some(""));
    }
    if let Some(timeout) = request.connect_timeout {
        push_option(&mut config, "connect-timeout", Some(&seconds(timeout)));
    }
    if let Some(timeout) = request.total_timeout {
        push_option(&mut config, "max-time", Some(&seconds(timeout)));
    }
    Ok(config)
}

/// Appends `name` or `name = "value"` as one config line.
fn push_option(config: &mut String, name: &str, value: Option<&str>) {
    config.push_str(name);
    if let Some(value) = value {
        config.push_str(" = \"");
        for c in value.chars() {
            match c {
                '"' => config.push_str("\\\""),
                '\\' => config.push_str("\\\\"),
                '\t' => config.push_str("\\t"),
                _ => config.push(c),
            }
        }
        config.push('"');
    }
    config.push('\n');
}

/// `Name: value`, or `Name;` for an empty value (curl's way to send an empty
/// header; `Name:` would remove it instead).
///
/// Errors never quote the value: it may be a key.
fn header_line(name: &str, value: &str) -> Result<String, TransportError> {
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err(TransportError::Other(format!(
            "the header name {name:?} is not a valid HTTP token"
        )));
    }
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(TransportError::Other(format!(
            "the value of header {name} contains a line break or control character (value not shown)"
        )));
    }
    let value = value.trim();
    Ok(if value.is_empty() {
        format!("{name};")
    } else {
        format!("{name}: {value}")
    })
}

/// Only absolute http(s) URLs without control characters or spaces.
fn check_url(url: &str) -> Result<(), TransportError> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(TransportError::Other(
            "the URL must start with http:// or https://".to_string(),
        ));
    }
    if url.chars().any(|c| c.is_control() || c == ' ') {
        return Err(TransportError::Other(
            "the URL contains a space or control character".to_string(),
        ));
    }
    Ok(())
}

/// An HTTP token character (RFC 9110 `tchar`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A duration as curl's decimal seconds, never below a millisecond (0 would
/// mean "no limit" to curl).
fn seconds(duration: std::time::Duration) -> String {
    let ms = duration.as_millis().max(1);
    let mut text = String::new();
    let _ = write!(text, "{}.{:03}", ms / 1000, ms % 1000);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn request() -> HttpRequest {
        HttpRequest {
            method: "POST".into(),
            url: "https://api.example/v1?key=s\"e\\c".into(),
            headers: vec![
                ("x-api-key".into(), "sk-secret".into()),
                ("x-empty".into(), "".into()),
            ],
            body: b"{}".to_vec(),
            connect_timeout: Some(Duration::from_millis(1500)),
            total_timeout: Some(Duration::ZERO),
        }
    }

    #[test]
    fn quotes_values_and_lists_every_option() {
        let config = build_config(
            &request(),
            Some(Path::new("/tmp/b ody")),
            &ProxyEnv::default(),
        )
        .unwrap();
        assert!(
            config.starts_with("url = \"https://api.example/v1?key=s\\\"e\\\\c\"\n"),
            "{config}"
        );
        for line in [
            "request = \"POST\"",
            "header = \"x-api-key: sk-secret\"",
            "header = \"x-empty;\"",
            "header = \"Expect:\"",
            "data-binary = \"@/tmp/b ody\"",
            "connect-timeout = \"1.500\"",
            "max-time = \"0.001\"",
            "no-buffer",
            "include",
        ] {
            assert!(
                config.lines().any(|l| l == line),
                "missing {line:?} in\n{config}"
            );
        }
    }

    #[test]
    fn rejects_injection_without_echoing_the_value() {
        let mut bad = request();
        bad.headers = vec![(
            "x-api-key".into(),
            "sk-secret\nurl = \"http://evil\"".into(),
        )];
        let error = build_config(&bad, None, &ProxyEnv::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("x-api-key") && !error.contains("sk-secret"),
            "{error}"
        );
        bad.headers = vec![("@/etc/passwd".into(), "x".into())];
        assert!(build_config(&bad, None, &ProxyEnv::default()).is_err());
        bad.headers.clear();
        bad.url = "file:///etc/passwd".into();
        assert!(build_config(&bad, None, &ProxyEnv::default()).is_err());
        bad.url = "http://a/\r\nheader = x".into();
        assert!(build_config(&bad, None, &ProxyEnv::default()).is_err());
        bad.url = "http://a/".into();
        bad.method = "GET\nurl".into();
        assert!(build_config(&bad, None, &ProxyEnv::default()).is_err());
    }

    #[test]
    fn head_requests_use_the_head_option() {
        let mut head = request();
        head.method = "HEAD".into();
        let config = build_config(&head, None, &ProxyEnv::default()).unwrap();
        assert!(config.lines().any(|l| l == "head") && !config.contains("request ="));
    }
}
