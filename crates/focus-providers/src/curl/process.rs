//! [`CurlProcess`]: one running curl, and [`CurlBody`], the response body read
//! from its stdout.
//!
//! Lifetime rules, because a leaked process or thread is a bug here:
//! * the process is always reaped (`wait`), whether it ends by itself, by a
//!   cancel, or because the body was dropped half-read;
//! * a cancel kills it at once from the cancelling thread (SIGKILL), which closes
//!   its stdout, so a thread blocked reading the body wakes up;
//! * its stderr is drained by a helper thread that ends when curl does, and is
//!   joined;
//! * the request-body temp file is removed as soon as the response head arrives
//!   (curl read the file at start-up), and at the latest when the process is dropped.

use super::exit_code::{error_for_exit, error_for_signal, redact};
use super::temp_file::PrivateTempFile;
use focus_core::cancel::{CancelRegistration, CancelToken};
use focus_core::sync::lock;
use focus_transport::TransportError;
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// How much of curl's stderr is kept for error messages.
const STDERR_KEEP: usize = 16 * 1024;

/// A running (or finished, not yet dropped) curl process.
pub(super) struct CurlProcess {
    child: Arc<Mutex<Child>>,
    stderr_thread: Option<JoinHandle<Vec<u8>>>,
    body_file: Option<PrivateTempFile>,
    cancel: CancelToken,
    /// Keeps the kill-on-cancel callback registered while the process lives.
    _on_cancel: CancelRegistration,
    /// Strings to blank out of curl's messages (header values, URL query).
    secrets: Vec<String>,
}

impl CurlProcess {
    /// Starts `program` reading `config` from stdin. Returns the process and its
    /// stdout, where the response head and body will appear.
    pub(super) fn spawn(
        program: &Path,
        config: &str,
        body_file: Option<PrivateTempFile>,
        cancel: &CancelToken,
        secrets: Vec<String>,
    ) -> Result<(CurlProcess, ChildStdout), TransportError> {
        let mut child = Command::new(program)
            // -q first: ignore ~/.curlrc, whose options could change the output
            // format focus parses. Everything else is in the config on stdin.
            .args(["-q", "--config", "-"])
            // Its own process group: a Ctrl+C typed at the terminal reaches focus,
            // which decides (abort the run, keep what arrived), not curl directly.
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| cannot_start(program, &e))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let child = Arc::new(Mutex::new(child));
        let killer = child.clone();
        // Registered before anything can block, so a cancel always reaches curl.
        let on_cancel = cancel.on_cancel(move || kill_and_reap(&killer));
        let mut process = CurlProcess {
            child,
            stderr_thread: None,
            body_file,
            cancel: cancel.clone(),
            _on_cancel: on_cancel,
            secrets,
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            return Err(TransportError::CannotStart(
                "curl started without its standard streams".into(),
            ));
        };
        process.stderr_thread = std::thread::Builder::new()
            .name("curl-stderr".into())
            .spawn(move || read_tail(stderr))
            .ok();
        // The config is small; curl reads all of it before doing anything else. A
        // write error means curl already died, which its exit status will explain.
        let _ = stdin.write_all(config.as_bytes());
        drop(stdin);
        Ok((process, stdout))
    }

    /// The request body file is no longer needed (curl has read it).
    pub(super) fn remove_body_file(&mut self) {
        self.body_file = None;
    }

    /// Whether the request was cancelled.
    pub(super) fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Waits for curl to exit (call once its stdout has ended) and turns its exit
    /// status into the outcome.
    pub(super) fn finish(&mut self) -> Result<(), TransportError> {
        let status = lock(&self.child).wait();
        let stderr = self.take_stderr();
        if self.cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        match status {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(match status.code() {
                Some(code) => error_for_exit(code, &stderr),
                None => error_for_signal(status.signal(), &stderr),
            }),
            Err(e) => Err(TransportError::Other(format!("waiting for curl: {e}"))),
        }
    }

    /// Kills curl (if still running), reaps it, and returns what it said on stderr.
    pub(super) fn kill(&mut self) -> String {
        kill_and_reap(&self.child);
        self.take_stderr()
    }

    /// curl's stderr (redacted), once the stderr thread has finished.
    fn take_stderr(&mut self) -> String {
        let bytes = self
            .stderr_thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        redact(&String::from_utf8_lossy(&bytes), &self.secrets)
    }
}

