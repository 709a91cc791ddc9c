//! One MCP server: started, handshaken, its tool list kept fresh, its calls made.
//!
//! Start ([`Server::start`]): spawn the command in its own process group (stderr to
//! a log file) — or, for a server with a `url`, open an HTTP channel
//! ([`super::http`]) — send `initialize` (protocol version, capabilities, client info),
//! then `notifications/initialized`, then `tools/list` page by page. All of it is
//! bounded by the server's startup timeout; any failure leaves the server `Failed`
//! with the reason, and its tools are simply absent.
//!
//! The protocol version is negotiated: focus offers its latest
//! ([`PROTOCOL_VERSION`]) and accepts the server's answer if it is one of
//! [`SUPPORTED_PROTOCOL_VERSIONS`]; any other answer fails the start with a
//! message naming both.
//!
//! An HTTP server is reached with the streamable HTTP transport ([`super::http`]);
//! when it refuses the `initialize` POST with 404 or 405, with the older HTTP+SSE
//! transport ([`super::legacy_sse`]). When a call finds the session gone (the
//! server restarted: [`RpcError::SessionExpired`]) or the server unreachable,
//! [`Server::request`] initializes a new session once and sends the call again;
//! a server still down then becomes `Exited`: its tools leave the next request
//! and the user is warned once.
//!
//! When the server sends `notifications/tools/list_changed`, a helper thread fetches
//! the list again. When its output closes, it becomes `Exited` and every call in
//! flight fails with the reason.

use super::config::McpServerConfig;
use super::http::HttpConnection;
use super::legacy_sse::LegacySseConnection;
use super::rpc::{Connection, NotificationHandler, RpcChannel, RpcError, Wait};
use crate::sandbox::Sandbox;
use focus_core::cancel::CancelToken;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_transport::Transport;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

/// The MCP protocol version focus asks for: its latest.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The protocol versions focus speaks, newest first: a server may answer
/// `initialize` with any of them.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// Where a server is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerState {
    /// Being started.
    Starting,
    /// Handshake done; tools available.
    Running,
    /// Never became usable; the reason says why.
    Failed(String),
    /// Was running and went away; the reason says how.
    Exited(String),
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerState::Starting => write!(f, "starting"),
            ServerState::Running => write!(f, "running"),
            ServerState::Failed(reason) => write!(f, "failed: {reason}"),
            ServerState::Exited(reason) => write!(f, "exited: {reason}"),
        }
    }
}

/// A tool as a server lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteTool {
    /// Its name on the server.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its `inputSchema`.
    pub input_schema: Value,
    /// `annotations.readOnlyHint` (advisory only: focus does not trust it for
    /// permissions).
    pub read_only_hint: bool,
}

/// What a server offers besides tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offers {
    /// `resources`: things to read by URI.
    pub resources: bool,
    /// `prompts`: prompt templates to fetch by name.
    pub prompts: bool,
}

/// One configured server and its connection.
pub struct Server {
    /// The configuration it was started from.
    pub config: McpServerConfig,
    state: Mutex<ServerState>,
    tools: Mutex<Vec<RemoteTool>>,
    server_info: Mutex<String>,
    /// What the server said it offers besides tools (`resources`, `prompts`).
    offers: Mutex<Offers>,
    connection: Mutex<Option<Arc<dyn RpcChannel>>>,
    log_path: Option<PathBuf>,
    /// The sandbox a server started over stdio runs in (as its settings say).
    sandbox: Arc<Sandbox>,
    /// Bumped whenever any server's tool list changes (shared by the manager).
    generation: Arc<AtomicU64>,
    /// Warnings for the user, each pushed once (shared by the manager).
    warnings: Arc<Mutex<Vec<String>>>,
    /// A `tools/list_changed` arrived and the list has not been fetched since.
    refresh_wanted: AtomicBool,
    /// A refresh thread is running (at most one: a server flooding the
    /// notification must not make focus start a thread for each).
    refreshing: AtomicBool,
    /// The protocol version the server answered (empty before the handshake).
    protocol_version: Mutex<String>,
    /// Counts new sessions started after a lost one: calls that failed on the
    /// same session start one new session between them, not one each.
    session_epoch: AtomicU64,
    /// Held while a new session is started.
    recovering: Mutex<()>,
}

