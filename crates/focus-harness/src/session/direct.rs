//! The fast path for loading: a `message` entry read straight from its text into an
//! [`Entry`], with no JSON tree in between.
//!
//! Nearly every line of a big session is a user, assistant or tool-result message.
//! The general path ([`json::parse`](focus_core::json::parse) and then
//! [`Entry::from_json_lenient`]) allocates every key and string into a tree, copies
//! the strings again into the message, and frees the tree: most of a load's time.
//! Here a [`PullReader`] walks the line once; keys are compared in place and only
//! the strings the message keeps are allocated.
//!
//! **The rule that keeps this safe: when in doubt, give up.** [`message_entry`]
//! returns `None` for anything it is not sure to read exactly as the general path
//! would — another entry type, a custom role, a field of an unexpected JSON type,
//! a `null` where a value is required, invalid JSON — and the caller then reads the
//! line the general way, which also produces the error messages. So the fast path
//! never changes what a line means; it only skips work when the line is ordinary.
//! (Duplicated keys need no special care: the last one wins on both paths.)

use super::arena::TextArena;
use super::entry::{Entry, EntryKind};
use super::id_index::{IdIndex, IdKeys};
use focus_core::json::{Object, ParseError, PullReader, Token, Value};
use focus_core::message::{
    AssistantMessage, Content, Cost, Message, StopReason, ToolCall, ToolResultMessage, Usage,
    UserMessage,
};
use focus_core::shared_text::SharedText;
use std::borrow::Cow;

/// The fast path declined; the general path will read the line.
struct GiveUp;

impl From<ParseError> for GiveUp {
    fn from(_: ParseError) -> GiveUp {
        GiveUp
    }
}

type Read<T> = Result<T, GiveUp>;

/// The entry on this line if it is an ordinary `message` entry; `None` to let the
/// general path read it (see the module docs). Its texts are written into `arena`,
/// readable once it is sealed; so the entry comes with its id's hash, taken with
/// `keys` while the id was still at hand.
pub(super) fn message_entry(
    line: &str,
    arena: &mut TextArena,
    keys: &IdKeys,
) -> Option<(Entry, u64)> {
    read_entry(line, arena, keys).ok()
}

fn read_entry(line: &str, arena: &mut TextArena, keys: &IdKeys) -> Read<(Entry, u64)> {
    let mut r = PullReader::new(line);
    r.begin_object()?;
    let (mut is_message, mut id, mut parent_id, mut timestamp, mut message) =
        (false, None, None, None, None);
    let mut id_hash = 0;
    while let Some(key) = r.next_key()? {
        match &*key {
            "type" => {
                // Any other type is read the general way; give up at once.
                if r.read_str()? != "message" {
                    return Err(GiveUp);
                }
                is_message = true;
            }
            "id" => {
                // A `null` id is the general path's to reject.
                let text = r.read_str()?;
                id_hash = IdIndex::hash_with(keys, &text);
                id = Some(arena.add(&text));
            }
            "parentId" => parent_id = opt_text(&mut r, arena)?,
            "timestamp" => timestamp = opt_text(&mut r, arena)?,
            "message" => message = Some(read_message(&mut r, arena)?),
            _ => r.skip_value()?,
        }
    }
    r.finish()?;
    match (is_message, id, message) {
        (true, Some(id), Some(message)) => Ok((
            Entry {
                id,
                parent_id,
                timestamp: timestamp.unwrap_or_default(),
                kind: EntryKind::Message(message),
            },
            id_hash,
        )),
        _ => Err(GiveUp),
    }
}

/// A string, or `None` for `null`. Required fields treat `None` as "give up",
/// because the general path rejects a `null` there.
fn opt_string(r: &mut PullReader<'_>) -> Read<Option<String>> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(None);
    }
    Ok(Some(r.read_string()?))
}

