//! Print mode, text flavour: the answer streams to stdout as it arrives; thinking
//! and tool activity go to stderr, one short line each, so `focus -p … > out.txt`
//! captures only the answer. A run that ends in an error exits non-zero with the
//! provider's message on stderr.
//!
//! The one call into the harness: [`Conversation::run_to_end`](focus_harness::conversation::Conversation::run_to_end),
//! which runs a prompt with everything that follows it (compaction, the retry
//! after an overflow) and hands each [`ConversationEvent`] to the printer.

use crate::args::headless::Headless;
use crate::engine::Engine;
use crate::terminal::style::Style;
use crate::terminal::STDERR;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{Message, StopReason};
use focus_core::provider::StreamEvent;
use focus_harness::conversation::{ConversationEvent, RunSummary};
use std::io::Write;

/// Runs `prompts` one after another and prints the answers (or, with
/// `--output-format json`, only the result record at the end); returns the
/// exit code (docs/cli.md's table, [`outcome`](super::outcome)).
pub fn run(engine: &mut Engine, prompts: Vec<Message>, headless: &Headless) -> i32 {
    let mut printer = TextPrinter::new(Style::for_fd(STDERR));
    printer.answer_to_stdout = !headless.result_json;
    for prompt in prompts {
        let outcome = engine
            .conversation
            .run_to_end(vec![prompt], &mut |event| printer.conversation_event(event));
        printer.finish_line();
        match outcome.reason {
            EndReason::Completed => {}
            // The conversation's warning said why.
            EndReason::Aborted if engine.conversation.summary.deadline_reached => break,
            EndReason::Aborted => {
                errln!("focus: aborted");
                break;
            }
            other => {
                errln!(
                    "{}",
                    printer
                        .err_style
                        .red(&format!("focus: {}", end_reason_text(&other)))
                );
                break;
            }
        }
    }
    let (code, record) = super::outcome::finish(engine, headless);
    if headless.result_json {
        super::json::write_line(&record);
    } else if let Some(note) = refusal_note(&engine.conversation.summary, code) {
        errln!("{}", printer.err_style.yellow(&note));
    }
    code
}

/// The line on stderr when refused calls decide the exit code: how many,
/// the first one named, and how to allow them.
fn refusal_note(summary: &RunSummary, code: i32) -> Option<String> {
    let first = summary.denied.first()?;
    if code != super::outcome::EXIT_REFUSED {
        return None;
    }
    let args = focus_core::json::parse_str(&first.arguments).unwrap_or_default();
    Some(format!(
        "focus: {} tool call(s) refused (first: {}); allow with --allow RULE or a permission rule, or pass --denials ok",
        summary.denied.len(),
        tool_summary(&first.tool_name, &args)
    ))
}

/// The user-facing sentence for how a run ended.
pub fn end_reason_text(reason: &EndReason) -> String {
    match reason {
        EndReason::Completed => "completed".into(),
        EndReason::Aborted => "aborted".into(),
        // The provider's message comes from the network.
        EndReason::Error(message) => focus_tools::output::sanitize(message).into_owned(),
        EndReason::TurnLimit(n) => format!(
            "stopped after {n} model calls for one prompt (the turn limit); ask again to continue"
        ),
        EndReason::CircuitBreaker(n) => format!(
            "stopped: every tool call failed in {n} turns in a row; check the tool errors above"
        ),
        EndReason::StopHookLimit(n) => format!(
            "stopped: a Stop hook kept this prompt going {n} times and asked for more (the loop \
             guard); check the hook, or send a message to go on"
        ),
    }
}

/// Writes text deltas to stdout and a line per thinking block and tool call to stderr.
pub struct TextPrinter {
    /// Styles for stderr.
    pub err_style: Style,
    /// Whether stdout's last byte was not a newline.
    mid_line: bool,
    /// Whether anything was printed for the current assistant message.
    printed_in_message: bool,
    /// Whether stdout is a terminal (then the answer is cleaned, see [`answer_text`]).
    stdout_is_terminal: bool,
    /// Whether the answer streams to stdout (not with `--output-format json`,
    /// where stdout holds only the result record).
    pub answer_to_stdout: bool,
}

