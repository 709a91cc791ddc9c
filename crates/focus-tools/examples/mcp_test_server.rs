//! A small MCP server over stdio for focus's tests (std and focus-core only).
//!
//! Tools:
//! - `echo {text}` — returns the text;
//! - `image` — returns a text block and a 1×1 PNG image block;
//! - `fail` — returns a result with `isError: true`;
//! - `die` — exits (status 3) in the middle of the call, without answering;
//! - `hang` — never answers (the server keeps serving other requests);
//! - `add_tool` — adds a tool named `extra`, then sends
//!   `notifications/tools/list_changed`;
//! - `extra` (once added) — returns "extra works";
//! - `env {name}` — returns the server's environment variable `name`, or `(unset)`.
//!
//! Flags to misbehave at start:
//! - `--exit-at-start` — print to stderr and exit 1 before reading anything;
//! - `--hang-init` — never answer `initialize`;
//! - `--page-size N` — paginate `tools/list` N tools per page;
//! - `--noise` — write a log line to stderr for every message, and a line of
//!   non-JSON garbage to stdout before the first answer.
//!
//! Every `notifications/cancelled` is logged to stderr as `cancelled <requestId>`.

use focus_core::json::{parse_str, Value};
use focus_core::{json_array, json_object};
use std::io::{BufRead, Write};

/// A 1×1 transparent PNG.
const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

struct Options {
    hang_init: bool,
    page_size: usize,
    noise: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--exit-at-start") {
        eprintln!("mcp_test_server: exiting at start as asked");
        std::process::exit(1);
    }
    let options = Options {
        hang_init: args.iter().any(|a| a == "--hang-init"),
        page_size: args
            .iter()
            .position(|a| a == "--page-size")
            .and_then(|i| args.get(i + 1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX),
        noise: args.iter().any(|a| a == "--noise"),
    };
    let mut tools = vec!["echo", "image", "fail", "die", "hang", "add_tool", "env"];
    let stdin = std::io::stdin();
    let mut garbage_sent = false;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if options.noise {
            eprintln!("mcp_test_server got: {line}");
            if !garbage_sent {
                garbage_sent = true;
                send_raw("this is not JSON");
            }
        }
        let Ok(message) = parse_str(&line) else {
            eprintln!("mcp_test_server: bad JSON: {line}");
            continue;
        };
        let method = message["method"].as_str().unwrap_or("");
        let id = message["id"].clone();
        match method {
            "initialize" => {
                if options.hang_init {
                    continue;
                }
                reply(
                    &id,
                    json_object! {
                        "protocolVersion" => "2025-06-18",
                        "capabilities" => json_object! { "tools" => json_object! { "listChanged" => true } },
                        "serverInfo" => json_object! { "name" => "mcp_test_server", "version" => "1.0" },
                    },
                );
            }
            "tools/list" => {
                let start: usize = message["params"]["cursor"]
                    .as_str()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let end = start.saturating_add(options.page_size).min(tools.len());
                let page: Vec<Value> = tools[start.min(end)..end]
                    .iter()
                    .map(|t| tool_spec(t))
                    .collect();
                let mut result = json_object! { "tools" => Value::Array(page) };
                if end < tools.len() {
                    if let Some(object) = result.as_object_mut() {
                        object.insert("nextCursor", end.to_string());
                    }
                }
                reply(&id, result);
            }
            "tools/call" => {
                let name = message["params"]["name"].as_str().unwrap_or("");
                let arguments = &message["params"]["arguments"];
                match name {
                    "echo" => reply(
                        &id,
                        text_result(arguments["text"].as_str().unwrap_or(""), false),
                    ),
                    "image" => reply(
                        &id,
                        json_object! { "content" => json_array![
                            json_object! { "type" => "text", "text" => "a pixel:" },
                            json_object! { "type" => "image", "data" => PIXEL_PNG, "mimeType" => "image/png" },
                        ]},
                    ),
                    "fail" => reply(&id, text_result("it failed on purpose", true)),
                    "env" => {
                        let name = arguments["name"].as_str().unwrap_or("");
                        let value = std::env::var(name).unwrap_or_else(|_| "(unset)".into());
                        reply(&id, text_result(&value, false));
                    }
                    "die" => {
                        eprintln!("mcp_test_server: dying mid-call");
                        std::process::exit(3);
                    }
                    "hang" => {}
                    "add_tool" => {
                        if !tools.contains(&"extra") {
                            tools.push("extra");
                        }
                        reply(&id, text_result("added", false));
                        send(
                            json_object! { "jsonrpc" => "2.0", "method" => "notifications/tools/list_changed" },
                        );
                    }
                    "extra" if tools.contains(&"extra") => {
                        reply(&id, text_result("extra works", false))
                    }
                    other => send(json_object! {
                        "jsonrpc" => "2.0", "id" => id,
                        "error" => json_object! { "code" => -32602, "message" => format!("unknown tool {other}") },
                    }),
                }
            }
            "notifications/cancelled" => {
                eprintln!(
                    "cancelled {}",
                    message["params"]["requestId"].to_json_string()
                );
            }
            "ping" => reply(&id, json_object! {}),
            _ if id.is_null() => {}
            other => send(json_object! {
                "jsonrpc" => "2.0", "id" => id,
                "error" => json_object! { "code" => -32601, "message" => format!("no method {other}") },
            }),
        }
    }
}

fn tool_spec(name: &str) -> Value {
    let argument = match name {
        "echo" => Some("text"),
        "env" => Some("name"),
        _ => None,
    };
    let schema = match argument {
        Some(argument) => json_object! {
            "type" => "object",
            "properties" => json_object! { argument => json_object! { "type" => "string" } },
            "required" => json_array![argument],
        },
        None => json_object! { "type" => "object", "properties" => json_object! {} },
    };
    json_object! {
        "name" => name,
        "description" => format!("test tool {name}"),
        "inputSchema" => schema,
    }
}

fn text_result(text: &str, is_error: bool) -> Value {
    json_object! {
        "content" => json_array![json_object! { "type" => "text", "text" => text }],
        "isError" => is_error,
    }
}

fn reply(id: &Value, result: Value) {
    send(json_object! { "jsonrpc" => "2.0", "id" => id.clone(), "result" => result });
}

fn send(message: Value) {
    send_raw(&message.to_json_string());
}

fn send_raw(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
