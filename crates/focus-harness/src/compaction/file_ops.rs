//! Which files the summarized part of the conversation read and changed, taken from
//! the tool calls themselves (more reliable than asking the model to remember), and
//! carried from one compaction to the next in the entry's `details`.

use focus_core::json::Value;
use focus_core::message::Message;
use std::collections::BTreeSet;

/// Files touched by tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileOps {
    /// Paths passed to `read`.
    pub read: BTreeSet<String>,
    /// Paths passed to `write` or `edit`.
    pub modified: BTreeSet<String>,
}

impl FileOps {
    /// Adds the file operations of one message's tool calls.
    pub fn add_message(&mut self, message: &Message) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        for call in assistant.tool_calls() {
            let path = ["path", "file_path"]
                .iter()
                .find_map(|key| call.arguments[*key].as_str());
            let Some(path) = path else { continue };
            match call.name.as_str() {
                "read" => {
                    self.read.insert(path.to_string());
                }
                "write" | "edit" => {
                    self.modified.insert(path.to_string());
                }
                _ => {}
            }
        }
    }

    /// Adds the lists a previous compaction stored in its `details`.
    pub fn add_details(&mut self, details: &Value) {
        let strings = |key: &str| {
            details[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect::<Vec<String>>()
                })
                .unwrap_or_default()
        };
        self.read.extend(strings("readFiles"));
        self.modified.extend(strings("modifiedFiles"));
    }

    /// `(read only, modified)`, both sorted: a file that was read and then changed
    /// is listed as modified only.
    pub fn lists(&self) -> (Vec<String>, Vec<String>) {
        let read_only = self
            .read
            .iter()
            .filter(|p| !self.modified.contains(*p))
            .cloned()
            .collect();
        (read_only, self.modified.iter().cloned().collect())
    }

    /// `{"readFiles": [...], "modifiedFiles": [...]}` for the compaction entry.
    pub fn to_details(&self) -> Value {
        let (read, modified) = self.lists();
        focus_core::json_object! {
            "readFiles" => Value::Array(read.into_iter().map(Value::from).collect()),
            "modifiedFiles" => Value::Array(modified.into_iter().map(Value::from).collect()),
        }
    }

    /// The lists as tagged blocks appended to the summary text, so the model sees them.
    pub fn summary_suffix(&self) -> String {
        let (read, modified) = self.lists();
        let mut out = String::new();
        if !read.is_empty() {
            out.push_str(&format!(
                "\n\n<read-files>\n{}\n</read-files>",
                read.join("\n")
            ));
        }
        if !modified.is_empty() {
            out.push_str(&format!(
                "\n\n<modified-files>\n{}\n</modified-files>",
                modified.join("\n")
            ));
        }
        out
    }
}
