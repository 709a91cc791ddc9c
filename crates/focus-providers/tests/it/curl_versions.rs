//! Old curls: the transport checks `curl --version` once, names the minimum it
//! needs when curl is older, and passes only options that minimum has. Each case
//! runs a stand-in for curl (a shell script): one that reports 7.29.0 (CentOS 7's)
//! and refuses `--suppress-connect-headers` as that curl does, and one that
//! reports 7.54.0 and refuses every option 7.54.0 did not have before handing the
//! request to the real curl.

use focus_core::cancel::CancelToken;
use focus_providers::curl::{CurlTransport, MIN_CURL_VERSION};
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_transport::{HttpRequest, Transport, TransportError};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A scratch directory for one test's stand-in.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("focus-curl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the stand-in `curl` at `dir/curl`: every run appends its first
/// argument after `-q` to `dir/runs`.
fn stand_in(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("curl");
    let script = format!(
        "#!/bin/sh\necho \"$2\" >> '{}'\n{body}",
        dir.join("runs").display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn get(url: String) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url,
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(10)),
    }
}

#[test]
fn a_curl_older_than_the_minimum_is_named_with_the_minimum() {
    let dir = scratch("old");
    let curl = stand_in(
        &dir,
        "case \"$2\" in --version) echo 'curl 7.29.0 (x86_64-redhat-linux-gnu) libcurl/7.29.0 NSS/3.44'; exit 0;; esac\n\
         echo 'curl: option --suppress-connect-headers: is unknown' >&2; exit 2\n",
    );
    let transport = CurlTransport::with_program(&curl);
    for _ in 0..2 {
        let error = transport
            .send(&get("http://127.0.0.1:9/".into()), &CancelToken::new())
            .unwrap_err();
        let TransportError::CannotStart(message) = &error else {
            panic!("{error:?}");
        };
        assert!(
            message.contains("curl 7.29.0") && message.contains("7.54.0 or newer"),
            "{message}"
        );
        assert!(message.contains("FOCUS_CURL"), "{message}");
    }
    // Checked once: one `--version` run, and no request was tried.
    let runs = std::fs::read_to_string(dir.join("runs")).unwrap();
    assert_eq!(runs, "--version\n");
    assert_eq!(MIN_CURL_VERSION, (7, 54, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The options curl 7.54.0 had that a program like focus might pass (from
/// curl's option history; anything newer is refused by the stand-in).
const OPTIONS_OF_7_54: &[&str] = &[
    "url",
    "noproxy",
    "proxy",
    "proxy-user",
    "silent",
    "show-error",
    "no-buffer",
    "include",
    "suppress-connect-headers",
    "globoff",
    "proto",
    "proto-redir",
    "header",
    "head",
    "request",
    "data",
    "data-binary",
    "data-raw",
    "connect-timeout",
    "max-time",
    "location",
    "compressed",
    "user-agent",
    "cacert",
    "capath",
    "output",
    "write-out",
    "fail",
    "verbose",
    "http1.1",
    "http2",
    "retry",
    "limit-rate",
    "speed-time",
    "speed-limit",
    "keepalive-time",
    "tcp-nodelay",
];

#[test]
fn every_option_focus_passes_exists_in_the_minimum_curl() {
    let real = std::process::Command::new("curl").arg("--version").output();
    if !real.is_ok_and(|o| o.status.success()) {
        focus_testkit::skipped("curl is not available");
        return;
    }
    let dir = scratch("minimum");
    let known = OPTIONS_OF_7_54.join(" ");
    let curl = stand_in(
        &dir,
        &format!(
            "case \"$2\" in --version) echo 'curl 7.54.0 (x86_64-pc-linux-gnu) libcurl/7.54.0'; exit 0;; esac\n\
             config=$(cat)\n\
             for name in $(printf '%s\\n' \"$config\" | sed 's/[ =].*//'); do\n\
               case \" {known} \" in *\" $name \"*) ;; *) echo \"curl: option --$name: is unknown\" >&2; exit 2;; esac\n\
             done\n\
             printf '%s\\n' \"$config\" | exec curl \"$@\"\n"
        ),
    );
    let server = TestServer::queue(vec![ScriptedResponse::json(r#"{"ok":true}"#)]);
    let transport = CurlTransport::with_program(&curl);
    let response = transport
        .send(&get(server.url()), &CancelToken::new())
        .unwrap_or_else(|e| panic!("an option 7.54.0 does not have was passed: {e}"));
    assert_eq!(response.status, 200);
    let mut body = String::new();
    response.body.take(1024).read_to_string(&mut body).unwrap();
    assert_eq!(body, r#"{"ok":true}"#);
    let runs = std::fs::read_to_string(dir.join("runs")).unwrap();
    assert_eq!(runs, "--version\n--config\n");
    let _ = std::fs::remove_dir_all(&dir);
}
