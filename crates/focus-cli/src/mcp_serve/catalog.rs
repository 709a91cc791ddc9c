//! What `tools/list` says of each built-in tool: its name, a title, the
//! description the model reads, its JSON Schema, and MCP's annotations, the
//! hints a client shows its user or plans by (`readOnlyHint`,
//! `destructiveHint`, `idempotentHint`, `openWorldHint`). Hints only: what
//! may run is decided by focus's permission gate, whatever a client makes of
//! them.

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::Tool;

/// The hints of one tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hints {
    /// It changes nothing.
    pub read_only: bool,
    /// What it changes may be lost (a file overwritten, a command's effects).
    pub destructive: bool,
    /// The same call twice does no more than once.
    pub idempotent: bool,
    /// It reaches beyond the project (a shell can reach anything).
    pub open_world: bool,
}

/// The hints of the built-in tool `name` (an unknown one is assumed to do
/// anything).
pub fn hints(name: &str) -> Hints {
    let reads = Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    };
    match name {
        "read" | "grep" | "find" | "ls" => reads,
        "write" => Hints {
            read_only: false,
            destructive: true,
            idempotent: true,
            open_world: false,
        },
        "edit" => Hints {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: false,
        },
        _ => Hints {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        },
    }
}

/// The tool's `tools/list` entry.
pub fn entry(tool: &dyn Tool) -> Value {
    let name = tool.name();
    describe(
        name,
        &title(name),
        tool.description(),
        tool.parameters(),
        hints(name),
    )
}

/// A `tools/list` entry from its parts.
pub fn describe(name: &str, title: &str, description: &str, schema: Value, hints: Hints) -> Value {
    json_object! {
        "name" => name,
        "title" => title,
        "description" => description,
        "inputSchema" => schema,
        "annotations" => json_object! {
            "title" => title,
            "readOnlyHint" => hints.read_only,
            "destructiveHint" => hints.destructive,
            "idempotentHint" => hints.idempotent,
            "openWorldHint" => hints.open_world,
        },
    }
}

/// A human title for a built-in tool.
fn title(name: &str) -> String {
    match name {
        "read" => "Read a file".into(),
        "write" => "Write a file".into(),
        "edit" => "Edit a file".into(),
        "bash" => "Run a shell command".into(),
        "grep" => "Search file contents".into(),
        "find" => "Find files by name".into(),
        "ls" => "List a directory".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_reading_tools_say_read_only() {
        for name in focus_tools::TOOL_NAMES {
            let h = hints(name);
            let reads = matches!(*name, "read" | "grep" | "find" | "ls");
            assert_eq!(h.read_only, reads, "{name}");
            assert_eq!(h.destructive, !reads, "{name}");
        }
        assert!(hints("bash").open_world);
        assert!(!hints("edit").idempotent);
    }
}
