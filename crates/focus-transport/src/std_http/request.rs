//! The request's bytes: request line, `Host`, the caller's headers, the framing
//! header, a blank line, then the body — written in one buffer, so that a small
//! request leaves in one TCP segment.

use super::target::Target;
use crate::protocol_error::ProtocolError;
use crate::transport::HttpRequest;

/// The whole request for `request` sent to `target`, ready to write.
///
/// Checked first, because a header value is copied onto the wire as-is: a line
/// break in it would start a new header (or a new request). Errors never quote a
/// header's value (it may be a key).
///
/// # Errors
///
/// A [`ProtocolError`] for a method, header name or header value that would break the request (a
/// line break, a control character); the value itself is never quoted.
pub fn encode(request: &HttpRequest, target: &Target) -> Result<Vec<u8>, ProtocolError> {
    let method = match request.method.trim() {
        "" => "GET",
        m => m,
    };
    if !method.bytes().all(is_token_byte) {
        return Err(ProtocolError::BadRequest(format!(
            "the method {method:?} is not an HTTP token"
        )));
    }
    let mut out = Vec::with_capacity(256 + request.body.len());
    out.extend_from_slice(method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(target.path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let has = |name: &str| {
        request
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    };
    if !has("host") {
        push_header(&mut out, "Host", &target.authority);
    }
    for (name, value) in &request.headers {
        if name.is_empty() || !name.bytes().all(is_token_byte) {
            return Err(ProtocolError::BadRequest(format!(
                "the header name {name:?} is not an HTTP token"
            )));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(ProtocolError::BadRequest(format!(
                "the value of header {name} contains a line break or NUL (value not shown)"
            )));
        }
        // The framing is the transport's: a caller's length could contradict the body.
        if name.eq_ignore_ascii_case("content-length")
            || name.eq_ignore_ascii_case("transfer-encoding")
        {
            continue;
        }
        push_header(&mut out, name, value.trim());
    }
    // Every body has a length; so does an empty POST (some servers answer 411 otherwise).
    if !request.body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        push_header(&mut out, "Content-Length", &request.body.len().to_string());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&request.body);
    Ok(out)
}

fn push_header(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// An HTTP token character (RFC 9110 `tchar`).
pub fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_exact_bytes() {
        let target = Target::parse("http://[::1]:8080/v1/chat?x=1").unwrap();
        let request = HttpRequest {
            method: "POST".into(),
            url: String::new(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("Content-Length".into(), "999".into()),
                ("x-empty".into(), String::new()),
            ],
            body: b"{}".to_vec(),
            ..Default::default()
        };
        let bytes = encode(&request, &target).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "POST /v1/chat?x=1 HTTP/1.1\r\nHost: [::1]:8080\r\ncontent-type: application/json\r\n\
             x-empty: \r\nContent-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn refuses_injection_without_showing_the_value() {
        let target = Target::parse("http://a/").unwrap();
        let mut request = HttpRequest {
            method: "GET".into(),
            headers: vec![("authorization".into(), "Bearer sk-1\r\nX: y".into())],
            ..Default::default()
        };
        let error = encode(&request, &target).unwrap_err().to_string();
        assert!(
            error.contains("authorization") && !error.contains("sk-1"),
            "{error}"
        );
        request.headers = vec![("bad name".into(), "v".into())];
        assert!(encode(&request, &target).is_err());
        request.headers.clear();
        request.method = "GET /x".into();
        assert!(encode(&request, &target).is_err());
    }
}
