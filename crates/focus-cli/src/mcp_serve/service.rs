//! [`Service`]: one JSON-RPC message in, its answer out, whatever transport
//! carried it. It holds the built-in tools with the permission gate (as the
//! loop's configuration, so a client's call takes a model's path), the
//! `agent` tool, and the calls in flight, so that `notifications/cancelled`
//! can stop one.

use super::agent::AgentTool;
use super::catalog;
use super::progress::Progress;
use super::protocol::{Outbox, Unreadable, MAX_MESSAGE, PROTOCOL_VERSIONS, REQUEST_CANCELLED};
use crate::args::Args;
use crate::setup::SetupError;
use focus_core::agent::AgentConfig;
use focus_core::cancel::CancelToken;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_tools::mcp::jsonrpc::{self, Incoming};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The server's state.
pub struct Service {
    /// The built-in tools and the gate; the provider is never called.
    config: AgentConfig,
    /// The `agent` tool.
    agent: AgentTool,
    /// Calls in flight by `session/id`, for `notifications/cancelled`.
    inflight: Mutex<HashMap<String, CancelToken>>,
    /// The number of the next call (its id for hooks and logs is `mcp-N`).
    calls: AtomicU64,
    /// What the tools hold (sandbox, files seen, bash spill directory): lives
    /// as long as the server.
    _tool_state: focus_tools::ToolState,
}

impl Service {
    /// The tools, gate and sandbox `args` and the settings of `cwd` say, as
    /// print mode builds them (no approver: what would ask is refused).
    pub fn build(args: &Args, cwd: &Path) -> Result<Service, SetupError> {
        let settings =
            crate::seams::settings_with(cwd, crate::seams::project_trust(args.trust_project))
                .map_err(|message| SetupError {
                    message,
                    usage: false,
                })?;
        let usage = |message| SetupError {
            message,
            usage: true,
        };
        let sandbox = crate::seams::sandbox(&settings, args.sandbox, cwd).map_err(usage)?;
        let tool_state = focus_tools::ToolState::new(Arc::clone(&sandbox));
        let all = crate::seams::builtin_tools(cwd, &settings, &tool_state);
        let tools = crate::setup::chosen_builtin_tools(args, &settings, all)?;
        let gate = crate::seams::gate(
            &settings,
            args.permission_mode.as_deref(),
            &args.headless,
            None,
            cwd,
            sandbox,
        )
        .map_err(usage)?;
        for warning in gate.warnings() {
            errln!("focus: {warning}");
        }
        // The loop's configuration, for its one-call path; no model is asked.
        let mut config = AgentConfig::new(Arc::new(crate::demo::DemoProvider::new()));
        config.tools = tools;
        config.gate = Some(gate);
        Ok(Service {
            config,
            agent: AgentTool::new(args.clone(), cwd.to_path_buf()),
            inflight: Mutex::new(HashMap::new()),
            calls: AtomicU64::new(1),
            _tool_state: tool_state,
        })
    }