/// [`opt_string`], borrowed from the line when it has no escapes.
fn opt_str<'a>(r: &mut PullReader<'a>) -> Read<Option<Cow<'a, str>>> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(None);
    }
    Ok(Some(r.read_str()?))
}

/// [`opt_string`] for a text kept in `arena`.
fn opt_text(r: &mut PullReader<'_>, arena: &mut TextArena) -> Read<Option<SharedText>> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(None);
    }
    Ok(Some(arena.read(r)?))
}

/// `true`/`false`, or `None` for `null`.
fn opt_bool(r: &mut PullReader<'_>) -> Read<Option<bool>> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(None);
    }
    Ok(Some(r.read_bool()?))
}

/// A number as `f64`, or `None` for `null`.
fn opt_f64(r: &mut PullReader<'_>) -> Read<Option<f64>> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(None);
    }
    Ok(Some(r.read_f64()?))
}

/// A token count: an integer that fits `u64` (as `Number::as_u64` takes it, which
/// is what the general path's integer conversion accepts), `0` for `null`.
fn count(r: &mut PullReader<'_>) -> Read<u64> {
    if r.peek() == Some(Token::Null) {
        r.read_null()?;
        return Ok(0);
    }
    r.read_number()?.as_u64().ok_or(GiveUp)
}

/// The fields a message may have, whatever its role; the role decides which count.
#[derive(Default)]
struct MessageFields<'a> {
    /// Borrowed from the line when it has no escapes (it is only compared).
    role: Option<Cow<'a, str>>,
    timestamp: Option<f64>,
    content: Vec<Content>,
    api: Option<SharedText>,
    provider: Option<SharedText>,
    model: Option<SharedText>,
    usage: Option<Usage>,
    stop_reason: Option<Cow<'a, str>>,
    error_message: Option<String>,
    response_id: Option<String>,
    tool_call_id: Option<SharedText>,
    tool_name: Option<SharedText>,
    details: Value,
    is_error: Option<bool>,
}

/// Mirrors `Message::from_json` for the roles `user`, `assistant` and `toolResult`.
fn read_message(r: &mut PullReader<'_>, arena: &mut TextArena) -> Read<Message> {
    r.begin_object()?;
    let mut f = MessageFields::default();
    while let Some(key) = r.next_key()? {
        match &*key {
            "role" => f.role = Some(r.read_str()?),
            "timestamp" => f.timestamp = opt_f64(r)?,
            "content" => f.content = read_content(r, arena)?,
            "api" => f.api = opt_text(r, arena)?,
            "provider" => f.provider = opt_text(r, arena)?,
            "model" => f.model = opt_text(r, arena)?,
            "usage" => f.usage = read_usage(r)?,
            "stopReason" => f.stop_reason = opt_str(r)?,
            "errorMessage" => f.error_message = opt_string(r)?,
            "responseId" => f.response_id = opt_string(r)?,
            "toolCallId" => f.tool_call_id = opt_text(r, arena)?,
            "toolName" => f.tool_name = opt_text(r, arena)?,
            "details" => f.details = r.read_value()?,
            "isError" => f.is_error = opt_bool(r)?,
            _ => r.skip_value()?,
        }
    }
    // As `Message::from_json`: a float timestamp is truncated (saturating) to u64.
    let timestamp = f.timestamp.map_or(0, |t| t as u64);
    Ok(match f.role.as_deref() {
        Some("user") => Message::User(UserMessage {
            content: f.content,
            timestamp,
        }),
        Some("assistant") => {
            let reason = f.stop_reason.as_deref().unwrap_or("stop");
            Message::Assistant(AssistantMessage {
                content: f.content,
                api: f.api.unwrap_or_default(),
                provider: f.provider.unwrap_or_default(),
                model: f.model.unwrap_or_default(),
                usage: f.usage.unwrap_or_default(),
                stop_reason: StopReason::parse(reason).ok_or(GiveUp)?,
                error_message: f.error_message,
                timestamp,
                response_id: f.response_id,
            })
        }
        Some("toolResult") => Message::ToolResult(ToolResultMessage {
            tool_call_id: f.tool_call_id.ok_or(GiveUp)?,
            tool_name: f.tool_name.unwrap_or_default(),
            content: f.content,
            details: f.details,
            is_error: f.is_error.unwrap_or(false),
            timestamp,
        }),
        // Custom roles keep their whole JSON: the general path's job.
        _ => return Err(GiveUp),
    })
}

