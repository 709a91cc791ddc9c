//! What a headless run (print and JSON modes) says at its end, read from the
//! conversation's [`RunSummary`]: the exit code ([`exit_code`], the table in
//! docs/cli.md), the result record ([`result_record`], Claude Code's
//! `--output-format json` shape plus `denied` and `files_changed`) and the
//! final answer written to `--output-last-message`'s file ([`write_last_message`]).
//! The modes only render these; the summary is the conversation's.

use crate::args::headless::Headless;
use focus_core::json::{ToJson, Value};
use focus_core::json_object;
use focus_harness::conversation::{Outcome, RunSummary};
use std::path::Path;

/// The model finished and nothing was refused.
pub const EXIT_FINISHED: i32 = 0;
/// The provider failed after its retries, or the run failed otherwise.
pub const EXIT_FAILED: i32 = crate::EXIT_FAILURE;
/// A tool call was refused (unless `--denials ok`).
pub const EXIT_REFUSED: i32 = 3;
/// The turn limit stopped the run.
pub const EXIT_TURN_LIMIT: i32 = 4;
/// The cost budget (`--max-cost`) stopped the run.
pub const EXIT_BUDGET: i32 = 5;
/// The deadline (`--deadline`) stopped the run.
pub const EXIT_DEADLINE: i32 = 6;
/// The session could not be saved.
pub const EXIT_NOT_SAVED: i32 = 7;
/// The final answer did not validate against `--output-schema`.
pub const EXIT_SCHEMA: i32 = 8;

/// The exit code for `summary`'s outcome; `aborted` is the code of the signal
/// that stopped the run (128 + its number).
pub fn exit_code(summary: &RunSummary, headless: &Headless, aborted: i32) -> i32 {
    match summary.outcome() {
        Outcome::Finished => EXIT_FINISHED,
        Outcome::Refused if headless.denials_ok => EXIT_FINISHED,
        Outcome::Refused => EXIT_REFUSED,
        Outcome::TurnLimit => EXIT_TURN_LIMIT,
        Outcome::Deadline => EXIT_DEADLINE,
        Outcome::Budget => EXIT_BUDGET,
        Outcome::SchemaInvalid => EXIT_SCHEMA,
        Outcome::Failed => EXIT_FAILED,
        Outcome::Aborted => aborted,
        Outcome::NotSaved => EXIT_NOT_SAVED,
    }
}

/// The result record: `{"type":"result","subtype":…,"is_error":…,"result":…,
/// "num_turns":…,"duration_ms":…,"duration_api_ms":…,"total_cost_usd":…,
/// "usage":…,"session_id":…,"exit_code":…,"denied":[…],"files_changed":[…]}`.
pub fn result_record(summary: &RunSummary, session_id: &str, exit_code: i32) -> Value {
    let outcome = summary.outcome();
    let denied: Vec<Value> = summary
        .denied
        .iter()
        .map(|call| {
            json_object! {
                "tool_use_id" => call.call_id.as_str(),
                "tool_name" => call.tool_name.as_str(),
                "tool_input" => focus_core::json::parse_str(&call.arguments).unwrap_or(Value::Null),
                "reason" => call.reason.as_str(),
            }
        })
        .collect();
    let files: Vec<Value> = summary
        .files_changed
        .iter()
        .map(|f| Value::from(f.as_str()))
        .collect();
    let mut record = json_object! {
        "type" => "result",
        "subtype" => outcome.as_str(),
        "is_error" => exit_code != EXIT_FINISHED,
        "result" => summary.final_text.as_str(),
        "num_turns" => summary.turns,
        "duration_ms" => summary.duration.as_millis() as u64,
        "duration_api_ms" => summary.api_duration.as_millis() as u64,
        "total_cost_usd" => summary.usage.cost.total,
        "usage" => summary.usage.to_json(),
        "session_id" => session_id,
        "exit_code" => exit_code,
        "denied" => Value::Array(denied),
        "files_changed" => Value::Array(files),
    };
    if let (Some(value), Some(object)) = (&summary.structured_output, record.as_object_mut()) {
        object.insert("structured_output", value.clone());
    }
    if let (Some(reason), Some(object)) = (&summary.end, record.as_object_mut()) {
        let text = crate::modes::print::end_reason_text(reason);
        object.insert("end_reason", text);
    }
    record
}