/// Why a handshake failed.
enum HandshakeError {
    /// The `initialize` POST was refused with 404 or 405: not a streamable HTTP
    /// endpoint (perhaps the older HTTP+SSE transport).
    PostRefused(String),
    /// Anything else.
    Failed(String),
}

impl HandshakeError {
    fn into_reason(self) -> String {
        match self {
            HandshakeError::PostRefused(reason) | HandshakeError::Failed(reason) => reason,
        }
    }
}

impl Server {
    /// Starts the server and waits (at most its startup timeout) until it is
    /// running or has failed.
    pub fn start(
        config: McpServerConfig,
        log_dir: Option<&Path>,
        generation: Arc<AtomicU64>,
        warnings: Arc<Mutex<Vec<String>>>,
        http: Option<Arc<dyn Transport>>,
        sandbox: Arc<Sandbox>,
    ) -> Arc<Server> {
        let log_path =
            log_dir.map(|dir| dir.join(format!("{}.log", super::sanitize(&config.name))));
        let server = Arc::new(Server {
            config,
            state: Mutex::new(ServerState::Starting),
            tools: Mutex::new(Vec::new()),
            server_info: Mutex::new(String::new()),
            offers: Mutex::new(Offers::default()),
            connection: Mutex::new(None),
            log_path,
            sandbox,
            generation,
            warnings,
            refresh_wanted: AtomicBool::new(false),
            refreshing: AtomicBool::new(false),
            protocol_version: Mutex::new(String::new()),
            session_epoch: AtomicU64::new(0),
            recovering: Mutex::new(()),
        });
        if let Err(reason) = server.connect(http) {
            server.fail(ServerState::Failed(reason));
        }
        server
    }

    /// The current state.
    pub fn state(&self) -> ServerState {
        lock(&self.state).clone()
    }

    /// The tools from the last `tools/list`.
    pub fn tools(&self) -> Vec<RemoteTool> {
        lock(&self.tools).clone()
    }

    /// `name version` from the handshake, if known.
    pub fn server_info(&self) -> String {
        lock(&self.server_info).clone()
    }

    /// The stderr log file, if one was opened.
    pub fn log_path(&self) -> Option<&Path> {
        self.log_path.as_deref()
    }

    /// The protocol version the server answered (empty before the handshake).
    pub fn protocol_version(&self) -> String {
        lock(&self.protocol_version).clone()
    }

    /// A handler that refreshes the tool list on `tools/list_changed`.
    fn notification_handler(self: &Arc<Server>) -> NotificationHandler {
        let weak: Weak<Server> = Arc::downgrade(self);
        Box::new(move |method: &str, _params: &Value| {
            if method == "notifications/tools/list_changed" {
                if let Some(server) = weak.upgrade() {
                    server.request_refresh();
                }
            }
        })
    }

    fn connect(self: &Arc<Server>, http: Option<Arc<dyn Transport>>) -> Result<(), String> {
        let deadline = Instant::now() + self.config.startup_timeout;
        let connection: Arc<dyn RpcChannel> = match (&self.config.url, http) {
            (Some(_), Some(client)) if self.config.legacy_sse => {
                return self.connect_legacy_sse(client, deadline)
            }
            (Some(url), Some(client)) => {
                let connection: Arc<dyn RpcChannel> = Arc::new(HttpConnection::new(
                    url.clone(),
                    self.config.headers.clone(),
                    client.clone(),
                    self.notification_handler(),
                ));
                *lock(&self.connection) = Some(connection.clone());
                return match self.handshake(&*connection, deadline) {
                    Ok(()) => Ok(()),
                    Err(HandshakeError::PostRefused(streamable)) => {
                        // Not a streamable HTTP endpoint: try the older transport.
                        if let Some(old) = lock(&self.connection).take() {
                            old.shutdown();
                        }
                        self.connect_legacy_sse(client, deadline).map_err(|legacy| {
                            format!(
                                "{streamable}; the older HTTP+SSE transport failed too: {legacy}"
                            )
                        })
                    }
                    Err(other) => Err(other.into_reason()),
                };
            }
            (Some(url), None) => {
                return Err(format!(
                    "the HTTP transport (`url: {url}`) needs an HTTP client, and none was given"
                ))
            }
            (None, _) => self.spawn_stdio(self.notification_handler())?,
        };
        *lock(&self.connection) = Some(connection.clone());
        self.handshake(&*connection, deadline)
            .map_err(HandshakeError::into_reason)
    }

