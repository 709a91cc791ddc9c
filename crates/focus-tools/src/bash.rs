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

mod capture;
mod result;
pub mod spill;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_sys::process::{self, Job};

use crate::args;
use crate::sandbox::Sandbox;
use crate::schema;
use crate::state::ToolState;
use capture::{stream_update, Captured};
use result::{build_result, format_seconds, with_notes, Ending};
use spill::SpillFile;

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
    let command = match shell_command(command_text, sandbox, cwd) {
        Ok(command) => command,
        Err(message) => return ToolOutput::error(message),
    };
    let guard = sandbox.before_call();
    let limit_hits = sandbox.process_limit_hits();
    let captured = Arc::new(Mutex::new(Captured::new(
        Arc::clone(&state.spill),
        spill_cap,
    )));
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(timeout_secs);
    let (outcome, temp_full) = watch(command, deadline, &captured, ctx, sandbox);
    let ending = match outcome.map(|outcome| outcome.ending) {
        Err(e) => {
            let mut message = format!("Could not start {}: {e}.", process::bash_or_sh());
            if let Some(note) = sandbox.forget_remembered_probe() {
                message.push(' ');
                message.push_str(&note);
            }
            return ToolOutput::error(message);
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
    notes.extend(sandbox_notes(sandbox, temp_full, &raw, limit_hits));
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

/// The shell that runs `command_text` in `cwd`: standard error merged into
/// standard output, no secret variables, git's programs from files left out for
/// a command that only reads, confined by `sandbox`.
///
/// # Errors
///
/// The sandbox cannot confine it; the message says the command was not run.
fn shell_command(command_text: &str, sandbox: &Sandbox, cwd: &Path) -> Result<Command, String> {
    let mut command = process::bash(&format!("exec 2>&1\n{command_text}"));
    crate::secret_env::remove_secret_variables(&mut command);
    // git reads no program from a file for a call that is meant only to read.
    if sandbox.is_read_only() || crate::gates::judge::is_read_only_command(command_text) {
        crate::git_env::apply(&mut command);
    }
    if let Err(e) = sandbox.confine(&mut command) {
        return Err(format!("{e}; the command was not run."));
    }
    command.current_dir(cwd);
    Ok(command)
}

/// Runs `command` until it ends, `deadline` passes or the call is cancelled,
/// its output going into `captured`; meanwhile streams the output's tail a few
/// times a second and checks the private temporary directory against its cap
/// (a full one stops the command). Returns how it ended, and the directory's
/// size if it was found over its cap.
fn watch(
    command: Command,
    deadline: Instant,
    captured: &Arc<Mutex<Captured>>,
    ctx: &ToolContext<'_>,
    sandbox: &Sandbox,
) -> (std::io::Result<process::Outcome>, Option<u64>) {
    let sink = Arc::clone(captured);
    let job = Job::new(command)
        .keep(0)
        .on_output(Arc::new(move |chunk: &[u8]| lock(&sink).push(chunk)))
        .leave_background()
        .grace(DRAIN_GRACE);
    let started = Instant::now();
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
            stream_update(captured, ctx);
        }
        ControlFlow::Continue(())
    });
    (outcome, temp_full)
}

/// What the sandbox has to say about a command that printed `raw`: its
/// temporary directory was over its cap (`temp_full`, now emptied), or forks
/// failed at the process limit (the kernel's count, `limit_hits` before the
/// command, where there is one, else the shells' own words for a refused fork).
fn sandbox_notes(
    sandbox: &Sandbox,
    temp_full: Option<u64>,
    raw: &str,
    limit_hits: u64,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(used) = temp_full {
        sandbox.empty_temp_dir();
        notes.push(format!(
            "[sandbox: the private temporary directory held {} MB, past its cap of {} MB \
             (sandbox.limits.tempDirMb): the command was stopped and the directory emptied]",
            used / (1024 * 1024),
            sandbox.limits().temp_dir.unwrap_or(0) / (1024 * 1024)
        ));
    }
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
    notes
}