/// `content`: a string (one text block), `null` (none) or an array of blocks.
fn read_content(r: &mut PullReader<'_>, arena: &mut TextArena) -> Read<Vec<Content>> {
    match r.peek() {
        Some(Token::String) => Ok(vec![Content::text(arena.read(r)?)]),
        Some(Token::Null) => {
            r.read_null()?;
            Ok(Vec::new())
        }
        Some(Token::Array) => {
            r.begin_array()?;
            // Most messages hold one block; a vector's first growth would make
            // room for four (a quarter of a session's memory past its texts).
            let mut blocks = Vec::with_capacity(1);
            while r.next_element()? {
                blocks.push(read_block(r, arena)?);
            }
            blocks.shrink_to_fit();
            Ok(blocks)
        }
        _ => Err(GiveUp),
    }
}

/// The fields a content block may have, whatever its type.
#[derive(Default)]
struct BlockFields<'a> {
    /// Borrowed from the line when it has no escapes (it is only compared).
    kind: Option<Cow<'a, str>>,
    text: Option<SharedText>,
    text_signature: Option<SharedText>,
    thinking: Option<SharedText>,
    thinking_signature: Option<SharedText>,
    redacted: Option<bool>,
    data: Option<SharedText>,
    mime_type: Option<String>,
    id: Option<SharedText>,
    name: Option<SharedText>,
    arguments: Value,
    thought_signature: Option<SharedText>,
}

/// Mirrors `Content::from_json`.
fn read_block(r: &mut PullReader<'_>, arena: &mut TextArena) -> Read<Content> {
    r.begin_object()?;
    let mut f = BlockFields::default();
    while let Some(key) = r.next_key()? {
        match &*key {
            "type" => f.kind = Some(r.read_str()?),
            "text" => f.text = opt_text(r, arena)?,
            "textSignature" => f.text_signature = opt_text(r, arena)?,
            "thinking" => f.thinking = opt_text(r, arena)?,
            "thinkingSignature" => f.thinking_signature = opt_text(r, arena)?,
            "redacted" => f.redacted = opt_bool(r)?,
            "data" => f.data = opt_text(r, arena)?,
            "mimeType" => f.mime_type = opt_string(r)?,
            "id" => f.id = opt_text(r, arena)?,
            "name" => f.name = opt_text(r, arena)?,
            "arguments" => f.arguments = r.read_value()?,
            "thoughtSignature" => f.thought_signature = opt_text(r, arena)?,
            _ => r.skip_value()?,
        }
    }
    Ok(match f.kind.as_deref() {
        Some("text") => Content::Text {
            text: f.text.ok_or(GiveUp)?,
            signature: f.text_signature,
        },
        Some("thinking") => Content::Thinking {
            thinking: f.thinking.ok_or(GiveUp)?,
            signature: f.thinking_signature,
            redacted: f.redacted.unwrap_or(false),
        },
        Some("image") => Content::Image {
            data: f.data.ok_or(GiveUp)?,
            mime_type: f.mime_type.ok_or(GiveUp)?,
        },
        Some("toolCall") => Content::ToolCall(ToolCall {
            id: f.id.ok_or(GiveUp)?,
            name: f.name.ok_or(GiveUp)?,
            // Absent or null arguments read as `{}`.
            arguments: match f.arguments {
                Value::Null => Value::Object(Object::new()),
                arguments => arguments,
            },
            thought_signature: f.thought_signature,
            invalid_arguments: None,
        }),
        _ => return Err(GiveUp),
    })
}