    /// Answers `message` from `session` (empty over stdio); `None` for a
    /// notification or a response. Notifications the request makes while it
    /// runs go to `out`.
    pub fn handle(&self, message: &Value, session: &str, out: &dyn Outbox) -> Option<Value> {
        match jsonrpc::classify(message) {
            Incoming::Invalid { id, reason } => Some(jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                &format!("invalid JSON-RPC message: {reason}"),
            )),
            Incoming::Response { .. } => None,
            Incoming::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    self.cancel(session, &params["requestId"]);
                }
                None
            }
            Incoming::Request { id, method, params } => {
                let answer = match method {
                    "initialize" => Ok(initialize(params)),
                    "ping" => Ok(json_object! {}),
                    "tools/list" => Ok(json_object! { "tools" => self.list() }),
                    "tools/call" => self.call(id, params, session, out),
                    other => Err((
                        jsonrpc::METHOD_NOT_FOUND,
                        format!("focus does not serve `{}`", clip(other)),
                    )),
                };
                Some(match answer {
                    Ok(result) => jsonrpc::result(id.clone(), result),
                    Err((code, text)) => jsonrpc::error(id.clone(), code, &text),
                })
            }
        }
    }

    /// The answer to a message that could not be read: not JSON, or too long.
    pub fn unreadable(problem: Unreadable) -> Value {
        let (code, text) = match problem {
            Unreadable::NotJson(error) => (
                jsonrpc::PARSE_ERROR,
                format!("the message is not JSON: {error}"),
            ),
            Unreadable::TooLong(bytes) => (
                jsonrpc::INVALID_REQUEST,
                format!(
                    "the message is {bytes} bytes long; focus reads messages of at most {MAX_MESSAGE} bytes"
                ),
            ),
        };
        jsonrpc::error(Value::Null, code, &text)
    }

    /// Every tool as `tools/list` shows it.
    fn list(&self) -> Value {
        let mut tools: Vec<Value> = self
            .config
            .tools
            .iter()
            .map(|t| catalog::entry(&**t))
            .collect();
        tools.push(self.agent.entry());
        Value::Array(tools)
    }

    /// `tools/call`: the tool named, its arguments checked, run with a cancel
    /// token registered under the request's id.
    fn call(
        &self,
        id: &Value,
        params: &Value,
        session: &str,
        out: &dyn Outbox,
    ) -> Result<Value, (i64, String)> {
        let invalid = |text: String| (jsonrpc::INVALID_PARAMS, text);
        let name = params["name"]
            .as_str()
            .ok_or_else(|| invalid("tools/call needs `name`, the tool's name".into()))?;
        let arguments = match &params["arguments"] {
            Value::Null => json_object! {},
            object @ Value::Object(_) => object.clone(),
            other => {
                return Err(invalid(format!(
                    "`arguments` must be an object, not {}",
                    other.type_name()
                )))
            }
        };
        let schema = if name == super::agent::NAME {
            self.agent.schema()
        } else {
            let tool = self.config.tools.iter().find(|t| t.name() == name);
            let tool = tool.ok_or_else(|| {
                let known: Vec<&str> = self.config.tools.iter().map(|t| t.name()).collect();
                invalid(format!(
                    "unknown tool `{}`; the tools are {} and {}",
                    focus_core::tool::safe_tool_name(name),
                    known.join(", "),
                    super::agent::NAME
                ))
            })?;
            tool.parameters()
        };
        if let Err(problems) = focus_core::agent::schema::validate(&schema, &arguments) {
            return Err(invalid(format!(
                "invalid arguments for `{name}`: {}",
                problems.join("; ")
            )));
        }
        let key = inflight_key(session, id);
        let cancel = CancelToken::new();
        lock(&self.inflight).insert(key.clone(), cancel.clone());
        let progress = Progress::new(params["_meta"]["progressToken"].clone(), out);
        let result = if name == super::agent::NAME {
            self.agent.run(&arguments, &cancel, &progress)
        } else {
            let call_id = format!("mcp-{}", self.calls.fetch_add(1, Ordering::Relaxed));
            super::call::run(&self.config, call_id, name, arguments, &cancel, &progress)
        };
        lock(&self.inflight).remove(&key);
        if cancel.is_cancelled() {
            return Err((REQUEST_CANCELLED, "the request was cancelled".into()));
        }
        Ok(result)
    }

    /// `notifications/cancelled`: stops the call with that id, if it runs.
    fn cancel(&self, session: &str, request_id: &Value) {
        if let Some(token) = lock(&self.inflight).get(&inflight_key(session, request_id)) {
            token.cancel();
        }
    }

    /// How many calls run now.
    pub fn calls_in_flight(&self) -> usize {
        lock(&self.inflight).len()
    }

    /// Stops every call in flight (the server is going away).
    pub fn cancel_all(&self) {
        for token in lock(&self.inflight).values() {
            token.cancel();
        }
    }
}

/// `initialize`'s answer: the version the client asked for when focus serves
/// it, else focus's newest; tools as the one capability.
fn initialize(params: &Value) -> Value {
    let asked = params["protocolVersion"].as_str().unwrap_or("");
    let version = PROTOCOL_VERSIONS
        .iter()
        .find(|v| **v == asked)
        .unwrap_or(&PROTOCOL_VERSIONS[0]);
    json_object! {
        "protocolVersion" => *version,
        "capabilities" => json_object! { "tools" => json_object! { "listChanged" => false } },
        "serverInfo" => json_object! { "name" => "focus", "version" => env!("CARGO_PKG_VERSION") },
        "instructions" => "focus's coding tools (read, write, edit, bash, grep, find, ls) on this \
            machine's project folder, under focus's permission mode and sandbox, and `agent`, \
            which hands a whole task to a focus conversation and returns its answer.",
    }
}

/// The key of a call in flight: its session and its id as JSON (`1` and
/// `"1"` are different ids).
fn inflight_key(session: &str, id: &Value) -> String {
    format!("{session}/{}", id.to_json_string())
}

/// A client's text, cut short for an error message.
fn clip(text: &str) -> String {
    let safe = focus_tools::output::sanitize(text);
    let end = focus_core::char_boundary::floor(&safe, 100);
    safe[..end].to_string()
}
