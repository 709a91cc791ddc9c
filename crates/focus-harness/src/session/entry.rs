//! The lines of a session file, as Rust types: the [`SessionHeader`] (line 1) and
//! [`Entry`] (every other line), with pi's exact JSON field names.
//!
//! An entry is a tree node: `id`, `parentId` (null for a root) and an ISO-8601
//! `timestamp`, plus the fields of its kind ([`EntryKind`]). Kinds focus does not know
//! are kept whole as [`EntryKind::Unknown`], so a newer writer's entries survive a
//! fork and never break the parent chain.

use focus_core::json::{FromJson, FromJsonError, Object, ToJson, Value};
use focus_core::message::{Content, Message};
use focus_core::shared_text::SharedText;

/// The session format version focus writes (pi's `CURRENT_SESSION_VERSION`).
pub const CURRENT_VERSION: u64 = 3;

/// Line 1 of a session file. Not a tree node.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionHeader {
    /// Format version; files without one are version 1.
    pub version: u64,
    /// The session id (a UUID).
    pub id: String,
    /// When the session was created, ISO-8601.
    pub timestamp: String,
    /// The working directory the session belongs to.
    pub cwd: String,
    /// For a fork: the path of the session file it was forked from.
    pub parent_session: Option<String>,
}

/// One tree node: a line after the header.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// 8 hex characters (older or foreign files may use longer ids).
    pub id: SharedText,
    /// The parent entry's id; `None` for a root.
    pub parent_id: Option<SharedText>,
    /// When the entry was written, ISO-8601.
    pub timestamp: SharedText,
    /// What the entry says.
    pub kind: EntryKind,
}

/// A compaction: everything on the branch before `first_kept_entry_id` is replaced
/// in the context by `summary`.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionEntry {
    /// The structured summary of what was cut.
    pub summary: String,
    /// The first entry whose message is still sent as is.
    pub first_kept_entry_id: String,
    /// Estimated context tokens before compacting.
    pub tokens_before: u64,
    /// `{readFiles, modifiedFiles}` for focus/pi compactions; anything for extensions.
    pub details: Value,
    /// Whether an extension (not the built-in summarizer) produced it.
    pub from_hook: bool,
}

/// What an entry records.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// `message`: a conversation message (user, assistant, toolResult, or a custom role).
    Message(Message),
    /// `model_change`: the user switched model.
    ModelChange {
        /// Provider name.
        provider: String,
        /// Model id (`modelId`).
        model_id: String,
    },
    /// `thinking_level_change`: the user changed the reasoning effort.
    ThinkingLevelChange {
        /// `off`, `minimal`, `low`, `medium`, `high` or `xhigh`.
        thinking_level: String,
    },
    /// `compaction`: see [`CompactionEntry`].
    Compaction(CompactionEntry),
    /// `branch_summary`: what happened on a branch the user left (`fromId` is the
    /// old leaf, or `"root"`).
    BranchSummary {
        /// The entry the user navigated away from.
        from_id: String,
        /// The summary text.
        summary: String,
        /// Extra data, not sent to the model.
        details: Value,
        /// Whether an extension produced it.
        from_hook: bool,
    },
    /// `custom`: extension state; never sent to the model.
    Custom {
        /// Which extension owns it (`customType`).
        custom_type: String,
        /// Its data.
        data: Value,
    },
    /// `custom_message`: an extension's message that is sent to the model as a user
    /// message.
    CustomMessage {
        /// Which extension owns it (`customType`).
        custom_type: String,
        /// A string, or an array of text and image blocks.
        content: Value,
        /// Whether the interface shows it.
        display: bool,
        /// Extra data, not sent to the model.
        details: Value,
    },
    /// `label`: a bookmark on another entry; `None` clears it.
    Label {
        /// The labelled entry (`targetId`).
        target_id: String,
        /// The label text.
        label: Option<String>,
    },
    /// `session_info`: session metadata; today only the display name.
    SessionInfo {
        /// The display name (`/name`).
        name: Option<String>,
    },
    /// An entry type focus does not know, or a message it could not read; kept raw,
    /// skipped for the context.
    Unknown {
        /// The `type` field.
        entry_type: String,
        /// The whole line.
        raw: Value,
    },
}

