//! One batch of tool calls: prepare each in order (resolve the tool, validate the
//! arguments, ask the gate), run the runnable ones (in parallel on scoped threads
//! unless one must run alone), and return the results in the order the model asked.
//!
//! Every failure — unknown tool, invalid arguments, blocked call, panicking tool,
//! tool error, abort — is a tool result the model reads, never an aborted run.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::config::AgentConfig;
use super::schema::validate;
use crate::cancel::CancelToken;
use crate::event::{AgentEvent, EventSink};
use crate::message::{now_ms, AssistantMessage, ToolCall, ToolResultMessage};
use crate::provider::ToolSpec;
use crate::tool::{GateDecision, Tool, ToolContext, ToolOutput};

/// What a batch needs from the run.
pub(crate) struct Batch<'a> {
    pub config: &'a AgentConfig,
    pub specs: &'a [ToolSpec],
    pub cancel: &'a CancelToken,
    pub events: &'a EventSink<'a>,
    /// The assistant message the calls come from (shown to the gate).
    pub message: &'a AssistantMessage,
}

/// A call after preparation: ready to run, or already answered.
enum Prepared<'t> {
    Run(&'t dyn Tool),
    Done(ToolOutput),
}

/// The most tool calls of one response that run at the same time.
pub const MAX_PARALLEL_TOOLS: usize = 16;

/// The text of the result given to calls cut short by an abort.
pub const ABORTED_TEXT: &str = "Aborted by the user before this tool call finished.";

/// Runs `calls` and returns one result per call, in the same order.
///
/// Events: `ToolExecutionStart` for each call in order, updates while it runs,
/// `ToolExecutionEnd` when it finishes (in completion order when parallel).
pub(crate) fn execute_batch(batch: &Batch<'_>, calls: &[&ToolCall]) -> Vec<ToolResultMessage> {
    // Preparation is sequential and in order: the gate may ask the user, one
    // question at a time, in the order the model asked.
    let prepared: Vec<Prepared<'_>> = calls.iter().map(|call| prepare(batch, call)).collect();
    let runnable = prepared
        .iter()
        .filter(|p| matches!(p, Prepared::Run(_)))
        .count();
    let alone = prepared.iter().zip(calls).any(|(p, call)| match p {
        Prepared::Run(tool) => tool.runs_alone(&call.arguments),
        Prepared::Done(_) => false,
    });
    let outputs: Vec<ToolOutput> = if alone || runnable <= 1 {
        // In order; a call not yet started when the user aborts is not started.
        let finish = |(p, call): (Prepared<'_>, &&ToolCall)| match p {
            Prepared::Run(_) if batch.cancel.is_cancelled() => {
                end_event(batch, call, ToolOutput::error(ABORTED_TEXT))
            }
            Prepared::Run(tool) => run_one(batch, tool, call),
            Prepared::Done(output) => output,
        };
        prepared.into_iter().zip(calls).map(finish).collect()
    } else {
        // At most MAX_PARALLEL_TOOLS threads at once: a response with hundreds of
        // calls runs in waves instead of starting hundreds of threads.
        let mut outputs = Vec::with_capacity(calls.len());
        let mut prepared = prepared.into_iter();
        for wave in calls.chunks(MAX_PARALLEL_TOOLS) {
            let wave_prepared = prepared.by_ref().take(wave.len()).collect();
            outputs.extend(run_parallel(batch, wave_prepared, wave));
        }
        outputs
    };
    calls
        .iter()
        .zip(outputs)
        .map(|(call, output)| result_message(call, output))
        .collect()
}

/// Runs one call made outside a model's turn (a client of `focus mcp serve`)
/// down the path a model's calls take: the tool looked up, the arguments
/// checked against its schema, the gate asked, the tool run (a panic caught),
/// the gate's `after_call`. Every refusal is an error output, as the model
/// would read it. `on_update` sees the tool's partial outputs.
pub fn execute_one(
    config: &AgentConfig,
    call: &ToolCall,
    cancel: &CancelToken,
    on_update: &(dyn Fn(ToolOutput) + Sync),
) -> ToolOutput {
    let specs: Vec<ToolSpec> = config.tools.iter().map(|tool| tool.spec()).collect();
    // The gate is shown the message the call came in, as for a model's call.
    let message = AssistantMessage {
        content: vec![crate::message::Content::ToolCall(call.clone())],
        ..AssistantMessage::default()
    };
    let events = |event: AgentEvent| {
        if let AgentEvent::ToolExecutionUpdate { partial, .. } = event {
            on_update(partial);
        }
    };
    let batch = Batch {
        config,
        specs: &specs,
        cancel,
        events: &events,
        message: &message,
    };
    let result = execute_batch(&batch, &[call]).pop();
    result.map_or_else(
        || ToolOutput::error("internal error: the call gave no result"),
        |r| ToolOutput {
            content: r.content,
            details: r.details,
            is_error: r.is_error,
        },
    )
}