    /// Opens the HTTP+SSE transport's event stream and shakes hands over it.
    fn connect_legacy_sse(
        self: &Arc<Server>,
        client: Arc<dyn Transport>,
        deadline: Instant,
    ) -> Result<(), String> {
        let url = self.config.url.clone().unwrap_or_default();
        let weak: Weak<Server> = Arc::downgrade(self);
        let on_close = Box::new(move |reason: String| {
            if let Some(server) = weak.upgrade() {
                server.fail(ServerState::Exited(reason));
            }
        });
        let connection = LegacySseConnection::open(
            &url,
            self.config.headers.clone(),
            client,
            Wait::until(deadline).timeout,
            self.notification_handler(),
            on_close,
        )
        .map_err(|e| format!("HTTP+SSE transport: {e}"))?;
        let connection: Arc<dyn RpcChannel> = Arc::new(connection);
        *lock(&self.connection) = Some(connection.clone());
        self.handshake(&*connection, deadline)
            .map_err(|e| format!("HTTP+SSE transport: {}", e.into_reason()))
    }

    /// Starts the configured command with its stdio as the channel.
    fn spawn_stdio(
        self: &Arc<Server>,
        on_notification: NotificationHandler,
    ) -> Result<Arc<dyn RpcChannel>, String> {
        let config = &self.config;
        let log = self.open_log();
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        command.stderr(match log.as_ref().and_then(|f| f.try_clone().ok()) {
            Some(file) => Stdio::from(file),
            None => Stdio::null(),
        });
        // A server is third-party code: it gets no inherited credential, only the
        // ones its configuration names.
        crate::secret_env::remove_secret_variables(&mut command);
        for (key, value) in &config.env {
            command.env(key, value);
        }
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        self.sandbox.confine_mcp_server(&mut command)?;
        let child = command
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", config.command))?;
        let weak: Weak<Server> = Arc::downgrade(self);
        let on_close = Box::new(move |reason: String| {
            if let Some(server) = weak.upgrade() {
                server.fail(ServerState::Exited(reason));
            }
        });
        Ok(Connection::start(child, log, on_notification, on_close))
    }