impl EntryKind {
    /// The `type` field's spelling.
    pub fn type_name(&self) -> &str {
        match self {
            EntryKind::Message(_) => "message",
            EntryKind::ModelChange { .. } => "model_change",
            EntryKind::ThinkingLevelChange { .. } => "thinking_level_change",
            EntryKind::Compaction(_) => "compaction",
            EntryKind::BranchSummary { .. } => "branch_summary",
            EntryKind::Custom { .. } => "custom",
            EntryKind::CustomMessage { .. } => "custom_message",
            EntryKind::Label { .. } => "label",
            EntryKind::SessionInfo { .. } => "session_info",
            EntryKind::Unknown { entry_type, .. } => entry_type,
        }
    }
}

impl Entry {
    /// The message, if this is a `message` entry.
    pub fn message(&self) -> Option<&Message> {
        match &self.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        }
    }
}

impl ToJson for SessionHeader {
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("type".into(), "session".into());
        o.push("version".into(), self.version.into());
        o.push("id".into(), self.id.as_str().into());
        o.push("timestamp".into(), self.timestamp.as_str().into());
        o.push("cwd".into(), self.cwd.as_str().into());
        if let Some(parent) = &self.parent_session {
            o.push("parentSession".into(), parent.as_str().into());
        }
        Value::Object(o)
    }
}

impl FromJson for SessionHeader {
    fn from_json(v: &Value) -> Result<SessionHeader, FromJsonError> {
        let kind: String = v.field("type")?;
        if kind != "session" {
            return Err(
                FromJsonError::new(format!("expected \"session\", found {kind:?}")).at_key("type"),
            );
        }
        Ok(SessionHeader {
            version: v.opt_field("version")?.unwrap_or(1),
            id: v.field("id")?,
            timestamp: v.opt_field("timestamp")?.unwrap_or_default(),
            cwd: v.opt_field("cwd")?.unwrap_or_default(),
            parent_session: v.opt_field("parentSession")?,
        })
    }
}

/// Pushes `key: value` unless the value is null (JavaScript's `JSON.stringify` drops
/// `undefined` fields the same way).
/// A custom message's fields in pi's spelling (`customType`, `content`,
/// `display`, and `details` when present): the same in its session entry and
/// in the message it adds to the context.
pub(crate) fn push_custom_message(
    o: &mut Object,
    custom_type: &str,
    content: &Value,
    display: bool,
    details: &Value,
) {
    o.push("customType".into(), custom_type.into());
    o.push("content".into(), content.clone());
    o.push("display".into(), display.into());
    push_present(o, "details", details);
}

fn push_present(o: &mut Object, key: &str, value: &Value) {
    if !value.is_null() {
        o.push(key.into(), value.clone());
    }
}

