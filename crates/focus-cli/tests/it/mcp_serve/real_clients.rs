//! Real MCP clients, not only focus's own: the official Python SDK (PyPI
//! `mcp`) over stdio and Streamable HTTP, and the MCP Inspector's CLI (npm
//! `@modelcontextprotocol/inspector`) over stdio (and over HTTP when the
//! installed Inspector can send the bearer token: `--header`, in versions
//! that need Node 22). Each lists every tool and calls every one.
//!
//! Where the clients are: `FOCUS_MCP_PYTHON` (a Python with `mcp`) and
//! `FOCUS_MCP_INSPECTOR` (the `mcp-inspector` program), else what `.ci/run`
//! installs under `target/mcp-clients/`. A client that is not there is
//! skipped, visibly (`SKIPPED:` and the skip log).

use super::*;
use focus_core::json::Object;
use std::path::PathBuf;

/// The workspace's root.
fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Python that imports `mcp`, if one is installed.
fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("FOCUS_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/mcp-clients/venv/bin/python"));
    let works = Command::new(&candidate)
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    works.then_some(candidate)
}

/// The Inspector's `mcp-inspector` program, if installed.
fn inspector() -> Option<PathBuf> {
    let candidate = std::env::var_os("FOCUS_MCP_INSPECTOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            workspace().join("target/mcp-clients/node/node_modules/.bin/mcp-inspector")
        });
    candidate.exists().then_some(candidate)
}