impl Drop for CurlProcess {
    fn drop(&mut self) {
        kill_and_reap(&self.child);
        if let Some(thread) = self.stderr_thread.take() {
            let _ = thread.join();
        }
    }
}

/// SIGKILL to curl's group (a no-op once the process was reaped, so a recycled
/// pid is never hit), then `wait` so no zombie stays.
fn kill_and_reap(child: &Mutex<Child>) {
    focus_sys::process::kill_and_reap(&mut lock(child));
}

/// Reads a stream to its end, keeping only the last [`STDERR_KEEP`] bytes.
fn read_tail(mut stream: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return kept,
            Ok(n) => {
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > 2 * STDERR_KEEP {
                    kept.drain(..kept.len() - STDERR_KEEP);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return kept,
        }
    }
}

/// The error for a curl that would not start, saying how to fix it.
pub(super) fn cannot_start(program: &Path, error: &io::Error) -> TransportError {
    let shown = program.display();
    TransportError::CannotStart(match error.kind() {
        io::ErrorKind::NotFound => format!(
            "the curl program was not found (looked for `{shown}`{}). focus sends HTTPS \
             requests through curl: install it (Debian/Ubuntu: `sudo apt install curl`, \
             Fedora: `sudo dnf install curl`, Alpine: `apk add curl`, macOS: `brew install curl`), \
             or set FOCUS_CURL to the full path of a curl binary",
            if program.components().count() == 1 {
                " on PATH"
            } else {
                ""
            }
        ),
        io::ErrorKind::PermissionDenied => format!(
            "`{shown}` is not executable (permission denied); check the file or set FOCUS_CURL \
             to a working curl"
        ),
        _ => format!("could not run `{shown}`: {error}"),
    })
}

/// The response body: the bytes read past the head, then curl's stdout. At the
/// end, curl's exit status decides between a clean end and an error.
pub(super) struct CurlBody {
    leftover: Vec<u8>,
    leftover_at: usize,
    /// Declared before `process` so our end of the pipe closes before the kill.
    stdout: ChildStdout,
    process: CurlProcess,
    outcome: Option<Result<(), TransportError>>,
}

impl CurlBody {
    pub(super) fn new(leftover: Vec<u8>, stdout: ChildStdout, process: CurlProcess) -> CurlBody {
        CurlBody {
            leftover,
            leftover_at: 0,
            stdout,
            process,
            outcome: None,
        }
    }
}

impl Read for CurlBody {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(outcome) = &self.outcome {
            return match outcome {
                Ok(()) => Ok(0),
                Err(e) => Err(e.clone().into()),
            };
        }
        if self.process.is_cancelled() {
            self.process.kill();
            self.outcome = Some(Err(TransportError::Cancelled));
            return Err(TransportError::Cancelled.into());
        }
        if self.leftover_at < self.leftover.len() {
            let n = buf.len().min(self.leftover.len() - self.leftover_at);
            buf[..n].copy_from_slice(&self.leftover[self.leftover_at..self.leftover_at + n]);
            self.leftover_at += n;
            return Ok(n);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let read = loop {
            match self.stdout.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let outcome = match read {
            Ok(0) => self.process.finish(),
            Ok(n) => return Ok(n),
            Err(e) => {
                let stderr = self.process.kill();
                if self.process.is_cancelled() {
                    Err(TransportError::Cancelled)
                } else {
                    Err(TransportError::Other(format!(
                        "reading curl's output failed: {e} {stderr}"
                    )))
                }
            }
        };
        self.outcome = Some(outcome.clone());
        match outcome {
            Ok(()) => Ok(0),
            Err(e) => Err(e.into()),
        }
    }
}