/// The answer text as printed: as the model wrote it when piped, but with escape
/// sequences and control characters removed when it goes to a terminal, where
/// a model repeating a hostile file could otherwise retitle the window, hide
/// text or write to the clipboard.
pub fn answer_text(delta: &str, to_terminal: bool) -> std::borrow::Cow<'_, str> {
    if to_terminal {
        focus_tools::output::sanitize(delta)
    } else {
        std::borrow::Cow::Borrowed(delta)
    }
}

impl TextPrinter {
    /// A printer with styles for stderr (the answer on stdout is printed as the
    /// model wrote it, so it can be piped).
    pub fn new(err_style: Style) -> TextPrinter {
        TextPrinter {
            err_style,
            mid_line: false,
            printed_in_message: false,
            stdout_is_terminal: std::io::IsTerminal::is_terminal(&std::io::stdout()),
            answer_to_stdout: true,
        }
    }

    /// Handles one event of the conversation: the run's, a compaction between
    /// runs, a warning.
    pub fn conversation_event(&mut self, event: &ConversationEvent) {
        match event {
            ConversationEvent::Agent(event) => self.event(event),
            ConversationEvent::Warning(warning) => {
                self.finish_line();
                let warning = focus_tools::output::sanitize(warning);
                errln!("{}", self.err_style.yellow(&format!("focus: {warning}")));
            }
            other => {
                if let Some(event) = other.compaction() {
                    self.event(&event);
                }
            }
        }
    }

    /// Handles one event of the run.
    pub fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::MessageStart {
                message: Message::Assistant(_),
            } => {
                self.printed_in_message = false;
            }
            AgentEvent::MessageUpdate { event, .. } => match event {
                StreamEvent::TextDelta { .. } if !self.answer_to_stdout => {}
                StreamEvent::TextDelta { delta, .. } => {
                    let delta = answer_text(delta, self.stdout_is_terminal);
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(delta.as_bytes());
                    let _ = out.flush();
                    self.mid_line = !delta.ends_with('\n');
                    self.printed_in_message = true;
                }
                StreamEvent::ThinkingStart { .. } => {
                    self.finish_line();
                    errln!("{}", self.err_style.dim("thinking…"));
                }
                _ => {}
            },
            // Separate the text of successive turns; a note on an answer that
            // otherwise succeeded (server events skipped) goes to stderr.
            AgentEvent::MessageEnd {
                message: Message::Assistant(m),
            } => {
                if self.printed_in_message {
                    self.finish_line();
                }
                let failed = matches!(m.stop_reason, StopReason::Error | StopReason::Aborted);
                if let (Some(note), false) = (&m.error_message, failed) {
                    let note = focus_tools::output::sanitize(note);
                    errln!(
                        "{}",
                        self.err_style.yellow(&format!("focus: warning: {note}"))
                    );
                }
            }
            AgentEvent::AutoRetryStart { .. } => {
                self.finish_line();
                if let Some(line) = retry_notice(event) {
                    errln!("{}", self.err_style.yellow(&line));
                }
            }
            AgentEvent::CompactionStart { .. } | AgentEvent::CompactionEnd { .. } => {
                self.finish_line();
                let note = compaction_note(event);
                if let Some(note) = note {
                    errln!("{}", self.err_style.dim(&note));
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => {
                self.finish_line();
                errln!(
                    "{}",
                    self.err_style
                        .blue(&format!("→ {}", tool_summary(tool_name, args)))
                );
            }
            AgentEvent::ToolExecutionEnd {
                output, tool_name, ..
            } if output.is_error => {
                let text = output.text_content();
                let mut lines = failure_lines(&text).into_iter();
                errln!(
                    "{}",
                    self.err_style.red(&format!(
                        "  {} failed: {}",
                        focus_core::tool::safe_tool_name(tool_name),
                        lines.next().unwrap_or_default()
                    ))
                );
                for line in lines {
                    errln!("{}", self.err_style.red(&format!("    {line}")));
                }
            }
            _ => {}
        }
    }