impl ToJson for Entry {
    fn to_json(&self) -> Value {
        if let EntryKind::Unknown { raw, .. } = &self.kind {
            return raw.clone();
        }
        let mut o = Object::new();
        o.push("type".into(), self.kind.type_name().into());
        o.push("id".into(), self.id.as_str().into());
        o.push("parentId".into(), self.parent_id.to_json());
        o.push("timestamp".into(), self.timestamp.as_str().into());
        match &self.kind {
            EntryKind::Message(m) => o.push("message".into(), m.to_json()),
            EntryKind::ModelChange { provider, model_id } => {
                o.push("provider".into(), provider.as_str().into());
                o.push("modelId".into(), model_id.as_str().into());
            }
            EntryKind::ThinkingLevelChange { thinking_level } => {
                o.push("thinkingLevel".into(), thinking_level.as_str().into());
            }
            EntryKind::Compaction(c) => {
                o.push("summary".into(), c.summary.as_str().into());
                o.push(
                    "firstKeptEntryId".into(),
                    c.first_kept_entry_id.as_str().into(),
                );
                o.push("tokensBefore".into(), c.tokens_before.into());
                push_present(&mut o, "details", &c.details);
                if c.from_hook {
                    o.push("fromHook".into(), true.into());
                }
            }
            EntryKind::BranchSummary {
                from_id,
                summary,
                details,
                from_hook,
            } => {
                o.push("fromId".into(), from_id.as_str().into());
                o.push("summary".into(), summary.as_str().into());
                push_present(&mut o, "details", details);
                if *from_hook {
                    o.push("fromHook".into(), true.into());
                }
            }
            EntryKind::Custom { custom_type, data } => {
                o.push("customType".into(), custom_type.as_str().into());
                push_present(&mut o, "data", data);
            }
            EntryKind::CustomMessage {
                custom_type,
                content,
                display,
                details,
            } => push_custom_message(&mut o, custom_type, content, *display, details),
            EntryKind::Label { target_id, label } => {
                o.push("targetId".into(), target_id.as_str().into());
                if let Some(label) = label {
                    o.push("label".into(), label.as_str().into());
                }
            }
            EntryKind::SessionInfo { name } => {
                if let Some(name) = name {
                    o.push("name".into(), name.as_str().into());
                }
            }
            EntryKind::Unknown { .. } => unreachable!("returned above"),
        }
        Value::Object(o)
    }
}

impl FromJson for Entry {
    /// Reads an entry. Fails only when the tree fields (`type`, `id`, `parentId`) are
    /// unusable; a known type with bad fields becomes [`EntryKind::Unknown`] through
    /// [`Entry::from_json_lenient`] instead.
    fn from_json(v: &Value) -> Result<Entry, FromJsonError> {
        let entry_type: String = v.field("type")?;
        let kind = read_kind(&entry_type, v)?;
        Ok(Entry {
            id: v.field("id")?,
            parent_id: v.opt_field("parentId")?,
            timestamp: v.opt_field("timestamp")?.unwrap_or_default(),
            kind,
        })
    }
}

impl Entry {
    /// Like [`FromJson::from_json`], but an entry whose tree fields are fine and whose
    /// own fields are not is kept as [`EntryKind::Unknown`] (with the reason), so its
    /// children stay attached to the tree.
    ///
    /// # Errors
    ///
    /// The tree fields (`type`, `id`, `parentId`, `timestamp`) are missing or malformed: then the
    /// entry cannot be placed at all.
    pub fn from_json_lenient(
        mut v: Value,
    ) -> Result<(Entry, Option<FromJsonError>), FromJsonError> {
        let entry_type: String = v.field("type")?;
        let id: String = v.field("id")?;
        let parent_id: Option<String> = v.opt_field("parentId")?;
        let timestamp: String = v.opt_field("timestamp")?.unwrap_or_default();
        let read = if entry_type == "message" {
            take_message(&mut v).map(EntryKind::Message)
        } else {
            read_kind(&entry_type, &v)
        };
        let (kind, problem) = match read {
            Ok(kind) => (kind, None),
            Err(err) => (EntryKind::Unknown { entry_type, raw: v }, Some(err)),
        };
        Ok((
            Entry {
                id: id.into(),
                parent_id: parent_id.map(SharedText::from),
                timestamp: timestamp.into(),
                kind,
            },
            problem,
        ))
    }
}

