//! Scenario files: what the mock model does on each request.
//!
//! ```json
//! {"name": "one_tool_call",
//!  "steps": [
//!    {"reply": {"text": "Let me look.", "toolCalls": [{"name": "ls", "arguments": {"path": "."}}]}},
//!    {"error": {"status": 429, "retryAfter": 0, "body": "{\"error\":{\"message\":\"slow down\"}}"}},
//!    {"reply": {"thinking": "The listing shows...", "text": "Done."}},
//!    {"cut": {"reply": {"text": "This answer will be cut"}, "afterEvents": 3}},
//!    {"reply": {"text": "A slow answer", "chunkDelayMs": 200}}
//!  ]}
//! ```
//! Step `n` answers request `n`; once the steps run out, the last one repeats.

use focus_core::json::{FromJson, FromJsonError, Value};

/// A whole scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// A short name for messages.
    pub name: String,
    /// What to do on each request, in order.
    pub steps: Vec<Step>,
}

/// What the mock model does for one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Stream a complete answer.
    Reply(Reply),
    /// Answer with an HTTP error status and body (and a `Retry-After` header, seconds).
    Error {
        /// The HTTP status.
        status: u16,
        /// The response body (usually the API's error JSON).
        body: String,
        /// Seconds for a `Retry-After` header, if any.
        retry_after: Option<u64>,
    },
    /// Stream the first `after_events` events of `reply`, then close the connection.
    Cut {
        /// The answer to start streaming.
        reply: Reply,
        /// How many SSE events to send before closing the connection.
        after_events: usize,
    },
}

/// One streamed answer.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Reply {
    /// Reasoning text, streamed before the answer.
    pub thinking: Option<String>,
    /// Answer text.
    pub text: Option<String>,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCallSpec>,
    /// Input tokens to report.
    pub input_tokens: u64,
    /// Output tokens to report.
    pub output_tokens: u64,
    /// End as if the output token limit was hit.
    pub truncated: bool,
    /// Milliseconds to wait between SSE events (0: send them at once).
    pub chunk_delay_ms: u64,
}

/// A tool call in a reply.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallSpec {
    /// The tool's name.
    pub name: String,
    /// Its arguments (an object).
    pub arguments: Value,
}

impl Scenario {
    /// The step that answers request number `request_idx` (0-based); the last step
    /// repeats once the list runs out.
    pub fn step(&self, request_idx: usize) -> Option<&Step> {
        self.steps.get(request_idx).or_else(|| self.steps.last())
    }

    /// Parses a scenario from JSON text; errors name the path of the bad field.
    pub fn parse(text: &str) -> Result<Scenario, String> {
        let value = focus_core::json::parse_str(text).map_err(|e| e.to_string())?;
        Scenario::from_json(&value).map_err(|e| e.to_string())
    }
}

impl FromJson for Scenario {
    fn from_json(v: &Value) -> Result<Scenario, FromJsonError> {
        Ok(Scenario {
            name: v.opt_field("name")?.unwrap_or_default(),
            steps: v.field("steps")?,
        })
    }
}

impl FromJson for Step {
    fn from_json(v: &Value) -> Result<Step, FromJsonError> {
        if v.get("reply").is_some() {
            return Ok(Step::Reply(v.field("reply")?));
        }
        if let Some(e) = v.get("error") {
            let inner = || -> Result<Step, FromJsonError> {
                Ok(Step::Error {
                    status: e.field("status")?,
                    body: e.opt_field("body")?.unwrap_or_default(),
                    retry_after: e.opt_field("retryAfter")?,
                })
            };
            return inner().map_err(|err| err.at_key("error"));
        }
        if let Some(c) = v.get("cut") {
            let inner = || -> Result<Step, FromJsonError> {
                Ok(Step::Cut {
                    reply: c.field("reply")?,
                    after_events: c.field("afterEvents")?,
                })
            };
            return inner().map_err(|err| err.at_key("cut"));
        }
        Err(FromJsonError::new(
            "expected one of the keys reply, error, cut",
        ))
    }
}

impl FromJson for Reply {
    fn from_json(v: &Value) -> Result<Reply, FromJsonError> {
        Ok(Reply {
            thinking: v.opt_field("thinking")?,
            text: v.opt_field("text")?,
            tool_calls: v.opt_field("toolCalls")?.unwrap_or_default(),
            input_tokens: v.opt_field("inputTokens")?.unwrap_or(100),
            output_tokens: v.opt_field("outputTokens")?.unwrap_or(20),
            truncated: v.opt_field("truncated")?.unwrap_or(false),
            chunk_delay_ms: v.opt_field("chunkDelayMs")?.unwrap_or(0),
        })
    }
}

impl FromJson for ToolCallSpec {
    fn from_json(v: &Value) -> Result<ToolCallSpec, FromJsonError> {
        Ok(ToolCallSpec {
            name: v.field("name")?,
            arguments: v
                .opt_field("arguments")?
                .unwrap_or_else(|| focus_core::json_object! {}),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_scenario_parses() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/scenarios");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).expect("fixtures/scenarios exists") {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let scenario =
                Scenario::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!scenario.steps.is_empty(), "{}", path.display());
            count += 1;
        }
        assert!(
            count >= 8,
            "expected the eight e2e scenarios, found {count}"
        );
    }

    #[test]
    fn bad_scenarios_name_the_field() {
        let err = Scenario::parse(r#"{"steps":[{"error":{"status":"x"}}]}"#).unwrap_err();
        assert_eq!(err, "steps[0].error.status: expected integer, found string");
        let err = Scenario::parse(r#"{"steps":[{"nope":1}]}"#).unwrap_err();
        assert!(err.contains("steps[0]"), "{err}");
    }
}