    /// Ends the current stdout line if text was left without a newline.
    pub fn finish_line(&mut self) {
        if self.mid_line {
            outln!();
            self.mid_line = false;
        }
    }
}

/// Lines of a failed call's text shown on stderr.
pub const FAILURE_LINES: usize = 8;
/// Columns of each such line.
pub const FAILURE_COLUMNS: usize = 300;

/// A failed call's text as print mode shows it: its first `FAILURE_LINES`
/// non-empty lines, each cleaned and clipped to `FAILURE_COLUMNS`, then how
/// many more there were. A reason (a hook's, a permission's) is a line or a few,
/// and reaches the user whole; a failed command's long output is cut.
pub fn failure_lines(text: &str) -> Vec<String> {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut shown: Vec<String> = all
        .iter()
        .take(FAILURE_LINES)
        .map(|l| clip(l.trim_end(), FAILURE_COLUMNS))
        .collect();
    if all.len() > FAILURE_LINES {
        shown.push(format!("… {} more lines", all.len() - FAILURE_LINES));
    }
    shown
}

/// One line describing a tool call: the name and its most telling argument.
pub fn tool_summary(tool_name: &str, args: &focus_core::json::Value) -> String {
    // The name is the model's: a hostile one (escapes, 100 KB) is never shown.
    let tool_name = focus_core::tool::safe_tool_name(tool_name);
    let key = ["command", "path", "pattern", "file_path", "url", "query"]
        .into_iter()
        .find(|k| args[*k].as_str().is_some());
    match key {
        Some(k) => format!("{tool_name} {}", clip(args[k].as_str().unwrap_or(""), 120)),
        None => {
            let json = args.to_json_string();
            if json == "{}" || json == "null" {
                tool_name.to_string()
            } else {
                format!("{tool_name} {}", clip(&json, 120))
            }
        }
    }
}

/// `text` on one line in at most `max` columns, with `…` when cut. Escape
/// sequences and control characters are removed and hidden format characters
/// (a right-to-left override, a zero-width space) written out: what is clipped
/// (tool arguments, tool output, session titles) comes from a model or a file.
/// (The terminal kit's [`clip`](focus_tui::printable::clip).)
pub fn clip(text: &str, max: usize) -> String {
    focus_tui::printable::clip(text, max)
}

/// The line for an `AutoRetryStart` event (see [`retry_line`]); `None` for others.
pub fn retry_notice(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::AutoRetryStart {
            attempt,
            max_attempts,
            delay_ms,
            error_message,
        } => Some(retry_line(
            *attempt,
            *max_attempts,
            *delay_ms,
            error_message,
        )),
        _ => None,
    }
}

/// "retrying in 2 s (attempt 2/4): HTTP 529 overloaded": one line per retry, the
/// server's words sanitized (they come from the network).
pub fn retry_line(attempt: u32, max_attempts: u32, delay_ms: u64, why: &str) -> String {
    let delay = if delay_ms % 1000 == 0 {
        format!("{} s", delay_ms / 1000)
    } else {
        format!("{:.1} s", delay_ms as f64 / 1000.0)
    };
    let why = focus_tools::output::sanitize(why).replace('\n', " ");
    format!(
        "retrying in {delay} (attempt {attempt}/{max_attempts}): {}",
        clip(&why, 200)
    )
}

