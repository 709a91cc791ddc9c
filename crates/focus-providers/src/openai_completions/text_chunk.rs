//! The chunk a Chat Completions stream is mostly made of — one choice whose delta
//! is text and nothing else — read without building a JSON tree.
//!
//! An answer is tens of thousands of such chunks, and parsing each into a [`Value`]
//! tree (every key allocated, every object a vector) cost more than everything
//! else focus does with it. [`read_text_chunk`] walks the chunk with a
//! [`PullReader`] and borrows the text from it; anything it does not recognise (a
//! tool call, reasoning, usage, an error, a finish reason, several choices) makes
//! it give up, and the decoder reads the chunk the general way. It is a shortcut,
//! never a second meaning: a chunk it accepts reads the same both ways (the
//! conformance streams check that).
//!
//! [`Value`]: focus_core::json::Value

use focus_core::json::{PullReader, Token};
use std::borrow::Cow;

/// A chunk that only adds text to the answer.
#[derive(Debug, PartialEq)]
pub struct TextChunk<'a> {
    /// The response id (`id`), when the chunk has one.
    pub id: Option<Cow<'a, str>>,
    /// The text added (`choices[0].delta.content`).
    pub text: Cow<'a, str>,
}

/// Reads `data` as a text-only chunk, or `None` when it is anything else (the
/// caller then reads it in full).
pub fn read_text_chunk(data: &str) -> Option<TextChunk<'_>> {
    let mut r = PullReader::new(data);
    r.begin_object().ok()?;
    let mut id = None;
    let mut text = None;
    while let Some(key) = r.next_key().ok()? {
        match &*key {
            "id" => id = Some(r.read_str().ok()?),
            "choices" => text = Some(read_only_choice(&mut r)?),
            // Anything that changes more than the text is read the general way.
            "usage" | "error" if r.peek()? != Token::Null => return None,
            _ => r.skip_value().ok()?,
        }
    }
    r.finish().ok()?;
    Some(TextChunk { id, text: text? })
}

/// `[{"index":0,"delta":{"content":…},"finish_reason":null}]`: the text of the one
/// choice, when that is all it holds.
fn read_only_choice<'a>(r: &mut PullReader<'a>) -> Option<Cow<'a, str>> {
    r.begin_array().ok()?;
    if !r.next_element().ok()? {
        return None;
    }
    r.begin_object().ok()?;
    let mut text = None;
    while let Some(key) = r.next_key().ok()? {
        match &*key {
            "index" => {
                if r.read_number().ok()?.as_u64()? != 0 {
                    return None;
                }
            }
            "delta" => text = Some(read_text_delta(r)?),
            "finish_reason" | "logprobs" | "native_finish_reason" => r.read_null().ok()?,
            _ => return None,
        }
    }
    if r.next_element().ok()? {
        return None; // a second choice
    }
    text
}

/// `{"role":"assistant","content":"…"}`: the content, when the delta holds nothing
/// else.
fn read_text_delta<'a>(r: &mut PullReader<'a>) -> Option<Cow<'a, str>> {
    r.begin_object().ok()?;
    let mut text = None;
    while let Some(key) = r.next_key().ok()? {
        match &*key {
            "content" => text = Some(r.read_str().ok()?),
            "role" => {
                r.read_str().ok()?;
            }
            _ => return None,
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_chunk_is_read_and_anything_else_is_left_alone() {
        let chunk = read_text_chunk(
            r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\n"},"logprobs":null,"finish_reason":null}],"usage":null}"#,
        )
        .unwrap();
        assert_eq!(chunk.id.as_deref(), Some("c1"));
        assert_eq!(chunk.text, "a\"b\n");
        for other in [
            r#"{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","tool_calls":[]}}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"role":"assistant"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"boom"}}"#,
            r#"{"choices":[]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}]} trailing"#,
            "not json",
        ] {
            assert_eq!(read_text_chunk(other), None, "{other}");
        }
    }
}
