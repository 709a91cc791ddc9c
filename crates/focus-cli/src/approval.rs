//! Asking the user about a tool call. The gate (focus-tools' `Gatekeeper`) calls an
//! [`Approver`] from the agent's thread and blocks; [`ChannelApprover`] carries each
//! request into a UI loop's channel as a [`PendingApproval`] and waits for the
//! answer. The interactive UI answers from its key loop, RPC mode through the
//! `approve` command; print and JSON modes use the gates' `NonInteractiveApprover`
//! (calls needing approval are denied, and the model is told not to retry).

pub use focus_tools::gates::{ApprovalAnswer, ApprovalRequest, Approver};
use std::sync::mpsc::{Sender, SyncSender};
use std::sync::{Arc, Mutex};

/// The approver a mode hands to the gate.
pub type AskUser = Arc<dyn Approver>;

/// One question waiting in a UI loop.
pub struct PendingApproval {
    /// What the gate asks about.
    pub request: ApprovalRequest,
    reply: Sender<ApprovalAnswer>,
}

impl PendingApproval {
    /// Sends the answer to the waiting gate.
    pub fn answer(&self, answer: ApprovalAnswer) {
        let _ = self.reply.send(answer);
    }
}

/// Forwards approval requests into a channel of `T` (wrapped by `wrap`).
pub struct ChannelApprover<T> {
    sender: Mutex<SyncSender<T>>,
    wrap: fn(PendingApproval) -> T,
}

impl<T: Send> Approver for ChannelApprover<T> {
    fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let (reply, answer) = std::sync::mpsc::channel();
        let pending = PendingApproval {
            request: request.clone(),
            reply,
        };
        let sent = self
            .sender
            .lock()
            .map(|s| s.send((self.wrap)(pending)).is_ok())
            .unwrap_or(false);
        if !sent {
            return ApprovalAnswer::Deny(
                "Nobody is there to approve this call. Do not retry it.".into(),
            );
        }
        answer.recv().unwrap_or_else(|_| {
            ApprovalAnswer::Deny("The approval prompt was closed. Do not retry it.".into())
        })
    }
}

/// An approver that asks through `sender`.
pub fn ask_through<T: Send + 'static>(
    sender: SyncSender<T>,
    wrap: fn(PendingApproval) -> T,
) -> AskUser {
    Arc::new(ChannelApprover {
        sender: Mutex::new(sender),
        wrap,
    })
}