    /// `initialize`, `notifications/initialized`, `tools/list`, before `deadline`.
    fn handshake(
        &self,
        connection: &dyn RpcChannel,
        deadline: Instant,
    ) -> Result<(), HandshakeError> {
        let params = json_object! {
            "protocolVersion" => PROTOCOL_VERSION,
            "capabilities" => json_object! {},
            "clientInfo" => json_object! { "name" => "focus", "version" => env!("CARGO_PKG_VERSION") },
        };
        let result = match connection.request("initialize", params, Wait::until(deadline)) {
            Ok(result) => result,
            Err(RpcError::Server { code, message })
                if self.config.url.is_some() && matches!(code, 404 | 405) =>
            {
                return Err(HandshakeError::PostRefused(format!(
                    "initialize failed: {message}"
                )))
            }
            Err(e) => return Err(HandshakeError::Failed(format!("initialize failed: {e}"))),
        };
        let failed = |reason: String| HandshakeError::Failed(reason);
        let version = result["protocolVersion"]
            .as_str()
            .ok_or_else(|| failed("initialize answered without a protocolVersion".to_string()))?;
        if !SUPPORTED_PROTOCOL_VERSIONS.contains(&version) {
            let shown = crate::output::sanitize(version)
                .chars()
                .take(40)
                .collect::<String>();
            return Err(failed(format!(
                "the server speaks MCP protocol version `{shown}`, which focus does not support \
                 (focus asked for {PROTOCOL_VERSION} and speaks {})",
                SUPPORTED_PROTOCOL_VERSIONS.join(", ")
            )));
        }
        *lock(&self.protocol_version) = version.to_string();
        let info = &result["serverInfo"];
        *lock(&self.server_info) = format!(
            "{} {}",
            info["name"].as_str().unwrap_or("?"),
            info["version"].as_str().unwrap_or("")
        )
        .trim()
        .to_string();
        let capabilities = &result["capabilities"];
        *lock(&self.offers) = Offers {
            resources: capabilities["resources"].as_object().is_some(),
            prompts: capabilities["prompts"].as_object().is_some(),
        };
        connection
            .notify("notifications/initialized", json_object! {})
            .map_err(|e| failed(format!("cannot finish the handshake: {e}")))?;
        let tools = list_tools(connection, deadline).map_err(failed)?;
        *lock(&self.tools) = tools;
        {
            let mut state = lock(&self.state);
            if *state == ServerState::Starting {
                *state = ServerState::Running;
            }
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    fn open_log(&self) -> Option<File> {
        let path = self.log_path.as_ref()?;
        let mut file = focus_sys::private_files::open_append(path).ok()?;
        use std::io::Write;
        let _ = writeln!(
            file,
            "--- focus started `{}` ({} args) at {} ms since the epoch ---",
            self.config.command,
            self.config.args.len(),
            focus_core::message::now_ms()
        );
        Some(file)
    }

    /// Schedules [`Server::refresh_tools`] on a helper thread. Notifications that
    /// arrive while a refresh runs are coalesced into one more refresh.
    fn request_refresh(self: Arc<Server>) {
        self.refresh_wanted.store(true, Ordering::SeqCst);
        if self.refreshing.swap(true, Ordering::SeqCst) {
            return; // the running thread will see `refresh_wanted`
        }
        std::thread::spawn(move || loop {
            while self.refresh_wanted.swap(false, Ordering::SeqCst) {
                self.refresh_tools();
            }
            self.refreshing.store(false, Ordering::SeqCst);
            // A notification between the last check and the store above found
            // `refreshing` still set; take the work over again unless another
            // thread already has.
            if !self.refresh_wanted.load(Ordering::SeqCst)
                || self.refreshing.swap(true, Ordering::SeqCst)
            {
                return;
            }
        });
    }

    /// Fetches the tool list again (after `notifications/tools/list_changed`).
    pub fn refresh_tools(&self) {
        let Some(connection) = lock(&self.connection).clone() else {
            return;
        };
        let deadline = Instant::now() + self.config.request_timeout;
        if let Ok(tools) = list_tools(&*connection, deadline) {
            *lock(&self.tools) = tools;
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// What the server offers besides tools, as its `initialize` answer said.
    pub fn offers(&self) -> Offers {
        *lock(&self.offers)
    }

    /// Calls `tools/call` for `tool` with `arguments`: the raw result, or why there
    /// is none.
    ///
    /// # Errors
    ///
    /// As [`Server::request`].
    pub fn call_tool(
        &self,
        tool: &str,
        arguments: &Value,
        cancel: &CancelToken,
    ) -> Result<Value, RpcError> {
        let params = json_object! { "name" => tool, "arguments" => arguments.clone() };
        self.request("tools/call", params, cancel)
    }

    /// Sends one request (`resources/read`, `prompts/get`…) and waits for its
    /// answer, within the server's request timeout.
    ///
    /// # Errors
    ///
    /// An [`RpcError`]: the server is not running, did not answer within its timeout, the call was
    /// cancelled, or it answered with a JSON-RPC error.
    pub fn request(
        &self,
        method: &str,
        params: Value,
        cancel: &CancelToken,
    ) -> Result<Value, RpcError> {
        let connection = lock(&self.connection).clone();
        let Some(connection) = connection else {
            return Err(RpcError::Closed(match self.state() {
                ServerState::Failed(reason) | ServerState::Exited(reason) => reason,
                _ => "not started".to_string(),
            }));
        };
        let wait = Wait {
            timeout: self.config.request_timeout,
            cancel: Some(cancel),
        };
        let epoch = self.session_epoch.load(Ordering::SeqCst);
        match connection.request(method, params.clone(), wait) {
            Err(RpcError::SessionExpired(why) | RpcError::Unreachable(why)) => self
                .new_session_then(&*connection, epoch, why, || {
                    connection.request(method, params, wait)
                }),
            other => other,
        }
    }

    /// After a call found the session gone or the server unreachable: starts a
    /// new session (unless another call already did since `epoch`), then sends
    /// the call again, once. A server that cannot be reached or initialized
    /// becomes `Exited` (its tools dropped, the user warned once).
    fn new_session_then(
        &self,
        connection: &dyn RpcChannel,
        epoch: u64,
        why: String,
        retry: impl FnOnce() -> Result<Value, RpcError>,
    ) -> Result<Value, RpcError> {
        {
            let _one_at_a_time = lock(&self.recovering);
            if self.session_epoch.load(Ordering::SeqCst) == epoch {
                let deadline = Instant::now() + self.config.startup_timeout;
                if let Err(e) = self.handshake(connection, deadline) {
                    let reason =
                        format!("{why}; starting a new session failed: {}", e.into_reason());
                    self.fail(ServerState::Exited(reason.clone()));
                    return Err(RpcError::Closed(reason));
                }
                self.session_epoch.fetch_add(1, Ordering::SeqCst);
            }
        }
        match retry() {
            Err(RpcError::SessionExpired(why) | RpcError::Unreachable(why)) => {
                self.fail(ServerState::Exited(why.clone()));
                Err(RpcError::Closed(why))
            }
            other => other,
        }
    }

    /// Moves to a failed or exited state (once), drops the tools, and queues a
    /// warning for the user.
    fn fail(&self, mut new_state: ServerState) {
        {
            let mut state = lock(&self.state);
            if matches!(*state, ServerState::Failed(_) | ServerState::Exited(_)) {
                return;
            }
            // Dying during the handshake is a failure to start.
            if let (ServerState::Starting, ServerState::Exited(reason)) = (&*state, &new_state) {
                new_state = ServerState::Failed(reason.clone());
            }
            *state = new_state.clone();
        }
        let had_tools = !std::mem::take(&mut *lock(&self.tools)).is_empty();
        if had_tools {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        let log_hint = match &self.log_path {
            Some(path) => format!(" (its stderr is in {})", path.display()),
            None => String::new(),
        };
        let message = match new_state {
            ServerState::Failed(reason) => {
                format!(
                    "MCP server `{}` failed to start: {reason}{log_hint}",
                    self.config.name
                )
            }
            ServerState::Exited(reason) => {
                format!(
                    "MCP server `{}` stopped: {reason}{log_hint}",
                    self.config.name
                )
            }
            _ => return,
        };
        // Warn before shutting the connection down: that fails the calls in flight,
        // and whoever sees such a failure should also find the warning.
        lock(&self.warnings).push(message);
        if let Some(connection) = lock(&self.connection).take() {
            connection.shutdown();
        }
    }

    /// Stops the server (no warning: this is focus's own doing).
    pub fn shutdown(&self) {
        {
            let mut state = lock(&self.state);
            if !matches!(*state, ServerState::Failed(_) | ServerState::Exited(_)) {
                *state = ServerState::Exited("shut down by focus".to_string());
            }
        }
        if let Some(connection) = lock(&self.connection).take() {
            connection.shutdown();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(connection) = lock(&self.connection).take() {
            connection.shutdown();
        }
    }
}

/// `tools/list`, following `nextCursor` (at most 100 pages), before `deadline`.
fn list_tools(connection: &dyn RpcChannel, deadline: Instant) -> Result<Vec<RemoteTool>, String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let params = match &cursor {
            Some(c) => json_object! { "cursor" => c.as_str() },
            None => json_object! {},
        };
        let result = connection
            .request("tools/list", params, Wait::until(deadline))
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let items = result["tools"]
            .as_array()
            .ok_or("tools/list answered without a `tools` array")?;
        for item in items {
            let Some(name) = item["name"].as_str() else {
                continue;
            };
            tools.push(RemoteTool {
                name: name.to_string(),
                description: item["description"].as_str().unwrap_or("").to_string(),
                input_schema: item["inputSchema"].clone(),
                read_only_hint: item["annotations"]["readOnlyHint"]
                    .as_bool()
                    .unwrap_or(false),
            });
        }
        match result["nextCursor"].as_str() {
            Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
            _ => return Ok(tools),
        }
    }
    Err("tools/list returned more than 100 pages".to_string())
}