/// A script that starts `focus mcp serve --permission-mode auto` in `s`
/// (clients start servers with an environment of their own choosing).
fn server_script(s: &Sandbox) -> PathBuf {
    let path = s.root.join("serve.sh");
    let script = format!(
        "#!/bin/sh\ncd '{}' || exit 1\nexec env FOCUS_HOME='{}' HOME='{}' FOCUS_OFFLINE=1 NO_COLOR=1 '{}' mcp serve --permission-mode auto\n",
        s.work.display(),
        s.home.display(),
        s.root.display(),
        focus_binary()
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The calls of [`every_tool_call`] as one JSON object (name → arguments),
/// bash made slow enough to report progress.
fn calls_object() -> String {
    let mut calls = Object::new();
    for (name, mut args, _) in every_tool_call() {
        if name == "bash" {
            args = parse_str(r#"{"command":"cat new.txt; sleep 1.5; echo slept"}"#).unwrap();
        }
        calls.insert(name, args);
    }
    Value::Object(calls).to_json_string()
}

/// Runs the SDK client script with `args`; its report.
fn run_sdk(python: &PathBuf, args: &[&str]) -> Value {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/mcp_clients/sdk_client.py");
    let mut cmd = Command::new(python);
    cmd.arg(script).args(args);
    let out = crate::support::run_command(cmd, "");
    let stdout = crate::support::stdout(&out);
    assert!(
        out.status.success(),
        "{}\n{stdout}",
        crate::support::stderr(&out)
    );
    parse_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Checks an SDK report: every tool listed with its hints, every call done.
fn check_report(report: &Value, s: &Sandbox) {
    let tools = &report["tools"];
    for name in [
        "read", "write", "edit", "bash", "grep", "find", "ls", "agent",
    ] {
        let tool = &tools[name];
        assert_eq!(
            tool["schemaType"].as_str(),
            Some("object"),
            "{name}: {report}"
        );
        let reads = matches!(name, "read" | "grep" | "find" | "ls");
        assert_eq!(tool["readOnlyHint"].as_bool(), Some(reads), "{name}");
        assert_eq!(tool["destructiveHint"].as_bool(), Some(!reads), "{name}");
    }
    for (name, _, expect) in every_tool_call() {
        let call = &report["calls"][name];
        assert_eq!(call["isError"].as_bool(), Some(false), "{name}: {call}");
        assert!(
            call["text"].as_str().unwrap_or("").contains(expect),
            "{name}: {call}"
        );
    }
    let bash = &report["calls"]["bash"];
    assert!(bash["text"].as_str().unwrap().contains("slept"), "{bash}");
    assert!(bash["progress"].as_u64() >= Some(1), "no progress: {bash}");
    assert_eq!(
        std::fs::read_to_string(s.work.join("new.txt")).unwrap(),
        "changed by a client\n"
    );
}

#[test]
fn the_python_sdk_lists_and_calls_every_tool_over_stdio() {
    let Some(python) = python() else {
        focus_testkit::skipped("the MCP Python SDK is not installed (pip install mcp; .ci/run installs it into target/mcp-clients/venv)");
        return;
    };
    let s = project();
    let script = server_script(&s);
    let report = run_sdk(
        &python,
        &["stdio", script.to_str().unwrap(), &calls_object()],
    );
    check_report(&report, &s);
}

#[test]
fn the_python_sdk_lists_and_calls_every_tool_over_http() {
    let Some(python) = python() else {
        focus_testkit::skipped("the MCP Python SDK is not installed (pip install mcp; .ci/run installs it into target/mcp-clients/venv)");
        return;
    };
    let s = project();
    let server = HttpServer::start(&s, &["--permission-mode", "auto"]);
    let report = run_sdk(&python, &["http", &server.url, TOKEN, &calls_object()]);
    assert!(report["protocolVersion"].as_str().is_some(), "{report}");
    check_report(&report, &s);
}

/// `mcp-inspector --cli TARGET… --method …` with `rest`; its stdout.
fn run_inspector(inspector: &PathBuf, target: &[&str], rest: &[String]) -> String {
    let mut cmd = Command::new(inspector);
    cmd.arg("--cli").args(target).args(rest);
    let out = crate::support::run_command(cmd, "");
    let stdout = crate::support::stdout(&out);
    assert!(
        out.status.success(),
        "{rest:?}: {}\n{stdout}",
        crate::support::stderr(&out)
    );
    stdout
}

/// Lists and calls every tool through the Inspector at `target`.
fn inspect_every_tool(inspector: &PathBuf, target: &[&str], s: &Sandbox) {
    let listed = parse_str(&run_inspector(
        inspector,
        target,
        &["--method".into(), "tools/list".into()],
    ))
    .unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["read", "bash", "edit", "write", "grep", "find", "ls", "agent"]
    );
    for (name, args, expect) in every_tool_call() {
        let mut rest = vec![
            "--method".to_string(),
            "tools/call".into(),
            "--tool-name".into(),
            name.into(),
        ];
        let pairs: Vec<String> = args
            .as_object()
            .unwrap()
            .iter()
            .map(|(key, value)| match value.as_str() {
                Some(text) => format!("{key}={text}"),
                None => format!("{key}={}", value.to_json_string()),
            })
            .collect();
        if !pairs.is_empty() {
            rest.push("--tool-arg".into());
            rest.extend(pairs);
        }
        let result = parse_str(&run_inspector(inspector, target, &rest)).unwrap();
        assert_eq!(result["isError"].as_bool(), Some(false), "{name}: {result}");
        assert!(result.to_json_string().contains(expect), "{name}: {result}");
    }
    assert_eq!(
        std::fs::read_to_string(s.work.join("new.txt")).unwrap(),
        "changed by a client\n"
    );
}

#[test]
fn the_inspector_cli_lists_and_calls_every_tool_over_stdio() {
    let Some(inspector) = inspector() else {
        focus_testkit::skipped("the MCP Inspector is not installed (npm install @modelcontextprotocol/inspector; .ci/run installs it into target/mcp-clients/node)");
        return;
    };
    let s = project();
    let script = server_script(&s);
    inspect_every_tool(&inspector, &[script.to_str().unwrap()], &s);
}

#[test]
fn the_inspector_cli_lists_and_calls_every_tool_over_http() {
    let Some(inspector) = inspector() else {
        focus_testkit::skipped("the MCP Inspector is not installed (npm install @modelcontextprotocol/inspector; .ci/run installs it into target/mcp-clients/node)");
        return;
    };
    let mut help = Command::new(&inspector);
    help.args(["--cli", "--help"]);
    let help = crate::support::run_command(help, "");
    let text = format!(
        "{}{}",
        crate::support::stdout(&help),
        crate::support::stderr(&help)
    );
    if !text.contains("--header") {
        focus_testkit::skipped("this MCP Inspector cannot send a bearer token (no --header; newer versions need Node 22)");
        return;
    }
    let s = project();
    let server = HttpServer::start(&s, &["--permission-mode", "auto"]);
    let header = format!("Authorization: Bearer {TOKEN}");
    inspect_every_tool(
        &inspector,
        &[&server.url, "--transport", "http", "--header", &header],
        &s,
    );
}
