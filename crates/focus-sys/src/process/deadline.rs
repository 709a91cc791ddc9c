//! [`Job`]: one child process run to a deadline (see the essay in
//! [`super`] for why each step is there).

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::{kill_and_reap, kill_group};

/// Sees every chunk of the child's output (stdout and stderr, in the order the
/// reader threads get them), on a reader thread, until the run returns.
pub type OnOutput = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// How a child run by [`Job::run_with_deadline`] ended.
#[derive(Debug)]
pub enum Ending {
    /// It exited by itself before the deadline (possibly killed by a signal
    /// that was not ours).
    Exited(ExitStatus),
    /// The deadline came first; it was killed (with its group) and reaped.
    TimedOut,
    /// The caller's check asked to stop; it was killed (with its group) and reaped.
    Cancelled,
    /// Waiting for it failed, so its status is unknown; it was killed (with its
    /// group) and reaped.
    Lost(io::Error),
}

/// What a child run by [`Job::run_with_deadline`] did.
#[derive(Debug)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Its standard output, at most [`Job::keep`] bytes (the first ones).
    pub stdout: Vec<u8>,
    /// Its standard error, at most [`Job::keep`] bytes (the first ones).
    pub stderr: Vec<u8>,
    /// Whether both output pipes closed within the grace period; false when
    /// something it left running still holds one open.
    pub drained: bool,
}

/// Bytes kept per stream unless [`Job::keep`] says otherwise.
const DEFAULT_KEEP: usize = 64 * 1024;
/// How long the readers are waited for once the child is gone, by default.
const DEFAULT_GRACE: Duration = Duration::from_millis(300);
/// How often the child is polled (and the caller's check asked), at most: the
/// first looks come sooner ([`FIRST_POLL`], doubling up to this), so a command
/// that takes 2 ms is not waited for 10 (most of a short batch run's time).
const POLL: Duration = Duration::from_millis(10);
/// The first wait between two looks at the child (and at its output pipes).
const FIRST_POLL: Duration = Duration::from_micros(250);

/// A child process to run with a deadline: its command, what it gets on
/// standard input, what is kept of its output, and what happens to its group.
pub struct Job {
    command: Command,
    stdin: Option<Vec<u8>>,
    keep: usize,
    on_output: Option<OnOutput>,
    own_group: bool,
    kill_rest_on_exit: bool,
    grace: Duration,
}

impl Job {
    /// A job for `command` as the caller configured it (arguments, directory,
    /// environment, a sandbox's `pre_exec`). Its standard streams are set by
    /// the job: no input (`/dev/null`) unless [`Job::stdin`] gives some, both
    /// outputs piped and read. By default it leads its own process group, which
    /// is killed when it exits, and 64 KiB of each output stream is kept.
    pub fn new(command: Command) -> Job {
        Job {
            command,
            stdin: None,
            keep: DEFAULT_KEEP,
            on_output: None,
            own_group: true,
            kill_rest_on_exit: true,
            grace: DEFAULT_GRACE,
        }
    }

