//! `bash`: run a shell command in the working directory.
//!
//! The command runs as `bash -c` (or `sh -c` where bash is missing) with stdin
//! closed, as the leader of its own process group (focus-sys's
//! `process::Job::run_with_deadline`, which also drains the output on threads
//! and reaps the shell), so a timeout or an abort kills it together with every
//! child and background process it started. Standard error is merged into
//! standard output *inside the shell* (the script starts with `exec 2>&1`), so
//! both streams share one pipe and keep their real interleaving, which two
//! separately-read pipes cannot.
//!
//! Output is kept as a rolling tail: the end of a build log is where the
//! error is. Past 50 KB the output also goes to a spill file ([`spill`]:
//! capped, private, removed at exit) whose path the result gives. While the
//! command runs, the tail is streamed through `on_update` a few times a second.
//!
//! When the shell exits, output still arriving from a background process
//! (`server &`) is waited for only briefly: the result is returned and the
//! background process keeps running. A timeout, by contrast, kills it.

pub mod spill;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_sys::process::{self, Job};

use crate::args;
use crate::output::{self, MAX_BYTES, MAX_LINES};
use crate::schema;
use crate::state::ToolState;
use spill::{SpillDir, SpillFile, Spilled};

/// Timeout when the model gives none, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 120.0;
/// How often partial output is streamed to the user interface.
const UPDATE_EVERY: Duration = Duration::from_millis(250);
/// How often the private temporary directory's size is checked while a command runs.
const TEMP_CHECK_EVERY: Duration = Duration::from_millis(500);
/// How long to wait for the output pipe to close once the shell has exited.
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// The `bash` tool.
pub struct BashTool {
    cwd: PathBuf,
    /// Its commands' sandbox and its spill directory.
    state: ToolState,
    spill_cap: u64,
}

impl BashTool {
    /// A `bash` tool running commands in `cwd`, confined by `state`'s sandbox,
    /// spilling long output into `state`'s spill directory.
    pub fn new(cwd: PathBuf, state: ToolState) -> BashTool {
        BashTool {
            cwd,
            state,
            spill_cap: spill::DEFAULT_SPILL_CAP,
        }
    }

    /// Sets the most bytes one spill file holds ([`spill::DEFAULT_SPILL_CAP`]
    /// unless changed).
    pub fn with_spill_cap(mut self, bytes: u64) -> BashTool {
        self.spill_cap = bytes;
        self
    }
}

impl Tool for BashTool {
    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Run a shell command with bash in the working directory. stdout and stderr are merged. \
         Output is cut to the last 2000 lines or 50KB; when cut, the full output is saved to a \
         file whose path is given (read it with read, or search it with grep). Non-zero exit codes \
         are reported. timeout is in seconds (default 120); on timeout the command and everything \
         it started are killed, so raise timeout for long builds and test runs. stdin is closed: \
         avoid interactive commands. Background processes (cmd &) are not waited for; redirect \
         their output to a file."
    }

    fn parameters(&self) -> Value {
        let timeout = json_object! {
            "type" => "number", "exclusiveMinimum" => 0,
            "description" => "Timeout in seconds (default 120)",
        };
        schema::object(
            [
                ("command", schema::string("The command to run")),
                ("timeout", timeout),
            ],
            &["command"],
        )
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let command = match args::required_str(args, "command") {
            Ok(c) => c,
            Err(e) => return ToolOutput::error(e),
        };
        let timeout = match args::optional_f64(args, "timeout") {
            Ok(t) => t.filter(|t| *t > 0.0).unwrap_or(DEFAULT_TIMEOUT_SECS),
            Err(e) => return ToolOutput::error(e),
        };
        if command.trim().is_empty() {
            return ToolOutput::error("The command is empty.");
        }
        run_command(
            &self.cwd,
            command,
            timeout,
            self.spill_cap,
            ctx,
            &self.state,
        )
    }

    /// Read-only when the gates' shell judge can prove the command only reads
    /// (`ls`, `git status`, `grep …`); anything it cannot prove is not.
    fn is_read_only(&self, args: &Value) -> bool {
        args["command"]
            .as_str()
            .is_some_and(crate::gates::judge::is_read_only_command)
    }

    /// A command the judge finds read-only may run beside other read-only calls of
    /// the same response; anything else runs alone, so two writers never race.
    fn runs_alone(&self, args: &Value) -> bool {
        !self.is_read_only(args)
    }
}