/// Reads the `message` field of a message entry, *moving* the long strings (text and
/// thinking blocks) out of the parsed JSON instead of copying them.
///
/// Loading a big session is mostly parsing and copying text; `Message::from_json`
/// reads from a borrowed value, so each string would be copied and the original
/// freed a moment later. Here the strings are taken out first, the (now small)
/// message is converted, and the strings are put into the blocks they came from
/// (a block array converts element by element, so positions match). If conversion
/// fails, they are put back, so the raw JSON kept for the unreadable entry is whole.
fn take_message(v: &mut Value) -> Result<Message, FromJsonError> {
    let role = v["message"]["role"].as_str().unwrap_or("");
    if !matches!(role, "user" | "assistant" | "toolResult") {
        // Custom roles keep their raw JSON: nothing may be taken out of it.
        return v.field("message");
    }
    let mut taken: Vec<(usize, &'static str, String)> = Vec::new();
    for_each_block_string(v, |index, key, slot| {
        taken.push((index, key, std::mem::take(slot)))
    });
    let mut message: Message = match v.field("message") {
        Ok(message) => message,
        Err(err) => {
            let mut back = taken.into_iter();
            for_each_block_string(v, |_, _, slot| {
                if let Some((_, _, text)) = back.next() {
                    *slot = text;
                }
            });
            return Err(err);
        }
    };
    let content = match &mut message {
        Message::User(m) => &mut m.content,
        Message::Assistant(m) => &mut m.content,
        Message::ToolResult(m) => &mut m.content,
        Message::Custom(_) => return Ok(message),
    };
    for (index, _, text) in taken {
        match content.get_mut(index) {
            Some(Content::Text { text: slot, .. })
            | Some(Content::Thinking { thinking: slot, .. }) => *slot = text.into(),
            _ => {}
        }
    }
    Ok(message)
}

/// Calls `visit(block index, key, string)` for the `text` of text blocks and the
/// `thinking` of thinking blocks in `v.message.content`, in order.
fn for_each_block_string(v: &mut Value, mut visit: impl FnMut(usize, &'static str, &mut String)) {
    let blocks = v
        .as_object_mut()
        .and_then(|o| o.get_mut("message"))
        .and_then(Value::as_object_mut)
        .and_then(|m| m.get_mut("content"))
        .and_then(Value::as_array_mut);
    for (index, block) in blocks.into_iter().flatten().enumerate() {
        let Some(block) = block.as_object_mut() else {
            continue;
        };
        let key = match block.get("type").and_then(Value::as_str) {
            Some("text") => "text",
            Some("thinking") => "thinking",
            _ => continue,
        };
        if let Some(Value::String(slot)) = block.get_mut(key) {
            visit(index, key, slot);
        }
    }
}

fn read_kind(entry_type: &str, v: &Value) -> Result<EntryKind, FromJsonError> {
    let details = || v.get("details").cloned().unwrap_or(Value::Null);
    Ok(match entry_type {
        "message" => EntryKind::Message(v.field("message")?),
        "model_change" => EntryKind::ModelChange {
            provider: v.field("provider")?,
            model_id: v.field("modelId")?,
        },
        "thinking_level_change" => EntryKind::ThinkingLevelChange {
            thinking_level: v.field("thinkingLevel")?,
        },
        "compaction" => EntryKind::Compaction(CompactionEntry {
            summary: v.field("summary")?,
            first_kept_entry_id: v.field("firstKeptEntryId")?,
            tokens_before: v.opt_field::<f64>("tokensBefore")?.unwrap_or(0.0) as u64,
            details: details(),
            from_hook: v.opt_field("fromHook")?.unwrap_or(false),
        }),
        "branch_summary" => EntryKind::BranchSummary {
            from_id: v.opt_field("fromId")?.unwrap_or_else(|| "root".into()),
            summary: v.field("summary")?,
            details: details(),
            from_hook: v.opt_field("fromHook")?.unwrap_or(false),
        },
        "custom" => EntryKind::Custom {
            custom_type: v.field("customType")?,
            data: v.get("data").cloned().unwrap_or(Value::Null),
        },
        "custom_message" => EntryKind::CustomMessage {
            custom_type: v.field("customType")?,
            content: v.get("content").cloned().unwrap_or(Value::Null),
            display: v.opt_field("display")?.unwrap_or(true),
            details: details(),
        },
        "label" => EntryKind::Label {
            target_id: v.field("targetId")?,
            label: v.opt_field("label")?,
        },
        "session_info" => EntryKind::SessionInfo {
            name: v.opt_field("name")?,
        },
        other => EntryKind::Unknown {
            entry_type: other.to_string(),
            raw: v.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    fn round_trip(line: &str) {
        let value = parse_str(line).unwrap();
        let entry = Entry::from_json(&value).unwrap();
        assert_eq!(entry.to_json().to_json_string(), line, "{line}");
    }

    #[test]
    fn every_known_kind_round_trips_byte_for_byte() {
        for line in [
            r#"{"type":"model_change","id":"ca258a98","parentId":null,"timestamp":"2026-12-02T14:47:26.150Z","provider":"anthropic","modelId":"claude"}"#,
            r#"{"type":"thinking_level_change","id":"a7828df2","parentId":"ca258a98","timestamp":"t","thinkingLevel":"off"}"#,
            r#"{"type":"compaction","id":"f6a7b8c9","parentId":"e5f6a7b8","timestamp":"t","summary":"Goal: x","firstKeptEntryId":"c3d4e5f6","tokensBefore":50000,"details":{"readFiles":["a"],"modifiedFiles":[]}}"#,
            r#"{"type":"branch_summary","id":"11111111","parentId":"22222222","timestamp":"t","fromId":"33333333","summary":"s","fromHook":true}"#,
            r#"{"type":"custom","id":"44444444","parentId":"11111111","timestamp":"t","customType":"ext","data":{"k":[1,2]}}"#,
            r#"{"type":"custom_message","id":"55555555","parentId":"44444444","timestamp":"t","customType":"ext","content":"hi","display":false}"#,
            r#"{"type":"label","id":"66666666","parentId":"55555555","timestamp":"t","targetId":"11111111","label":"start"}"#,
            r#"{"type":"label","id":"77777777","parentId":"66666666","timestamp":"t","targetId":"11111111"}"#,
            r#"{"type":"session_info","id":"88888888","parentId":"77777777","timestamp":"t","name":"refactor"}"#,
            r#"{"type":"future_thing","id":"99999999","parentId":null,"timestamp":"t","x":1}"#,
        ] {
            round_trip(line);
        }
    }

    #[test]
    fn message_strings_are_moved_not_lost() {
        let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"hello"},{"type":"toolCall","id":"c","name":"n","arguments":{}}],"stopReason":"toolUse","timestamp":1}}"#;
        let (entry, problem) = Entry::from_json_lenient(parse_str(line).unwrap()).unwrap();
        assert!(problem.is_none());
        assert_eq!(entry, Entry::from_json(&parse_str(line).unwrap()).unwrap());
        assert_eq!(
            entry.message().unwrap().as_assistant().unwrap().text(),
            "hello"
        );
        // A block the converter rejects: the raw JSON kept for the entry is whole.
        let bad = r#"{"type":"message","id":"b","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"keep me"},{"type":"video"}]}}"#;
        let (entry, problem) = Entry::from_json_lenient(parse_str(bad).unwrap()).unwrap();
        assert!(problem.is_some());
        let EntryKind::Unknown { raw, .. } = &entry.kind else {
            panic!("kept raw")
        };
        assert_eq!(raw.to_json_string(), bad);
    }

    #[test]
    fn bad_fields_of_a_known_kind_keep_the_node() {
        let v =
            parse_str(r#"{"type":"model_change","id":"a","parentId":"b","provider":7}"#).unwrap();
        let (entry, problem) = Entry::from_json_lenient(v).unwrap();
        assert_eq!(entry.parent_id.as_deref(), Some("b"));
        assert!(matches!(entry.kind, EntryKind::Unknown { .. }));
        assert_eq!(
            problem.unwrap().to_string(),
            "provider: expected string, found number"
        );
        let no_id = parse_str(r#"{"type":"label","parentId":null}"#).unwrap();
        assert!(Entry::from_json_lenient(no_id).is_err());
    }
}