/// Writes the final answer to `path` (`--output-last-message`); the error
/// names the file.
pub fn write_last_message(path: &Path, summary: &RunSummary) -> Result<(), String> {
    std::fs::write(path, summary.final_text.as_bytes()).map_err(|e| {
        format!(
            "could not write the final answer to {}: {e}",
            path.display()
        )
    })
}

/// The end of a headless run, shared by print and JSON modes: writes the
/// final answer and the run's patch (`--output-diff`) where asked and returns
/// the exit code and the result record. A file that cannot be written makes
/// the run fail.
pub fn finish(engine: &crate::engine::Engine, headless: &Headless) -> (i32, Value) {
    let summary = &engine.conversation.summary;
    let mut code = exit_code(summary, headless, crate::stopped_exit_code());
    if let Some(path) = &headless.last_message {
        if let Err(error) = write_last_message(path, summary) {
            errln!("focus: {error}");
            if code == EXIT_FINISHED {
                code = EXIT_FAILED;
            }
        }
    }
    if let Some((path, start)) = &engine.diff_start {
        code = super::output_diff::finish(path, start, code);
    }
    let session_id = engine.conversation.session.lock().id().to_string();
    (code, result_record(summary, &session_id, code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::event::EndReason;
    use focus_harness::conversation::{ConversationEvent, DeniedCall};

    #[test]
    fn docs_cli_md_has_a_row_for_every_outcome() {
        let doc = include_str!("../../../../docs/cli.md");
        for (code, outcome) in [
            (EXIT_FINISHED, Outcome::Finished),
            (EXIT_FAILED, Outcome::Failed),
            (EXIT_REFUSED, Outcome::Refused),
            (EXIT_TURN_LIMIT, Outcome::TurnLimit),
            (EXIT_DEADLINE, Outcome::Deadline),
            (EXIT_BUDGET, Outcome::Budget),
            (EXIT_SCHEMA, Outcome::SchemaInvalid),
            (EXIT_NOT_SAVED, Outcome::NotSaved),
        ] {
            let row = format!("| {code} | `{}` |", outcome.as_str());
            assert!(doc.contains(&row), "docs/cli.md has no row {row}");
        }
        assert!(doc.contains(&format!("| 128 + n | `{}` |", Outcome::Aborted.as_str())));
    }

    #[test]
    fn each_outcome_has_its_code_and_denials_ok_forgives_refusals() {
        let mut summary = RunSummary::new();
        let strict = Headless::default();
        let lenient = Headless {
            denials_ok: true,
            ..Headless::default()
        };
        summary.observe(&ConversationEvent::RunEnded(EndReason::Completed));
        assert_eq!(exit_code(&summary, &strict, 143), 0);
        summary.denied.push(DeniedCall {
            call_id: "c1".into(),
            tool_name: "bash".into(),
            arguments: "{\"command\":\"rm -rf x\"}".into(),
            reason: "needs approval".into(),
        });
        assert_eq!(exit_code(&summary, &strict, 143), EXIT_REFUSED);
        assert_eq!(exit_code(&summary, &lenient, 143), 0);
        let record = result_record(&summary, "abc", EXIT_REFUSED);
        assert_eq!(record["subtype"].as_str(), Some("refused"));
        assert_eq!(record["is_error"].as_bool(), Some(true));
        assert_eq!(record["denied"][0]["tool_name"].as_str(), Some("bash"));
        assert_eq!(
            record["denied"][0]["tool_input"]["command"].as_str(),
            Some("rm -rf x")
        );
        assert_eq!(record["session_id"].as_str(), Some("abc"));
        summary.observe(&ConversationEvent::RunEnded(EndReason::TurnLimit(2)));
        assert_eq!(exit_code(&summary, &lenient, 143), EXIT_TURN_LIMIT);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Aborted));
        assert_eq!(exit_code(&summary, &strict, 143), 143);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Error("x".into())));
        assert_eq!(exit_code(&summary, &strict, 143), EXIT_FAILED);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Completed));
        summary.note_save_failure();
        assert_eq!(exit_code(&summary, &lenient, 143), EXIT_NOT_SAVED);
        summary.deadline_reached = true;
        summary.observe(&ConversationEvent::RunEnded(EndReason::Aborted));
        assert_eq!(exit_code(&summary, &lenient, 143), EXIT_DEADLINE);
    }
}