/// Whether an environment variable holds a credential that must not reach the
/// model: such variables are kept out of the shell's environment (see
/// [`crate::secret_env`]; a model that needs one must be given it explicitly).
pub use crate::secret_env::is_secret_variable;

/// Output captured so far, shared between the reader thread and the caller.
struct Captured {
    /// Everything while small; afterwards the most recent bytes only.
    tail: Vec<u8>,
    total_bytes: usize,
    total_newlines: usize,
    /// Where the output goes (up to `spill_cap` bytes) once it passed 50 KB.
    spill: Option<SpillFile>,
    /// The directory `spill` is created in.
    spill_dir: Arc<SpillDir>,
    spill_cap: u64,
    /// New bytes since the last update.
    changed: bool,
}

impl Captured {
    fn new(spill_dir: Arc<SpillDir>, spill_cap: u64) -> Captured {
        Captured {
            tail: Vec::new(),
            total_bytes: 0,
            total_newlines: 0,
            spill: None,
            spill_dir,
            spill_cap,
            changed: false,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.total_bytes += chunk.len();
        self.total_newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        self.changed = true;
        if self.spill.is_none() && self.total_bytes > MAX_BYTES {
            self.spill = self.spill_dir.new_file(self.spill_cap).map(|mut spill| {
                spill.write(&self.tail);
                spill
            });
        }
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        self.tail.extend_from_slice(chunk);
        // Keep a rolling tail of about twice what is shown, trimmed in bulk.
        if self.spill.is_some() && self.tail.len() > 4 * MAX_BYTES {
            let cut = self.tail.len() - 2 * MAX_BYTES;
            self.tail.drain(..cut);
        }
    }
}

/// Streams the output's tail through `on_update` if anything arrived since the
/// last time (redacted: partial output reaches JSON and RPC clients too).
fn stream_update(captured: &Mutex<Captured>, ctx: &ToolContext<'_>) {
    let mut state = lock(captured);
    if !state.changed {
        return;
    }
    state.changed = false;
    let tail = String::from_utf8_lossy(&state.tail).into_owned();
    drop(state);
    let partial = output::truncate_tail(&output::sanitize(&tail), MAX_LINES, MAX_BYTES);
    let shown = crate::secret_env::redact(&partial.content).into_owned();
    (ctx.on_update)(ToolOutput::text(shown));
}

/// How the command ended.
enum Ending {
    Exited(Option<i32>, Option<i32>),
    TimedOut,
    Aborted,
    /// Stopped by focus for passing a limit (the note says which).
    Stopped,
}

/// Runs `command` confined by `state`'s sandbox and builds the tool result
/// (for a user's `!command` as much as for the model's); output past the
/// inline cap is kept in a spill file of at most `spill_cap` bytes in
/// `state`'s spill directory.
pub fn run_command(
    cwd: &Path,
    command: &str,
    timeout_secs: f64,
    spill_cap: u64,
    ctx: &ToolContext<'_>,
    state: &ToolState,
) -> ToolOutput {
    use std::os::unix::process::ExitStatusExt;

    let sandbox = &state.sandbox;
    if !cwd.is_dir() {
        return ToolOutput::error(format!(
            "The working directory {} does not exist; cannot run commands.",
            cwd.display()
        ));
    }
    let max_timeout = sandbox.limits().max_timeout_secs as f64;
    let clamped = timeout_secs > max_timeout;
    let timeout_secs = timeout_secs.min(max_timeout);
    let command_text = command;
    let mut command = process::bash(&format!("exec 2>&1\n{command}"));
    crate::secret_env::remove_secret_variables(&mut command);
    // git reads no program from a file for a call that is meant only to read.
    if sandbox.is_read_only() || crate::gates::judge::is_read_only_command(command_text) {
        crate::git_env::apply(&mut command);
    }
    if let Err(e) = sandbox.confine(&mut command) {
        return ToolOutput::error(format!("{e}; the command was not run."));
    }
    command.current_dir(cwd);
    let guard = sandbox.before_call();
    let limit_hits = sandbox.process_limit_hits();
    let captured = Arc::new(Mutex::new(Captured::new(
        Arc::clone(&state.spill),
        spill_cap,
    )));
    let sink = Arc::clone(&captured);
    let job = Job::new(command)
        .keep(0)
        .on_output(Arc::new(move |chunk: &[u8]| lock(&sink).push(chunk)))
        .leave_background()
        .grace(DRAIN_GRACE);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(timeout_secs);
    let mut last_update = started;
    let mut last_temp_check = started;
    let mut temp_full = None;
    let outcome = job.run_with_deadline(deadline, || {
        if ctx.cancel.is_cancelled() {
            return ControlFlow::Break(());
        }
        // The private temporary directory's cap: checked, not trusted.
        if last_temp_check.elapsed() >= TEMP_CHECK_EVERY {
            last_temp_check = Instant::now();
            temp_full = sandbox.temp_dir_over_cap();
            if temp_full.is_some() {
                return ControlFlow::Break(());
            }
        }
        if last_update.elapsed() >= UPDATE_EVERY {
            last_update = Instant::now();
            stream_update(&captured, ctx);
        }
        ControlFlow::Continue(())
    });
    let ending = match outcome.map(|outcome| outcome.ending) {
        Err(e) => {
            return ToolOutput::error(format!("Could not start {}: {e}.", process::bash_or_sh()))
        }
        Ok(process::Ending::Exited(status)) => Ending::Exited(status.code(), status.signal()),
        Ok(process::Ending::TimedOut) => Ending::TimedOut,
        Ok(process::Ending::Cancelled) => Ending::Aborted,
        Ok(process::Ending::Lost(_)) => Ending::Exited(None, None),
    };
    let mut so_far = lock(&captured);
    let raw = String::from_utf8_lossy(&so_far.tail).into_owned();
    let total_lines = so_far.total_newlines + usize::from(!raw.is_empty() && !raw.ends_with('\n'));
    let spilled = so_far.spill.take().map(SpillFile::finish);
    let total_bytes = so_far.total_bytes;
    drop(so_far);

    let temp_full = temp_full.or_else(|| sandbox.temp_dir_over_cap());
    let mut notes = Vec::new();
    if clamped {
        notes.push(format!(
            "[timeout lowered to {} seconds, the maximum (sandbox.limits.maxTimeoutSeconds)]",
            format_seconds(max_timeout)
        ));
    }
    if let Some(used) = temp_full {
        sandbox.empty_temp_dir();
        notes.push(format!(
            "[sandbox: the private temporary directory held {} MB, past its cap of {} MB \
             (sandbox.limits.tempDirMb): the command was stopped and the directory emptied]",
            used / (1024 * 1024),
            sandbox.limits().temp_dir.unwrap_or(0) / (1024 * 1024)
        ));
    }
    // The kernel's count where there is one (root's control group), else the
    // shells' own words for a refused fork.
    let said = raw.contains("(sandbox.limits.processes)");
    let forks_failed = sandbox.process_limit_hits() > limit_hits
        || raw.contains("Resource temporarily unavailable")
        || raw.contains("Cannot fork");
    if let (Some(limit), true, false) = (sandbox.limits().processes, forks_failed, said) {
        if sandbox.is_enforcing() {
            notes.push(format!(
                "[sandbox: forks failed: the command reached the limit of {limit} processes \
                 (sandbox.limits.processes)]"
            ));
        }
    }
    notes.extend(sandbox.after_call(guard));
    let result = build_result(
        &raw,
        total_lines,
        total_bytes,
        (spilled, &state.spill, spill_cap),
        if temp_full.is_some() && matches!(ending, Ending::Aborted) {
            Ending::Stopped
        } else {
            ending
        },
        timeout_secs,
        started.elapsed(),
    );
    with_notes(result, &notes)
}

/// `output` with `notes` appended to its text (an error if any note is).
fn with_notes(output: ToolOutput, notes: &[String]) -> ToolOutput {
    if notes.is_empty() {
        return output;
    }
    let text = format!("{}\n\n{}", output.text_content(), notes.join("\n"));
    let out = if output.is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    out.with_details(output.details)
}

fn build_result(
    raw: &str,
    total_lines: usize,
    total_bytes: usize,
    (spilled, spill_dir, spill_cap): (Option<Spilled>, &SpillDir, u64),
    ending: Ending,
    timeout_secs: f64,
    elapsed: Duration,
) -> ToolOutput {
    let clean = output::sanitize(raw);
    let cut = output::truncate_tail(&clean, MAX_LINES, MAX_BYTES);
    let truncated = cut.truncated || spilled.is_some();
    let spilled = match spilled {
        Some(spilled) => Some(spilled),
        // Cut by lines while small: the full text is still in memory.
        None if truncated => spill_dir.new_file(spill_cap).map(|mut spill| {
            spill.write(raw.as_bytes());
            spill.finish()
        }),
        None => None,
    };
    let full_output_path = spilled.as_ref().map(|s| s.path.clone());
    let mut text = if cut.content.is_empty() {
        "(no output)".to_string()
    } else {
        cut.content.clone()
    };
    if truncated {
        let where_full = spill_note(spilled.as_ref(), total_bytes);
        let shown_lines = cut.kept_lines + usize::from(cut.partial_line);
        let first = total_lines.saturating_sub(shown_lines) + 1;
        let note = if cut.partial_line {
            format!(
                "Showing the last {} of line {total_lines}. {where_full}",
                output::format_size(cut.content.len())
            )
        } else if cut.by_bytes || total_bytes > raw.len() {
            format!(
                "Showing lines {first}-{total_lines} of {total_lines} ({} limit). {where_full}",
                output::format_size(MAX_BYTES)
            )
        } else {
            format!("Showing lines {first}-{total_lines} of {total_lines}. {where_full}")
        };
        text.push_str(&format!("\n\n[{note}]"));
    }
    let mut details = focus_core::json::Object::new();
    details.insert("durationMs", elapsed.as_millis() as u64);
    if let Some(path) = &full_output_path {
        details.insert("fullOutputPath", path.display().to_string());
    }
    if let Some(spilled) = spilled.as_ref().filter(|s| s.dropped > 0) {
        details.insert("fullOutputCapped", true);
        details.insert("fullOutputBytes", spilled.written);
    }
    details.insert("truncated", truncated);
    let is_error = match ending {
        Ending::Exited(Some(0), _) => false,
        Ending::Exited(Some(code), _) => {
            text.push_str(&format!("\n\nCommand exited with code {code}"));
            details.insert("exitCode", code);
            true
        }
        Ending::Exited(None, Some(signal)) => {
            text.push_str(&format!("\n\nCommand was killed by signal {signal}"));
            details.insert("signal", signal);
            true
        }
        Ending::Exited(None, None) => {
            text.push_str("\n\nCommand ended but its exit status could not be read");
            true
        }
        Ending::TimedOut => {
            text.push_str(&format!(
                "\n\nCommand timed out after {} seconds; it and every process it started were killed. \
                 Use a larger timeout if it needs more time.",
                format_seconds(timeout_secs)
            ));
            details.insert("timedOut", true);
            true
        }
        Ending::Stopped => {
            text.push_str(
                "\n\nCommand stopped by the sandbox; it and every process it started were killed.",
            );
            details.insert("stopped", true);
            true
        }
        Ending::Aborted => {
            text.push_str(
                "\n\nCommand aborted by the user; it and every process it started were killed.",
            );
            details.insert("aborted", true);
            true
        }
    };
    if let Ending::Exited(Some(0), _) = ending {
        details.insert("exitCode", 0);
    }
    let result = if is_error {
        ToolOutput::error(text)
    } else {
        ToolOutput::text(text)
    };
    result.with_details(Value::Object(details))
}

/// Where the full output is, and whether the spill file was capped.
fn spill_note(spilled: Option<&Spilled>, total_bytes: usize) -> String {
    match spilled {
        None => "The full output could not be saved".to_string(),
        Some(s) if s.dropped == 0 => format!("Full output: {}", s.path.display()),
        Some(s) => format!(
            "Output saved to {} but capped: it holds the first {} of {}; the end is shown here. \
             Rerun the command with its output filtered (grep, head, tail) or redirected to a \
             file to see the middle",
            s.path.display(),
            output::format_size(s.written as usize),
            output::format_size(total_bytes)
        ),
    }
}

fn format_seconds(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{}", secs as u64)
    } else {
        format!("{secs:.1}")
    }
}
