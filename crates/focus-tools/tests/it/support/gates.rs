//! Small fakes shared by the gate tests: tools that only report their name and
//! read-only-ness, and an approver that records what it was asked.

use focus_core::json::{parse_str, Value};
use focus_core::message::{AssistantMessage, ToolCall};
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_tools::gates::{is_read_only_command, ApprovalAnswer, ApprovalRequest, Approver};
use std::sync::Mutex;

/// How a fake tool judges its calls.
#[derive(Clone, Copy)]
pub enum Kind {
    /// Always read-only (like `read`).
    Reads,
    /// Never read-only (like `write`, `edit`, an MCP tool).
    Writes,
    /// Read-only when the judge says its `command` is (like `bash`).
    Shell,
    /// A shell tool that forgot to wire the judge (always says "not read-only").
    UnwiredShell,
}

/// A tool that does nothing; only its name and read-only answer matter to the gate.
pub struct FakeTool {
    pub name: &'static str,
    pub kind: Kind,
}

impl Tool for FakeTool {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "fake"
    }
    fn parameters(&self) -> Value {
        Value::Null
    }
    fn execute(&self, _args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        ToolOutput::text("ran")
    }
    fn is_read_only(&self, args: &Value) -> bool {
        match self.kind {
            Kind::Reads => true,
            Kind::Writes | Kind::UnwiredShell => false,
            Kind::Shell => args["command"].as_str().is_some_and(is_read_only_command),
        }
    }
}

pub const READ: FakeTool = FakeTool {
    name: "read",
    kind: Kind::Reads,
};
pub const WRITE: FakeTool = FakeTool {
    name: "write",
    kind: Kind::Writes,
};
pub const EDIT: FakeTool = FakeTool {
    name: "edit",
    kind: Kind::Writes,
};
pub const BASH: FakeTool = FakeTool {
    name: "bash",
    kind: Kind::Shell,
};
pub const MCP: FakeTool = FakeTool {
    name: "github__create_issue",
    kind: Kind::Writes,
};

/// A call with JSON arguments.
pub fn call(tool: &str, args_json: &str) -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: tool.into(),
        arguments: parse_str(args_json).expect("test arguments are JSON"),
        thought_signature: None,
        invalid_arguments: None,
    }
}

/// A bash call.
pub fn bash(command: &str) -> ToolCall {
    let mut object = focus_core::json::Object::new();
    object.insert("command", command);
    ToolCall {
        id: "call_1".into(),
        name: "bash".into(),
        arguments: Value::Object(object),
        thought_signature: None,
        invalid_arguments: None,
    }
}

/// An empty assistant message (the gate does not look at it).
pub fn message() -> AssistantMessage {
    AssistantMessage::default()
}

/// An approver that gives a fixed answer and records the requests.
pub struct RecordingApprover {
    pub answer: ApprovalAnswer,
    pub asked: Mutex<Vec<ApprovalRequest>>,
}

impl RecordingApprover {
    pub fn new(answer: ApprovalAnswer) -> RecordingApprover {
        RecordingApprover {
            answer,
            asked: Mutex::new(Vec::new()),
        }
    }
    pub fn count(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

impl Approver for RecordingApprover {
    fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.asked.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "focus-gates-{tag}-{}-{}",
        std::process::id(),
        focus_core::message::now_ms()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
