//! Which transport the real binary uses: with no `curl` on PATH, the offline
//! demo, a two-turn tool task against a loopback OpenAI-compatible and a
//! loopback Anthropic-compatible model, and an MCP `http://` server all work
//! (plain `http://` needs no curl), while `https://` fails with the "install
//! curl" message; and with curl present, a loopback model starts no curl
//! process at all unless the `transport` setting asks for curl (a logging curl
//! shim on PATH counts them).

use crate::support::*;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// PATH with every directory that holds `curl` replaced by a copy made of
/// symbolic links to everything in it except `curl`.
fn path_without_curl(root: &Path) -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = Vec::new();
    for (i, dir) in std::env::split_paths(&path).enumerate() {
        if !dir.join("curl").exists() {
            dirs.push(dir);
            continue;
        }
        let shadow = root.join(format!("path-{i}"));
        std::fs::create_dir_all(&shadow).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            if entry.file_name() != "curl" {
                let _ = std::os::unix::fs::symlink(entry.path(), shadow.join(entry.file_name()));
            }
        }
        dirs.push(shadow);
    }
    std::env::join_paths(dirs).unwrap()
}

/// The `curl` PATH finds, if any.
fn real_curl() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("curl"))
        .find(|candidate| candidate.exists())
}

/// A loopback MCP server over streamable HTTP with one tool, `shout`.
fn mcp_server() -> focus_testkit::server::TestServer {
    use focus_core::json::parse_str;
    use focus_testkit::server::{ScriptedResponse, TestServer};
    TestServer::responder(|request| {
        let message = parse_str(&request.body_text()).unwrap_or_default();
        let id = message["id"].to_json_string();
        match message["method"].as_str().unwrap_or("") {
            "initialize" => ScriptedResponse::json(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-03-26","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"web-mcp","version":"1.0"}}}}}}"#
            )),
            "tools/list" => ScriptedResponse::json(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"shout","description":"Upper-cases text","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}}}}}}]}}}}"#
            )),
            "tools/call" => {
                let text = message["params"]["arguments"]["text"]
                    .as_str()
                    .unwrap_or("");
                ScriptedResponse::new(200)
                    .header("content-type", "text/event-stream")
                    .chunk(format!(
                        "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n\n",
                        text.to_uppercase()
                    ))
            }
            _ => ScriptedResponse::new(202),
        }
    })
}

#[test]
fn without_curl_plain_http_works_and_https_says_to_install_curl() {
    let s = Sandbox::new();
    let path = path_without_curl(&s.root);
    let run = |args: &[&str]| {
        let mut cmd = s.cmd(args);
        cmd.env("PATH", &path).env_remove("FOCUS_CURL");
        run_command(cmd, "")
    };
    assert!(
        std::env::split_paths(&path).all(|dir| !dir.join("curl").exists()),
        "no curl left on the test's PATH"
    );

    // The offline demo.
    let out = run(&["-p", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("offline demo"), "{}", stdout(&out));

    // A two-turn tool task against each loopback model.
    for model in ["mock-openai/m1", "mock-anthropic/m1"] {
        let server = mock(TOOL_THEN_ANSWER);
        s.write_models(&server.url());
        let out = run(&["-p", "--model", model, "Run the command for me"]);
        assert!(out.status.success(), "{model}: {}", stderr(&out));
        assert!(
            stdout(&out)
                .trim_end()
                .ends_with("The command printed hi-from-tool. Done."),
            "{model}: {}",
            stdout(&out)
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{model}");
        assert!(requests[1].body_text().contains("hi-from-tool"), "{model}");
    }

    // An MCP server on http://, listed and called.
    let mcp = mcp_server();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"web":{{"url":"{}/mcp"}}}}}}"#,
            mcp.url()
        ),
    )
    .unwrap();
    let out = run(&["mcp", "list"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("web: running (web-mcp 1.0), 1 tool"),
        "{}",
        stdout(&out)
    );
    let server = mock(
        r#"{"name":"m","steps":[
      {"reply":{"toolCalls":[{"name":"web__shout","arguments":{"text":"quiet words"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let out = run(&[
        "-p",
        "--permission-mode",
        "auto",
        "--model",
        "mock-openai/m1",
        "shout",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(server.requests()[1].body_text().contains("QUIET WORDS"));
    std::fs::remove_file(s.home.join("settings.json")).unwrap();

    // https:// needs curl: the existing message says how to get it.
    s.write_models("https://127.0.0.1:9");
    let out = run(&["-p", "--model", "mock-openai/m1", "hello"]);
    assert!(!out.status.success());
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("curl program was not found") && said.contains("apt install curl"),
        "{said}"
    );
}

#[test]
fn a_loopback_model_starts_no_curl_unless_the_setting_asks() {
    let Some(curl) = real_curl() else {
        focus_testkit::skipped("no curl on PATH to wrap in a logging shim");
        return;
    };
    let s = Sandbox::new();
    let shim_dir = s.root.join("shim");
    std::fs::create_dir_all(&shim_dir).unwrap();
    let log = s.root.join("curl.log");
    let shim = shim_dir.join("curl");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\necho \"curl ran $*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            curl.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = OsString::from(&shim_dir);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let run = |args: &[&str]| {
        let mut cmd = s.cmd(args);
        cmd.env("PATH", &path).env_remove("FOCUS_CURL");
        for proxy in [
            "http_proxy",
            "HTTP_PROXY",
            "all_proxy",
            "ALL_PROXY",
            "no_proxy",
            "NO_PROXY",
        ] {
            cmd.env_remove(proxy);
        }
        run_command(cmd, "")
    };
    let curl_runs = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            // curl's one-time `--version` check is not a request.
            .filter(|line| !line.contains("--version"))
            .count()
    };

    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let out = run(&["-p", "--model", "mock-openai/m1", "Run the command for me"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 2);
    // Not a single curl process, not even its version check.
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(log_text, "", "a loopback http:// model started curl");
    assert_eq!(curl_runs(), 0);

    // The same task with `"transport": "curl"`: the shim sees both model calls,
    // which shows it would have counted them above.
    std::fs::write(s.home.join("settings.json"), r#"{"transport":"curl"}"#).unwrap();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let out = run(&["-p", "--model", "mock-openai/m1", "Run the command for me"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        curl_runs(),
        2,
        "the setting sends every request through curl"
    );
}
