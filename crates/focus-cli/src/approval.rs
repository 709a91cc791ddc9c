//! Asking the user about a tool call: the [`Decision`] they can make and the
//! [`AskUser`] callback a gate calls (from the agent's thread) to get one. The
//! interactive UI answers through its key loop, RPC mode through the `approve`
//! command, and print/JSON modes never ask (non-approved calls are denied).

use std::sync::mpsc::Sender;
use std::sync::Arc;

/// What the user decided about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run this call.
    AllowOnce,
    /// Run it, and similar calls for the rest of the session.
    AllowAlways,
    /// Do not run it; the reason is what the model reads.
    Deny(String),
}

/// Asks the user about a call described by its one-line summary and blocks until
/// they answer.
pub type AskUser = Arc<dyn Fn(&str) -> Decision + Send + Sync>;

/// One pending question, carried to the UI loop.
pub struct ApprovalRequest {
    /// The call in one line (`bash rm -rf build`).
    pub summary: String,
    reply: Sender<Decision>,
}

impl ApprovalRequest {
    /// A request whose answer goes to `reply`.
    pub fn new(summary: String, reply: Sender<Decision>) -> ApprovalRequest {
        ApprovalRequest { summary, reply }
    }

    /// Sends the answer to the waiting gate.
    pub fn answer(&self, decision: Decision) {
        let _ = self.reply.send(decision);
    }
}

/// An [`AskUser`] that forwards each question into a UI loop's channel (wrapped by
/// `wrap`) and waits for the answer. If the UI is gone, the call is denied.
pub fn ask_through<T: Send + 'static>(
    sender: Sender<T>,
    wrap: fn(ApprovalRequest) -> T,
) -> AskUser {
    let sender = std::sync::Mutex::new(sender);
    Arc::new(move |summary: &str| {
        let (reply, answer) = std::sync::mpsc::channel();
        let request = ApprovalRequest::new(summary.to_string(), reply);
        let sent = sender
            .lock()
            .map(|s| s.send(wrap(request)).is_ok())
            .unwrap_or(false);
        if !sent {
            return Decision::Deny("no one is there to approve this call".into());
        }
        answer
            .recv()
            .unwrap_or_else(|_| Decision::Deny("the approval prompt was closed".into()))
    })
}