/// One line for a compaction's start or end (`None` for other events).
pub fn compaction_note(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::CompactionStart { reason } => Some(format!(
            "compacting the history ({})…",
            match reason.as_str() {
                "overflow" => "the model said the context is too long",
                _ => "the context is nearly full",
            }
        )),
        AgentEvent::CompactionEnd {
            result,
            error_message,
            ..
        } => Some(match (error_message, result) {
            (Some(error), _) => format!("compaction failed: {error}"),
            (None, Some(done)) => format!(
                "compacted: about {} → {} tokens",
                done.tokens_before, done.tokens_after
            ),
            (None, None) => "compaction ended".to_string(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compaction_is_one_line_at_its_start_and_end() {
        let start = AgentEvent::CompactionStart {
            reason: "overflow".into(),
        };
        assert_eq!(
            compaction_note(&start).as_deref(),
            Some("compacting the history (the model said the context is too long)…")
        );
        let failed = AgentEvent::CompactionEnd {
            result: None,
            aborted: false,
            will_retry: false,
            error_message: Some("no model".into()),
        };
        assert_eq!(
            compaction_note(&failed).as_deref(),
            Some("compaction failed: no model")
        );
        assert_eq!(compaction_note(&AgentEvent::AgentStart), None);
    }

    #[test]
    fn a_retry_is_one_readable_line() {
        let line = retry_line(2, 4, 2000, "HTTP 529: overloaded\n\x1b[2J");
        assert!(line.starts_with("retrying in 2 s (attempt 2/4): HTTP 529: overloaded"));
        assert!(!line.contains('\n') && !line.contains('\x1b'), "{line:?}");
        assert!(retry_line(3, 4, 1500, "x").starts_with("retrying in 1.5 s (attempt 3/4)"));
    }
    use focus_core::json_object;

    #[test]
    fn a_failures_reason_is_shown_whole_and_long_output_cut() {
        let reason = format!(
            "`bash` was blocked by a PreToolUse hook (exit 2): {}\n(the hook's command: `x`)",
            "why ".repeat(50)
        );
        let lines = failure_lines(&reason);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].ends_with("why"), "{lines:?}");
        let long: String = (0..30).map(|i| format!("line {i}\n")).collect();
        let lines = failure_lines(&long);
        assert_eq!(lines.len(), FAILURE_LINES + 1);
        assert_eq!(lines[FAILURE_LINES], "… 22 more lines");
        assert_eq!(failure_lines("a\x1b[2J\n\nb"), ["a", "b"]);
    }

    #[test]
    fn tool_summaries_pick_the_telling_argument() {
        assert_eq!(
            tool_summary("bash", &json_object! {"command" => "ls -la"}),
            "bash ls -la"
        );
        assert_eq!(
            tool_summary("read", &json_object! {"path" => "a.rs", "limit" => 3}),
            "read a.rs"
        );
        assert_eq!(tool_summary("x", &json_object! {}), "x");
        assert_eq!(tool_summary("x", &json_object! {"n" => 1}), "x {\"n\":1}");
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("a\nb", 10), "a ⏎ b");
        // A tool call's summary shows an override instead of obeying it.
        assert_eq!(
            tool_summary("bash", &json_object! { "command" => "echo \u{202E}fr- mr" }),
            "bash echo \\u{202e}fr- mr"
        );
        // Model-chosen arguments cannot drive the terminal.
        assert_eq!(
            tool_summary(
                "bash",
                &json_object! {"command" => "ls\u{1b}]0;owned\u{7}\r\u{8}x"}
            ),
            "bash ls ⏎ x"
        );
        assert_eq!(answer_text("a\u{1b}[2Jb\r", true), "ab\n");
        assert_eq!(answer_text("a\u{1b}[2Jb", false), "a\u{1b}[2Jb");
    }

    #[test]
    fn end_reasons_read_as_sentences() {
        assert!(end_reason_text(&EndReason::TurnLimit(5)).contains("5 model calls"));
        assert!(end_reason_text(&EndReason::StopHookLimit(3)).contains("Stop hook"));
        assert_eq!(
            end_reason_text(&EndReason::Error("HTTP 401".into())),
            "HTTP 401"
        );
        assert_eq!(
            end_reason_text(&EndReason::Error("bad\u{1b}[31m gateway".into())),
            "bad gateway"
        );
    }
}
