//! `notifications/progress` for a call whose request carried a
//! `_meta.progressToken`: one when the tool reports partial output (bash's
//! lines, the agent's next tool) and one a second while it runs, each with a
//! larger `progress` number, as MCP requires. Without a token, nothing.

use super::protocol::Outbox;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_tools::mcp::jsonrpc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a running call reports that it still runs.
pub const TICK: Duration = Duration::from_secs(1);

/// The progress of one call.
pub struct Progress<'a> {
    token: Value,
    out: &'a dyn Outbox,
    /// The last `progress` number sent.
    count: Mutex<u64>,
    started: Instant,
}

impl<'a> Progress<'a> {
    /// Progress sent to `out` under `token` (`null`: none is sent).
    pub fn new(token: Value, out: &'a dyn Outbox) -> Progress<'a> {
        Progress {
            token,
            out,
            count: Mutex::new(0),
            started: Instant::now(),
        }
    }

    /// Whether the client asked for progress.
    pub fn wanted(&self) -> bool {
        self.token.as_str().is_some() || self.token.as_f64().is_some()
    }

    /// Reports one step, described by `message`.
    pub fn report(&self, message: &str) {
        if !self.wanted() {
            return;
        }
        let mut count = lock(&self.count);
        *count += 1;
        let params = json_object! {
            "progressToken" => self.token.clone(),
            "progress" => *count,
            "message" => message,
        };
        // Sent under the lock: the numbers reach the client in order.
        self.out
            .notify(jsonrpc::notification("notifications/progress", params));
    }

    /// Reports that the call still runs (the ticker's step).
    pub fn tick(&self) {
        let seconds = self.started.elapsed().as_secs();
        self.report(&format!("running for {seconds} s"));
    }

    /// Runs `work`, reporting [`Progress::tick`] every [`TICK`] until it returns.
    pub fn while_running<T>(&self, work: impl FnOnce() -> T) -> T {
        if !self.wanted() {
            return work();
        }
        let done = Mutex::new(false);
        let wake = std::sync::Condvar::new();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut finished = lock(&done);
                while !*finished {
                    let (guard, timeout) = wake
                        .wait_timeout(finished, TICK)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    finished = guard;
                    if !*finished && timeout.timed_out() {
                        self.tick();
                    }
                }
            });
            let result = work();
            *lock(&done) = true;
            wake.notify_all();
            result
        })
    }
}
