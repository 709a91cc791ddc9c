//! `focus mcp serve`: focus as an MCP server for other agents and editors.
//!
//! Reading order: [`protocol`] is what every file shares about the messages
//! (the size limit, the versions, where a request's notifications go), below
//! them all; [`service`] answers one JSON-RPC message whatever carried
//! it (`initialize`, `ping`, `tools/list`, `tools/call`, the cancellation and
//! the other notifications); [`catalog`] is what `tools/list` says of each tool
//! (schema, annotations); [`call`] runs a built-in tool down the path a model's
//! call takes (schema, permission gate, tool, after-call hooks), with
//! [`progress`] reporting on a long one; [`agent`] is the `agent` tool, a
//! whole focus conversation on the harness's `Conversation::run_to_end`.
//! Two transports carry the messages: [`stdio`] (one message per line) and
//! [`http`] (MCP's Streamable HTTP on a loopback address, a bearer token
//! required). The JSON-RPC pieces are focus-tools' (`mcp::jsonrpc`), shared
//! with focus's MCP client.
//!
//! The tools run under the permission mode, rules and sandbox of the command
//! line and settings, as in print mode: a call that would need an approval is
//! refused (no client can answer focus's approval questions), never granted.

pub mod agent;
pub mod call;
pub mod catalog;
pub mod http;
pub mod progress;
pub mod protocol;
pub mod service;
pub mod stdio;

use crate::args::serve::ServeOptions;
use crate::args::Args;
use crate::setup::SetupError;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the calls in flight have to end after a termination signal
/// cancelled them.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Runs the server until its input ends (stdio) or it is stopped (HTTP);
/// the exit code. SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel every call in
/// flight (so bash's processes are killed, an agent's run aborted with its
/// session whole) and end the server.
pub fn serve(args: &Args, options: &ServeOptions, cwd: &Path) -> Result<i32, SetupError> {
    crate::terminal::signals::catch_interrupts();
    let service = service::Service::build(args, cwd)?;
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| stop_on_signal(&service, &done));
        let code = match &options.listen {
            None => Ok(stdio::serve(&service)),
            Some(address) => http::serve(&service, address, options),
        };
        done.store(true, Ordering::SeqCst);
        code
    })
}

/// Waits for a termination signal (or `done`); on one, cancels every call
/// and exits once they ended (at most [`STOP_GRACE`] later).
fn stop_on_signal(service: &service::Service, done: &AtomicBool) {
    let look = Duration::from_millis(50);
    while !done.load(Ordering::SeqCst) {
        std::thread::sleep(look);
        if crate::terminal::signals::interrupts() == 0 {
            continue;
        }
        service.cancel_all();
        let give_up = Instant::now() + STOP_GRACE;
        while service.calls_in_flight() > 0 && Instant::now() < give_up {
            std::thread::sleep(look);
        }
        std::process::exit(crate::stopped_exit_code());
    }
}