    /// Gives the child `bytes` on standard input (written by a thread of its
    /// own, then closed).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Job {
        self.stdin = Some(bytes.into());
        self
    }

    /// Keeps at most `bytes` of each output stream in the [`Outcome`] (0 when
    /// [`Job::on_output`] does the keeping); the rest is read and dropped.
    pub fn keep(mut self, bytes: usize) -> Job {
        self.keep = bytes;
        self
    }

    /// Hands every chunk of output to `on_output` as it arrives.
    pub fn on_output(mut self, on_output: OnOutput) -> Job {
        self.on_output = Some(on_output);
        self
    }

    /// Leaves whatever the child started running when the child exits by
    /// itself (`server &` in the bash tool); a timeout or a cancel still kills
    /// the whole group.
    pub fn leave_background(mut self) -> Job {
        self.kill_rest_on_exit = false;
        self
    }

    /// Keeps the child in focus's own process group, so it may use the
    /// terminal (a password prompt) without being stopped by SIGTTIN. A
    /// timeout then kills only the child, not what it started; it implies
    /// [`Job::leave_background`].
    pub fn in_our_group(mut self) -> Job {
        self.own_group = false;
        self.kill_rest_on_exit = false;
        self
    }

    /// How long to wait for the output pipes to close once the child is gone
    /// (300 ms unless changed).
    pub fn grace(mut self, grace: Duration) -> Job {
        self.grace = grace;
        self
    }

    /// Starts the child and waits for it until `deadline`, asking `check`
    /// every few milliseconds (`Break` cancels: the child and its group are
    /// killed). Returns how it ended and what it printed; fails only when the
    /// child cannot be started. Never waits longer than the deadline (or the
    /// cancel) plus the grace period, whatever the child does.
    ///
    /// # Errors
    ///
    /// Only when the child cannot be started (the program is missing, not executable, or a
    /// `pre_exec` step such as a confinement fails): nothing ran.
    pub fn run_with_deadline(
        mut self,
        deadline: Instant,
        mut check: impl FnMut() -> ControlFlow<()>,
    ) -> io::Result<Outcome> {
        let input = if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        };
        self.command
            .stdin(input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.own_group {
            self.command.process_group(0);
        }
        let mut child = self.command.spawn()?;
        if let (Some(bytes), Some(mut pipe)) = (self.stdin.take(), child.stdin.take()) {
            // Dropping the pipe at the end of the thread closes it: end of input.
            thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        // Each reader says when its pipe closed: the child has most likely
        // exited, so the wait looks at once instead of at its next poll.
        let (closed, pipe_closed) = mpsc::channel();
        let readers = [
            Reader::start(
                Pipe::Out(child.stdout.take()),
                self.keep,
                &self.on_output,
                closed.clone(),
            ),
            Reader::start(
                Pipe::Err(child.stderr.take()),
                self.keep,
                &self.on_output,
                closed,
            ),
        ];
        let ending = self.wait(&mut child, deadline, &mut check, &pipe_closed);
        let until = Instant::now() + self.grace;
        let mut pause = FIRST_POLL;
        while Instant::now() < until && readers.iter().any(|r| !r.thread.is_finished()) {
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
        let drained = readers.iter().all(|r| r.thread.is_finished());
        let [stdout, stderr] = readers.map(Reader::detach);
        Ok(Outcome {
            ending,
            stdout,
            stderr,
            drained,
        })
    }

    /// Polls `child` until it exits, `check` breaks or `deadline` passes; in
    /// the last two cases kills it (and its group) and reaps it. Between two
    /// looks it waits for `pipe_closed` (an output pipe closed: look again at
    /// once) or the pause, whichever comes first.
    fn wait(
        &self,
        child: &mut Child,
        deadline: Instant,
        check: &mut impl FnMut() -> ControlFlow<()>,
        pipe_closed: &Receiver<()>,
    ) -> Ending {
        let mut pause = FIRST_POLL;
        let ending = loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    // At once: see the essay on reaping.
                    if self.kill_rest_on_exit {
                        kill_group(child.id());
                    }
                    return Ending::Exited(status);
                }
                Ok(None) => {}
                Err(e) => break Ending::Lost(e),
            }
            if check().is_break() {
                break Ending::Cancelled;
            }
            let now = Instant::now();
            if now >= deadline {
                break Ending::TimedOut;
            }
            match pipe_closed.recv_timeout(pause.min(deadline - now)) {
                // The exit may lag the pipe's close by a moment: look soon.
                Ok(()) => pause = FIRST_POLL,
                Err(RecvTimeoutError::Timeout) => pause = (pause * 2).min(POLL),
                // Both pipes closed already: back to plain polling.
                Err(RecvTimeoutError::Disconnected) => {
                    thread::sleep(pause.min(deadline - now));
                    pause = (pause * 2).min(POLL);
                }
            }
        };
        if self.own_group {
            kill_and_reap(child);
        } else {
            let _ = child.kill();
            let _ = child.wait();
        }
        ending
    }
}

/// One of the child's output pipes (absent if std could not set it up).
enum Pipe {
    Out(Option<ChildStdout>),
    Err(Option<ChildStderr>),
}

/// What a reader thread shares with the waiting thread.
struct Shared {
    kept: Vec<u8>,
    /// The run has returned: drain, but keep and pass on nothing more.
    detached: bool,
}

/// A thread reading one output pipe to its end.
struct Reader {
    shared: Arc<Mutex<Shared>>,
    thread: JoinHandle<()>,
}

