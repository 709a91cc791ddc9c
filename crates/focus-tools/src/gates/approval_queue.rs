//! An [`Approver`] for front ends that answer asynchronously (RPC mode): the request
//! goes out through a callback (e.g. as an `approval_request` event), the agent
//! thread waits, and the answer arrives later through [`QueuedApprover::answer`]
//! (e.g. from an `approve` command), matched by tool call id.
//!
//! [`QueuedApprover::deny_all`] releases every waiting request at once (the user
//! aborted, the client disconnected), so a waiting agent thread never outlives its
//! front end.

use super::permission::{ApprovalAnswer, ApprovalRequest, Approver};
use focus_core::json::Value;
use focus_core::sync::lock;
use std::collections::HashMap;
use std::sync::{mpsc, Mutex};

type Announce = Box<dyn Fn(&ApprovalRequest) + Send + Sync>;

/// Sends requests out through a callback and waits for answers given by call id.
pub struct QueuedApprover {
    announce: Announce,
    waiting: Mutex<HashMap<String, mpsc::Sender<ApprovalAnswer>>>,
}

impl QueuedApprover {
    /// An approver that calls `announce` for every request (it must not block).
    pub fn new(announce: impl Fn(&ApprovalRequest) + Send + Sync + 'static) -> QueuedApprover {
        QueuedApprover {
            announce: Box::new(announce),
            waiting: Mutex::new(HashMap::new()),
        }
    }

    /// Answers the request for `call_id`. Errors if no request with that id waits.
    ///
    /// # Errors
    ///
    /// No request with `call_id` waits (answered already, or never asked).
    pub fn answer(&self, call_id: &str, answer: ApprovalAnswer) -> Result<(), String> {
        let sender = lock(&self.waiting).remove(call_id);
        match sender {
            Some(tx) => tx
                .send(answer)
                .map_err(|_| format!("the request for call `{call_id}` is no longer waiting")),
            None => Err(format!(
                "no approval request is waiting for call `{call_id}`"
            )),
        }
    }

    /// The call ids waiting for an answer.
    pub fn waiting(&self) -> Vec<String> {
        lock(&self.waiting).keys().cloned().collect()
    }

    /// Denies every waiting request with `reason`.
    pub fn deny_all(&self, reason: &str) {
        for (_, tx) in lock(&self.waiting).drain() {
            let _ = tx.send(ApprovalAnswer::Deny(reason.to_string()));
        }
    }
}

impl Approver for QueuedApprover {
    fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let (tx, rx) = mpsc::channel();
        lock(&self.waiting).insert(request.call_id.clone(), tx);
        (self.announce)(request);
        rx.recv()
            .unwrap_or_else(|_| ApprovalAnswer::Deny("the approval was abandoned".to_string()))
    }
}

impl ApprovalAnswer {
    /// Reads an answer as an RPC client sends it:
    /// `{"decision": "allow" | "allow-always" | "deny", "reason": "..."}`.
    ///
    /// # Errors
    ///
    /// No `decision`, or one of another value; the message lists the accepted ones.
    pub fn from_json(value: &Value) -> Result<ApprovalAnswer, String> {
        match value["decision"].as_str() {
            Some("allow") | Some("allow-once") => Ok(ApprovalAnswer::AllowOnce),
            Some("allow-always") => Ok(ApprovalAnswer::AllowAlways),
            Some("deny") => Ok(ApprovalAnswer::Deny(
                value["reason"].as_str().unwrap_or("").to_string(),
            )),
            Some(other) => Err(format!(
                "unknown decision `{other}` (expected allow, allow-always or deny)"
            )),
            None => Err("the answer needs a `decision` string".to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;
    use std::sync::Arc;

    fn request(id: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: id.to_string(),
            tool_name: "bash".to_string(),
            arguments: Value::Null,
            summary: "rm x".to_string(),
            reason: "writes".to_string(),
            always_rule: "bash(rm:*)".to_string(),
            subagent: None,
        }
    }

    #[test]
    fn answers_arrive_by_call_id() {
        let (seen_tx, seen_rx) = mpsc::channel::<String>();
        let seen_tx = Mutex::new(seen_tx);
        let approver = Arc::new(QueuedApprover::new(move |r: &ApprovalRequest| {
            let _ = seen_tx.lock().unwrap().send(r.to_json().to_json_string());
        }));
        let waiting = approver.clone();
        let agent = std::thread::spawn(move || waiting.ask(&request("c1")));
        let announced = seen_rx.recv().unwrap();
        assert!(announced.contains("\"callId\":\"c1\""), "{announced}");
        assert!(approver.answer("nope", ApprovalAnswer::AllowOnce).is_err());
        let answer =
            ApprovalAnswer::from_json(&parse_str(r#"{"decision":"deny","reason":"no"}"#).unwrap());
        approver.answer("c1", answer.unwrap()).unwrap();
        assert_eq!(agent.join().unwrap(), ApprovalAnswer::Deny("no".into()));

        let waiting = approver.clone();
        let agent = std::thread::spawn(move || waiting.ask(&request("c2")));
        seen_rx.recv().unwrap();
        approver.deny_all("aborted");
        assert_eq!(
            agent.join().unwrap(),
            ApprovalAnswer::Deny("aborted".into())
        );
        assert!(ApprovalAnswer::from_json(&parse_str(r#"{"decision":"maybe"}"#).unwrap()).is_err());
    }
}
