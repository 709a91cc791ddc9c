//! Asking a local model server which models it has: one plain-HTTP `GET` over a
//! std `TcpStream`, with short timeouts, used only for loopback servers (Ollama,
//! llama.cpp) when nothing else is configured. No curl process is spawned for
//! this, so a probe of a port where nothing listens costs well under a millisecond.

use focus_core::json::{parse, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The most a probe waits to connect, and then for the answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// The largest probe answer read (a model list is a few KB).
const MAX_ANSWER: u64 = 4 * 1024 * 1024;

/// `GET http://{authority}{path}` and the JSON body of a 200 answer, or `None`
/// (nothing listening, timeout, other status, not JSON).
pub fn get_json(authority: &str, path: &str, timeout: Duration) -> Option<Value> {
    let address: SocketAddr = authority.to_socket_addrs().ok()?.next()?;
    let mut stream = TcpStream::connect_timeout(&address, timeout).ok()?;
    stream.set_read_timeout(Some(timeout)).ok()?;
    stream.set_write_timeout(Some(timeout)).ok()?;
    // HTTP/1.0 so the server closes the connection after the answer.
    let request = format!(
        "GET {path} HTTP/1.0\r\nHost: {authority}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    stream.take(MAX_ANSWER).read_to_end(&mut answer).ok()?;
    let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&answer[..head_end]).to_ascii_lowercase();
    let status_ok = head
        .lines()
        .next()
        .is_some_and(|line| line.split_whitespace().nth(1) == Some("200"));
    if !status_ok {
        return None;
    }
    let body = &answer[head_end + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    parse(&body).ok()
}

/// Decodes a chunked body (some servers chunk even for HTTP/1.0 clients).
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
    }
}

/// The context size in a llama.cpp `/props` answer
/// (`default_generation_settings.n_ctx`, or `n_ctx` at the top in other versions).
pub fn context_size(props: &Value) -> Option<u64> {
    props["default_generation_settings"]["n_ctx"]
        .as_u64()
        .or_else(|| props["n_ctx"].as_u64())
        .filter(|n| *n > 0)
}

/// The context window a model list reports for `model`, under the names the
/// servers use: vLLM's `max_model_len`, LM Studio's `loaded_context_length` /
/// `max_context_length`, `context_length` (LM Studio, OpenRouter-style lists,
/// Ollama's `/api/ps`), `n_ctx` (llama.cpp-style, at the top or under `meta`).
/// A training context (`n_ctx_train`) is not the window a server runs with and is
/// not read.
pub fn context_from_model_list(answer: &Value, model: &str) -> Option<u64> {
    let entries = answer["data"]
        .as_array()
        .or_else(|| answer["models"].as_array())?;
    let entry = entries
        .iter()
        .find(|m| m["id"].as_str() == Some(model) || m["name"].as_str() == Some(model))?;
    [
        &entry["max_model_len"],
        &entry["loaded_context_length"],
        &entry["context_length"],
        &entry["n_ctx"],
        &entry["meta"]["n_ctx"],
        &entry["max_context_length"],
    ]
    .into_iter()
    .find_map(Value::as_u64)
    .filter(|n| *n > 0)
}

/// The model ids in an Ollama `/api/tags` answer (`{"models":[{"name":…}]}`) or an
/// OpenAI-style `/v1/models` answer (`{"data":[{"id":…}]}`), in the server's order.
pub fn model_ids(answer: &Value) -> Vec<String> {
    let from = |list: &Value, key: &str| -> Vec<String> {
        list.as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|m| m[key].as_str().map(String::from))
                    .filter(|id| !id.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let ollama = from(&answer["models"], "name");
    if !ollama.is_empty() {
        return ollama;
    }
    from(&answer["data"], "id")
}

/// The `host:port` Ollama listens on: `OLLAMA_HOST` (with or without scheme or
/// port; `0.0.0.0` means "all interfaces", so we connect to loopback) or
/// `127.0.0.1:11434`.
pub fn ollama_authority(ollama_host: Option<&str>) -> String {
    let Some(raw) = ollama_host.map(str::trim).filter(|s| !s.is_empty()) else {
        return "127.0.0.1:11434".into();
    };
    let without_scheme = raw
        .strip_prefix("http://")
        .or_else(|| raw.strip_prefix("https://"))
        .unwrap_or(raw)
        .trim_end_matches('/');
    let (host, port) = match without_scheme.rsplit_once(':') {
        Some((h, p)) if p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => (h, p),
        _ => (without_scheme, "11434"),
    };
    let host = match host {
        "" | "0.0.0.0" => "127.0.0.1",
        "::" | "[::]" => "[::1]",
        h => h,
    };
    format!("{host}:{port}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn ollama_host_forms() {
        assert_eq!(ollama_authority(None), "127.0.0.1:11434");
        assert_eq!(ollama_authority(Some("0.0.0.0")), "127.0.0.1:11434");
        assert_eq!(
            ollama_authority(Some("http://10.0.0.2:9000/")),
            "10.0.0.2:9000"
        );
        assert_eq!(ollama_authority(Some("localhost")), "localhost:11434");
        assert_eq!(ollama_authority(Some("0.0.0.0:1234")), "127.0.0.1:1234");
    }

    #[test]
    fn model_lists_of_both_shapes() {
        let ollama =
            parse_str(r#"{"models":[{"name":"llama3.2:latest"},{"name":"qwen"}]}"#).unwrap();
        assert_eq!(model_ids(&ollama), ["llama3.2:latest", "qwen"]);
        let openai = parse_str(r#"{"object":"list","data":[{"id":"m1"}]}"#).unwrap();
        assert_eq!(model_ids(&openai), ["m1"]);
        assert!(model_ids(&parse_str("[1]").unwrap()).is_empty());
    }

    #[test]
    fn context_windows_in_model_lists() {
        let cases = [
            // vLLM
            (
                r#"{"object":"list","data":[{"id":"qwen","object":"model","max_model_len":32768}]}"#,
                Some(32_768),
            ),
            // LM Studio's richer list: the loaded context wins over the maximum.
            (
                r#"{"data":[{"id":"qwen","max_context_length":131072,"loaded_context_length":4096}]}"#,
                Some(4_096),
            ),
            (
                r#"{"data":[{"id":"qwen","context_length":8192}]}"#,
                Some(8_192),
            ),
            (
                r#"{"data":[{"id":"qwen","meta":{"n_ctx":2048,"n_ctx_train":8192}}]}"#,
                Some(2_048),
            ),
            // Ollama's /api/ps
            (
                r#"{"models":[{"name":"qwen","context_length":4096}]}"#,
                Some(4_096),
            ),
            // llama.cpp's /v1/models: only the training context, not the window.
            (
                r#"{"data":[{"id":"qwen","meta":{"n_ctx_train":32768}}]}"#,
                None,
            ),
            (r#"{"data":[{"id":"other","max_model_len":1}]}"#, None),
            (r#"{"data":[{"id":"qwen","max_model_len":0}]}"#, None),
        ];
        for (answer, want) in cases {
            let answer = parse_str(answer).unwrap();
            assert_eq!(context_from_model_list(&answer, "qwen"), want, "{answer:?}");
        }
    }

    #[test]
    fn chunked_bodies_decode() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap(),
            b"abcde"
        );
        assert!(dechunk(b"zz\r\n").is_none());
    }

    #[test]
    fn nothing_listening_is_none_quickly() {
        // Bind then drop a listener to find a port that is (almost surely) closed.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        assert!(get_json(&format!("127.0.0.1:{port}"), "/api/tags", PROBE_TIMEOUT).is_none());
    }
}