/// `usage`: `None` for `null`; an object as `Usage::from_json` reads it.
fn read_usage(r: &mut PullReader<'_>) -> Read<Option<Usage>> {
    match r.peek() {
        Some(Token::Null) => {
            r.read_null()?;
            return Ok(None);
        }
        Some(Token::Object) => {}
        _ => return Err(GiveUp),
    }
    r.begin_object()?;
    let mut usage = Usage::default();
    while let Some(key) = r.next_key()? {
        match &*key {
            "input" => usage.input = count(r)?,
            "output" => usage.output = count(r)?,
            "cacheRead" => usage.cache_read = count(r)?,
            "cacheWrite" => usage.cache_write = count(r)?,
            "totalTokens" => usage.total_tokens = count(r)?,
            // A cost that is not an object counts as no cost (as on the general path).
            "cost" if r.peek() == Some(Token::Object) => usage.cost = read_cost(r)?,
            "cost" => {
                r.skip_value()?;
                usage.cost = Cost::default();
            }
            _ => r.skip_value()?,
        }
    }
    Ok(Some(usage))
}

fn read_cost(r: &mut PullReader<'_>) -> Read<Cost> {
    r.begin_object()?;
    let mut cost = Cost::default();
    while let Some(key) = r.next_key()? {
        let slot = match &*key {
            "input" => &mut cost.input,
            "output" => &mut cost.output,
            "cacheRead" => &mut cost.cache_read,
            "cacheWrite" => &mut cost.cache_write,
            "total" => &mut cost.total,
            _ => {
                r.skip_value()?;
                continue;
            }
        };
        *slot = opt_f64(r)?.unwrap_or(0.0);
    }
    Ok(cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    /// What the general path makes of a line (an entry, or no entry).
    fn general(line: &str) -> Option<(Entry, bool)> {
        let value = parse_str(line).ok()?;
        let (entry, problem) = Entry::from_json_lenient(value).ok()?;
        Some((entry, problem.is_some()))
    }

    /// The fast path either declines or gives exactly the general path's entry
    /// (with no problem); returns whether it took the line.
    fn agrees(line: &str) -> bool {
        let (mut arena, keys) = (TextArena::new(), IdKeys::new());
        let fast = message_entry(line, &mut arena, &keys);
        drop(arena);
        match fast {
            None => false,
            Some((fast, id_hash)) => {
                assert_eq!(id_hash, IdIndex::hash_with(&keys, &fast.id), "{line}");
                assert_eq!(general(line), Some((fast, false)), "{line}");
                true
            }
        }
    }

    const ASSISTANT: &str = r#"{"type":"message","id":"16f0b8c0","parentId":"4a10a3c3","timestamp":"2026-12-02T17:16:39.917Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"a\nb","thinkingSignature":"sig"},{"type":"text","text":"t\u00e9"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"src/a.rs"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":{"input":1001,"output":50,"cacheRead":0,"cacheWrite":0,"totalTokens":1051,"cost":{"input":0.5,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.5}},"stopReason":"toolUse","timestamp":1796000000001}}"#;

    #[test]
    fn ordinary_messages_take_the_fast_path_and_match() {
        for line in [
            ASSISTANT,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"QUJD","mimeType":"image/png"}],"timestamp":1}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"out"}],"details":{"diff":[1,2]},"isError":true,"timestamp":2}}"#,
            r#"{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"plain string","timestamp":1.9e3}}"#,
            r#"{"id":"d","type":"message","message":{"content":null,"role":"assistant","usage":null,"stopReason":null,"extra":[{}]},"future":true}"#,
            r#" {"type":"message","id":"e","parentId":null,"message":{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"n","arguments":null,"thoughtSignature":"s"},{"type":"thinking","thinking":"","redacted":true}],"usage":{"input":5.0,"cost":"free"},"errorMessage":"boom","responseId":"r","stopReason":"error","timestamp":-5}} "#,
            r#"{"type":"message","id":"f","parentId":null,"message":{"role":"user","role":"toolResult","toolCallId":"k","content":[],"timestamp":1},"message":{"role":"user","content":"last wins"}}"#,
        ] {
            assert!(agrees(line), "fast path declined: {line}");
        }
    }

    #[test]
    fn every_string_of_a_message_line_lands_in_the_arena() {
        let (mut arena, keys) = (TextArena::new(), IdKeys::new());
        let (entry, _) = message_entry(ASSISTANT, &mut arena, &keys).unwrap();
        drop(arena);
        let Entry {
            id,
            parent_id: Some(parent_id),
            timestamp,
            kind: EntryKind::Message(Message::Assistant(m)),
        } = &entry
        else {
            panic!("not an assistant message: {entry:?}");
        };
        let Content::ToolCall(call) = &m.content[2] else {
            panic!("not a tool call: {:?}", m.content[2]);
        };
        let texts = [
            id,
            parent_id,
            timestamp,
            &m.api,
            &m.provider,
            &m.model,
            &call.id,
            &call.name,
        ];
        // One block, written in the order of the line: the strings lie within
        // a line's length of the first.
        let first = id.as_ptr() as usize;
        for text in texts {
            let at = text.as_ptr() as usize;
            assert!(
                at >= first && at + text.len() <= first + ASSISTANT.len(),
                "{text:?} is not in the arena's block"
            );
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_general_path() {
        for line in [
            // Other entry types, custom roles.
            r#"{"type":"label","id":"a","parentId":null,"targetId":"b","label":"x"}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"bashExecution","command":"ls"}}"#,
            // Fields the general path rejects or treats specially.
            r#"{"type":"message","id":null,"message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"a","parentId":7,"message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":[{"type":"video"}]}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":null}]}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":{"type":"text"}}}"#,
            r#"{"type":"message","id":"a","message":{"role":"assistant","stopReason":"later"}}"#,
            r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":-1}}}"#,
            r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":1.5}}}"#,
            r#"{"type":"message","id":"a","message":{"role":"toolResult","content":[]}}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","timestamp":"soon"}}"#,
            r#"{"type":"message","id":"a"}"#,
            // Invalid JSON.
            r#"{"type":"message","id":"a","message":{"role":"user","content":"x"},}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"x"}} x"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"\x"}}"#,
            "[1]",
        ] {
            assert!(!agrees(line), "fast path took: {line}");
        }
    }

    #[test]
    fn every_prefix_of_a_line_is_declined_or_agrees() {
        // Cut the line at every byte: each prefix (and each line with one byte
        // removed) is invalid or unusual in some way, and must never be misread.
        for end in 0..ASSISTANT.len() {
            if ASSISTANT.is_char_boundary(end) {
                agrees(&ASSISTANT[..end]);
                let mut without = ASSISTANT[..end].to_string();
                if let Some(rest) = ASSISTANT.get(end + 1..) {
                    without.push_str(rest);
                    agrees(&without);
                }
            }
        }
    }

    #[test]
    fn real_pi_sessions_take_the_fast_path_and_match() {
        // Reference data outside the repo; a visible skip if absent.
        let Some(dir) = focus_testkit::pi_samples_dir() else {
            return;
        };
        let listing = std::fs::read_dir(&dir).expect("the pi samples are readable");
        let mut taken = 0;
        for file in listing.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if !name.starts_with("pi-session-") {
                continue;
            }
            let text = std::fs::read_to_string(file.path()).unwrap();
            for line in text.lines().filter(|l| l.contains(r#""type":"message""#)) {
                assert!(agrees(line), "{name}: fast path declined {line}");
                taken += 1;
            }
        }
        assert!(taken > 0, "no message lines in {}", dir.display());
    }
}
