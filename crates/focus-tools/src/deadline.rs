//! Every tool call has a deadline: [`Deadlined`] wraps a tool so that a call
//! still running when its time is up is cancelled, exactly as a user's abort
//! would cancel it, and its result says so.
//!
//! The wrapped tool sees a cancel token of its own, fired by whichever comes
//! first: the run's token (the user aborts) or the deadline. Tools check that
//! token in their loops (read, grep, find, ls between entries; bash kills its
//! process group), so a call ends soon after either. Reads never wait on a
//! special file ([`crate::open`]), so no tool sits in a blocking system call
//! the token cannot reach. The bash tool is not wrapped: its deadline is its
//! own `timeout` argument ([`crate::tool_with_limits`]).

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use focus_core::cancel::CancelToken;
use focus_core::json::Value;
use focus_core::provider::ToolSpec;
use focus_core::sync;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

/// The deadline of a call unless configured otherwise (`toolDeadlineSeconds`).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);

/// A tool whose every call is cancelled after `limit`.
pub struct Deadlined {
    inner: Arc<dyn Tool>,
    limit: Duration,
}

impl Deadlined {
    /// Wraps `inner` so that each call ends within `limit`.
    pub fn new(inner: Arc<dyn Tool>, limit: Duration) -> Deadlined {
        Deadlined { inner, limit }
    }
}

impl Tool for Deadlined {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> Value {
        self.inner.parameters()
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let own = CancelToken::new();
        let linked = own.clone();
        let _link = ctx.cancel.on_cancel(move || linked.cancel());
        let timer = Timer::start(self.limit, own.clone());
        let inner_ctx = ToolContext {
            call_id: ctx.call_id,
            cancel: &own,
            on_update: ctx.on_update,
        };
        let output = self.inner.execute(args, &inner_ctx);
        if !timer.stop() || ctx.cancel.is_cancelled() {
            return output;
        }
        let mut text = output.text_content();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!(
            "[The {} call was stopped: it reached its deadline of {} seconds. Narrow it (a smaller \
             path, a more specific pattern) or split the work into smaller calls.]",
            self.inner.name(),
            self.limit.as_secs_f64()
        ));
        ToolOutput::error(text).with_details(output.details)
    }

    fn is_read_only(&self, args: &Value) -> bool {
        self.inner.is_read_only(args)
    }

    fn runs_alone(&self, args: &Value) -> bool {
        self.inner.runs_alone(args)
    }

    fn spec(&self) -> ToolSpec {
        self.inner.spec()
    }
}

/// A thread that cancels a token when a deadline passes, unless stopped first.
struct Timer {
    state: Arc<(Mutex<TimerState>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct TimerState {
    stopped: bool,
    fired: bool,
}

impl Timer {
    fn start(limit: Duration, token: CancelToken) -> Timer {
        let state = Arc::new((Mutex::new(TimerState::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("tool-deadline".to_string())
            .spawn(move || {
                let until = Instant::now() + limit;
                let (lock, wake) = &*shared;
                let mut guard = sync::lock(lock);
                while !guard.stopped {
                    let now = Instant::now();
                    if now >= until {
                        guard.fired = true;
                        drop(guard);
                        token.cancel();
                        return;
                    }
                    guard = wake
                        .wait_timeout(guard, until - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            })
            .ok();
        Timer { state, thread }
    }

    /// Stops the timer; whether it had fired.
    fn stop(mut self) -> bool {
        let (lock, wake) = &*self.state;
        let fired = {
            let mut guard = sync::lock(lock);
            guard.stopped = true;
            guard.fired
        };
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        fired
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool that waits for its token, as a long search would.
    struct Waits;

    impl Tool for Waits {
        fn name(&self) -> &str {
            "waits"
        }
        fn description(&self) -> &str {
            "waits for cancellation"
        }
        fn parameters(&self) -> Value {
            Value::Null
        }
        fn execute(&self, _args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
            let until = Instant::now() + Duration::from_secs(60);
            while !ctx.cancel.is_cancelled() && Instant::now() < until {
                std::thread::yield_now();
            }
            ToolOutput::text(if ctx.cancel.is_cancelled() {
                "cancelled"
            } else {
                "ran to the end"
            })
        }
    }

    fn run(tool: &Deadlined, cancel: &CancelToken) -> ToolOutput {
        let ctx = ToolContext {
            call_id: "c",
            cancel,
            on_update: &|_| {},
        };
        tool.execute(&Value::Null, &ctx)
    }

    #[test]
    fn a_call_past_its_deadline_is_cancelled_and_says_so() {
        let tool = Deadlined::new(Arc::new(Waits), Duration::from_millis(50));
        let out = run(&tool, &CancelToken::new());
        assert!(out.is_error);
        let text = out.text_content();
        assert!(text.starts_with("cancelled"), "{text}");
        assert!(text.contains("deadline of 0.05 seconds"), "{text}");
    }

    #[test]
    fn the_users_abort_still_reaches_the_tool_and_is_not_called_a_deadline() {
        let tool = Deadlined::new(Arc::new(Waits), Duration::from_secs(3600));
        let cancel = CancelToken::new();
        cancel.cancel();
        let out = run(&tool, &cancel);
        assert_eq!(out.text_content(), "cancelled");
        assert!(!out.is_error);
    }
}
