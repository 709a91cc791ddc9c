//! curl honours `http_proxy` from the environment: the test server plays the
//! proxy and receives the absolute-form request. focus adds what curl leaves out:
//! uppercase `HTTP_PROXY` for `http://` URLs, and loopback addresses never
//! proxied. It runs in a process of its own (`in_own_process`), because it
//! changes the process's environment.

use focus_core::cancel::CancelToken;
use focus_providers::curl::CurlTransport;
use focus_testkit::alone::in_own_process;
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_transport::{HttpRequest, Transport};
use std::io::Read;
use std::time::Duration;

#[test]
fn requests_go_through_the_proxy_from_the_environment() {
    if !in_own_process(
        module_path!(),
        "requests_go_through_the_proxy_from_the_environment",
    ) {
        return;
    }
    let proxy = TestServer::queue(vec![ScriptedResponse::json("{\"via\":\"proxy\"}")]);
    for name in ["no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"] {
        std::env::remove_var(name);
    }
    std::env::set_var("http_proxy", proxy.url());
    let request = HttpRequest {
        method: "POST".into(),
        url: "http://focus-proxy-test.invalid/v1/chat".into(),
        headers: vec![("authorization".into(), "Bearer sk-proxy-test".into())],
        body: b"{}".to_vec(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(10)),
    };
    let response = CurlTransport::new()
        .send(&request, &CancelToken::new())
        .unwrap();
    let mut body = String::new();
    let mut reader = response.body;
    reader.read_to_string(&mut body).unwrap();
    assert_eq!(body, "{\"via\":\"proxy\"}");
    let seen = &proxy.requests()[0];
    assert_eq!(seen.path, "http://focus-proxy-test.invalid/v1/chat");
    assert_eq!(seen.header("authorization"), Some("Bearer sk-proxy-test"));
    assert_eq!(seen.body, b"{}");

    // A local server is reached directly even with a proxy set.
    let local = TestServer::queue(vec![ScriptedResponse::json("{\"via\":\"direct\"}")]);
    let direct = HttpRequest {
        url: format!("{}/v1/chat", local.url()),
        ..request.clone()
    };
    let mut body = String::new();
    let mut reader = CurlTransport::new()
        .send(&direct, &CancelToken::new())
        .unwrap()
        .body;
    reader.read_to_string(&mut body).unwrap();
    assert_eq!(body, "{\"via\":\"direct\"}");
    assert_eq!(proxy.requests().len(), 1, "the proxy saw no second request");

    // Uppercase HTTP_PROXY alone (curl ignores it) is honoured for http URLs.
    std::env::remove_var("http_proxy");
    let upper = TestServer::queue(vec![ScriptedResponse::json("{\"via\":\"upper\"}")]);
    std::env::set_var("HTTP_PROXY", upper.url());
    let mut body = String::new();
    let mut reader = CurlTransport::new()
        .send(&request, &CancelToken::new())
        .unwrap()
        .body;
    reader.read_to_string(&mut body).unwrap();
    assert_eq!(body, "{\"via\":\"upper\"}");
    assert_eq!(
        upper.requests()[0].path,
        "http://focus-proxy-test.invalid/v1/chat"
    );
}