impl Reader {
    /// Starts reading `pipe`; `closed` gets one message when the pipe closes
    /// (or reading it fails).
    fn start(pipe: Pipe, keep: usize, on_output: &Option<OnOutput>, closed: Sender<()>) -> Reader {
        let shared = Arc::new(Mutex::new(Shared {
            kept: Vec::new(),
            detached: false,
        }));
        let state = Arc::clone(&shared);
        let on_output = on_output.clone();
        let thread = thread::spawn(move || {
            // Sent on every way out of this thread.
            let _closed = SendOnDrop(closed);
            let pipe: Option<Box<dyn Read>> = match pipe {
                Pipe::Out(p) => p.map(|p| Box::new(p) as Box<dyn Read>),
                Pipe::Err(p) => p.map(|p| Box::new(p) as Box<dyn Read>),
            };
            let Some(mut pipe) = pipe else { return };
            let mut buf = [0u8; 16 * 1024];
            loop {
                let n = match pipe.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return,
                };
                let mut state = lock(&state);
                if state.detached {
                    continue;
                }
                let room = keep.saturating_sub(state.kept.len());
                state.kept.extend_from_slice(&buf[..n.min(room)]);
                // Called under the lock, so nothing reaches it after `detach`.
                if let Some(on_output) = &on_output {
                    on_output(&buf[..n]);
                }
            }
        });
        Reader { shared, thread }
    }

    /// What was kept; from now on the thread only drains.
    fn detach(self) -> Vec<u8> {
        let mut state = lock(&self.shared);
        state.detached = true;
        std::mem::take(&mut state.kept)
    }
}

/// Sends `()` when dropped (the receiver may be gone: ignored).
struct SendOnDrop(Sender<()>);

impl Drop for SendOnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::sh;
    use super::*;

    fn within(secs: u64) -> Instant {
        Instant::now() + Duration::from_secs(secs)
    }

    fn go() -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    /// Whether process `pid` is gone (or a zombie nobody will reap).
    fn dead(pid: &str) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.is_empty() || stat.contains(") Z")
    }

    fn wait_dead(pid: &str) -> bool {
        let until = within(5);
        while Instant::now() < until {
            if dead(pid) {
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn output_status_and_input_come_back() {
        let out = Job::new(sh("cat; echo oops >&2; exit 3"))
            .stdin("hello")
            .run_with_deadline(within(10), go)
            .expect("sh starts");
        assert!(matches!(out.ending, Ending::Exited(s) if s.code() == Some(3)));
        assert_eq!(out.stdout, b"hello");
        assert_eq!(out.stderr, b"oops\n");
        assert!(out.drained);
    }

    #[test]
    fn a_deadline_kills_the_whole_group() {
        let started = Instant::now();
        let out = Job::new(sh("sleep 30 & echo $!; sleep 30"))
            .run_with_deadline(Instant::now() + Duration::from_millis(300), go)
            .expect("sh starts");
        assert!(matches!(out.ending, Ending::TimedOut), "{:?}", out.ending);
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(
            !pid.is_empty() && wait_dead(&pid),
            "background {pid} survived"
        );
    }

    #[test]
    fn a_cancel_stops_it_and_output_is_capped() {
        let mut asked = 0;
        let out = Job::new(sh("yes | head -c 100000; sleep 30"))
            .keep(10)
            .run_with_deadline(within(30), || {
                asked += 1;
                if asked > 20 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .expect("sh starts");
        assert!(matches!(out.ending, Ending::Cancelled), "{:?}", out.ending);
        assert_eq!(out.stdout, b"y\ny\ny\ny\ny\n");
    }

    #[test]
    fn every_chunk_reaches_on_output() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let out = Job::new(sh("echo one; echo two >&2"))
            .keep(0)
            .on_output(Arc::new(move |chunk: &[u8]| {
                sink.lock().unwrap().extend_from_slice(chunk)
            }))
            .run_with_deadline(within(10), go)
            .expect("sh starts");
        assert!(out.stdout.is_empty());
        let seen = String::from_utf8(seen.lock().unwrap().clone()).unwrap();
        assert!(seen.contains("one\n") && seen.contains("two\n"), "{seen}");
    }

    #[test]
    fn left_background_keeps_running_and_the_drain_is_bounded() {
        let started = Instant::now();
        let out = Job::new(sh("sleep 30 & echo $!"))
            .leave_background()
            .grace(Duration::from_millis(100))
            .run_with_deadline(within(10), go)
            .expect("sh starts");
        assert!(matches!(out.ending, Ending::Exited(s) if s.success()));
        // The background sleep holds the pipes open: returned after the grace.
        assert!(!out.drained);
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!dead(&pid), "the background process was killed");
        // It is in the shell's group, whose id is not its own pid: kill by pid.
        let _ = Command::new("kill").args(["-9", &pid]).status();
    }

    #[test]
    fn a_child_that_cannot_start_is_an_error() {
        let job = Job::new(Command::new("/nonexistent/focus-no-such-program"));
        assert!(job.run_with_deadline(within(1), go).is_err());
    }
}