/// Runs the runnable calls on scoped threads and collects outputs in call order.
/// The last runnable call runs on the loop's own thread (one spawn fewer). Scoped
/// threads end before this returns: when the run reports its end, no tool is still
/// touching the workspace.
fn run_parallel(
    batch: &Batch<'_>,
    prepared: Vec<Prepared<'_>>,
    calls: &[&ToolCall],
) -> Vec<ToolOutput> {
    let last_runnable = prepared.iter().rposition(|p| matches!(p, Prepared::Run(_)));
    std::thread::scope(|scope| {
        let mut inline = None;
        let started: Vec<_> = prepared
            .into_iter()
            .zip(calls)
            .enumerate()
            .map(|(i, (p, call))| match p {
                Prepared::Run(tool) if Some(i) == last_runnable => {
                    inline = Some((tool, call));
                    Ok(None)
                }
                Prepared::Run(tool) => {
                    let spawned = std::thread::Builder::new()
                        .name("focus-tool".into())
                        .spawn_scoped(scope, move || run_one(batch, tool, call));
                    // No thread available: run it here rather than fail the call.
                    spawned.map(Some).map_err(|_| run_one(batch, tool, call))
                }
                Prepared::Done(output) => Err(output),
            })
            .collect();
        let mut inline_output = inline.map(|(tool, call)| run_one(batch, tool, call));
        started
            .into_iter()
            .map(|handle| match handle {
                // run_one catches the tool's panics, so a failed join is our bug.
                Ok(Some(thread)) => thread
                    .join()
                    .unwrap_or_else(|_| ToolOutput::error("internal error: tool thread failed")),
                Ok(None) => inline_output
                    .take()
                    .unwrap_or_else(|| ToolOutput::error("internal error: missing tool output")),
                Err(output) => output,
            })
            .collect()
    })
}

/// Emits `ToolExecutionStart` and decides whether the call may run.
fn prepare<'t>(batch: &Batch<'t>, call: &ToolCall) -> Prepared<'t> {
    (batch.events)(AgentEvent::ToolExecutionStart {
        call_id: call.id.to_string(),
        tool_name: call.name.to_string(),
        args: call.arguments.clone(),
    });
    let refuse = |output| Prepared::Done(end_event(batch, call, output));
    if batch.cancel.is_cancelled() {
        return refuse(ToolOutput::error(ABORTED_TEXT));
    }
    let tools = &batch.config.tools;
    let Some(index) = tools.iter().position(|tool| tool.name() == call.name) else {
        return refuse(ToolOutput::error(unknown_tool_text(&call.name, tools)));
    };
    let tool = &*tools[index];
    // Text that is not JSON is never repaired into a call: a cut-off `rm -rf ./build`
    // or half a file must not run.
    if let Some(error) = &call.invalid_arguments {
        return refuse(ToolOutput::error(invalid_json_text(&call.name, error)));
    }
    if let Err(problems) = validate(&batch.specs[index].parameters, &call.arguments) {
        let list: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
        let text = format!(
            "Invalid arguments for tool \"{}\":\n{}\n\nReceived arguments: {}\nFix the arguments and call the tool again.",
            call.name,
            list.join("\n"),
            clip(&call.arguments.to_json_string(), MAX_ECHOED_ARGUMENTS)
        );
        return refuse(ToolOutput::error(text));
    }
    let Some(gate) = &batch.config.gate else {
        return Prepared::Run(tool);
    };
    // A gate that panics fails closed: the call is not run.
    match catch_unwind(AssertUnwindSafe(|| {
        gate.before_call(call, tool, batch.message)
    })) {
        Ok(GateDecision::Allow) => Prepared::Run(tool),
        Ok(GateDecision::Block(reason)) if reason.trim().is_empty() => {
            refuse(refused_output("Tool call was blocked.".into()))
        }
        Ok(GateDecision::Block(reason)) => refuse(refused_output(reason)),
        Err(panic) => refuse(ToolOutput::error(format!(
            "Tool call was not run: the permission check failed (panic: {}).",
            panic_text(&*panic)
        ))),
    }
}

