//! An API key travels in a request header; printing the request with `{:?}` (a
//! log line, a panic message, a test failure) must not print it.

use focus_transport::HttpRequest;

#[test]
fn request_debug_names_headers_but_never_shows_their_values() {
    let request = HttpRequest {
        method: "POST".into(),
        url: "https://api.example.com/v1/messages".into(),
        headers: vec![
            ("x-api-key".into(), "sk-ant-SECRET-123".into()),
            ("Authorization".into(), "Bearer sk-SECRET-456".into()),
        ],
        body: b"{\"model\":\"m\"}".to_vec(),
        ..HttpRequest::default()
    };
    let shown = format!("{request:?} {request:#?}");
    assert!(!shown.contains("SECRET"), "{shown}");
    assert!(shown.contains("x-api-key") && shown.contains("Authorization"));
    assert!(shown.contains("https://api.example.com/v1/messages"));
}