/// The result of a call the gate refused (a rule, a hook, nobody to approve
/// it): the reason as the model reads it, and `details.refused: true`, which
/// marks the call as refused for whoever sums up the run (the result record).
fn refused_output(reason: String) -> ToolOutput {
    let mut output = ToolOutput::error(reason);
    output.details = crate::json_object! {"refused" => true};
    output
}

/// Whether `output` is that of a call the gate refused (a rule, a hook,
/// nobody to approve it): its `details.refused` is `true`.
pub fn was_refused(output: &ToolOutput) -> bool {
    output.details["refused"].as_bool() == Some(true)
}

/// What the model reads when its arguments were not valid JSON.
fn invalid_json_text(tool: &str, error: &str) -> String {
    format!(
        "The arguments of this call to \"{tool}\" were not valid JSON ({error}), so the call \
         was not executed. Send the call again with complete, valid JSON arguments (split \
         large content into several calls)."
    )
}

/// Executes one validated, allowed call; catches panics; applies `after_call`.
fn run_one(batch: &Batch<'_>, tool: &dyn Tool, call: &ToolCall) -> ToolOutput {
    let on_update = |partial: ToolOutput| {
        (batch.events)(AgentEvent::ToolExecutionUpdate {
            call_id: call.id.to_string(),
            tool_name: call.name.to_string(),
            args: call.arguments.clone(),
            partial,
        });
    };
    let ctx = ToolContext {
        call_id: &call.id,
        cancel: batch.cancel,
        on_update: &on_update,
    };
    let output = catch_unwind(AssertUnwindSafe(|| tool.execute(&call.arguments, &ctx)))
        .unwrap_or_else(|panic| {
            ToolOutput::error(format!(
                "Tool \"{}\" crashed (panic: {}). This is a bug in the tool; try another approach.",
                call.name,
                panic_text(&*panic)
            ))
        });
    let output = match &batch.config.gate {
        Some(gate) => {
            let kept = output.clone();
            catch_unwind(AssertUnwindSafe(|| gate.after_call(call, tool, output))).unwrap_or(kept)
        }
        None => output,
    };
    end_event(batch, call, output)
}

/// Emits `ToolExecutionEnd` for `call` and passes `output` through.
fn end_event(batch: &Batch<'_>, call: &ToolCall, output: ToolOutput) -> ToolOutput {
    (batch.events)(AgentEvent::ToolExecutionEnd {
        call_id: call.id.to_string(),
        tool_name: call.name.to_string(),
        output: output.clone(),
    });
    output
}

/// The tool-result message answering `call`.
pub(crate) fn result_message(call: &ToolCall, output: ToolOutput) -> ToolResultMessage {
    ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content: output.content,
        details: output.details,
        is_error: output.is_error,
        timestamp: now_ms(),
    }
}

/// An error result for a call that was never run; `why` completes
/// `Tool call "name" …`.
pub(crate) fn not_executed(call: &ToolCall, why: &str) -> ToolResultMessage {
    let text = format!("Tool call \"{}\" {why}.", call.name);
    result_message(call, ToolOutput::error(text))
}

fn unknown_tool_text(name: &str, tools: &[std::sync::Arc<dyn Tool>]) -> String {
    // The name is the model's; a garbled one can be any length or hold escapes:
    // only a valid name is echoed back (`tool::valid_tool_name`).
    let name = crate::tool::safe_tool_name(name);
    if tools.is_empty() {
        return format!("Tool \"{name}\" not found: no tools are available.");
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    format!(
        "Tool \"{name}\" not found. Available tools: {}.",
        names.join(", ")
    )
}

/// How much of invalid arguments is echoed back to the model: enough to see the
/// mistake, not a whole file sent in the wrong field.
const MAX_ECHOED_ARGUMENTS: usize = 2_000;

/// `text` cut to at most `max` bytes (on a character boundary), marked when cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let end = crate::char_boundary::floor(text, max);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// The message of a caught panic (`&str` and `String` payloads; others are opaque).
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-text panic payload".to_string()
    }
}
