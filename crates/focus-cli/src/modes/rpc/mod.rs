//! RPC mode (`--mode rpc`): JSON-lines commands on stdin, events and responses on
//! stdout, for editors and other programs. The protocol is pi's (docs/rpc.md):
//! a command is `{"id"?, "type", ...}`, its response
//! `{"id"?, "type":"response", "command", "success", "data"?|"error"?}`, and agent
//! events are written as they happen, in the JSON-mode shape.
//!
//! One thread reads stdin (splitting on `\n` only; [`input`]) into a channel the
//! loop waits on (with approval requests). The loop here is the only writer of
//! state and stdout: at every wake-up (an input, or every `RUN_POLL` (8 ms) while a
//! prompt runs) it makes its one call into the harness,
//! `Conversation::poll`, and writes what came ([`server`]), then answers the
//! input ([`commands`], [`state`]; responses in [`wire`]). A malformed line gets
//! an error response and the server goes on. At end of input the server lets a
//! running prompt finish its current step (bounded by [`EOF_STEP_LIMIT`] and
//! [`EOF_ABORT_LIMIT`]), then exits 0; approval requests nobody can answer any
//! more (after `abort`, or at end of input) are denied, so the agent's thread
//! never waits on them forever.

pub mod commands;
pub mod input;
pub mod server;
pub mod state;
pub mod wire;

pub use commands::COMMANDS;
pub use input::Input;
pub use wire::{error_response, model_json, ok_response};

use crate::args::Args;
use crate::engine::Engine;
use focus_core::json::{parse_str, Value};
use focus_harness::conversation::SessionRequest;
use server::Server;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::{Duration, Instant};

/// After stdin closes, how long a running prompt may take to finish its
/// current step before it is aborted.
pub const EOF_STEP_LIMIT: Duration = Duration::from_secs(30);

/// After an abort at end of input, how long the run may take to end before
/// the server exits anyway.
pub const EOF_ABORT_LIMIT: Duration = Duration::from_secs(5);

/// How often the server looks for a termination signal while it waits.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How often a running prompt's events are looked at: they reach the client
/// at most this late, and a stream costs the loop at most 125 wake-ups a second
/// however its events come.
const RUN_POLL: Duration = Duration::from_millis(8);

/// Builds the engine (its gate asks through this server) and serves commands
/// until stdin closes; returns the exit code.
pub fn serve(args: &Args, cwd: &Path, request: &SessionRequest) -> i32 {
    let (sender, inputs) = mpsc::sync_channel(crate::engine::INPUT_QUEUE_CAPACITY);
    let ask = crate::approval::ask_through(sender.clone(), Input::Approval);
    let (mut engine, _choice) = match crate::setup::build_engine(args, cwd, request, Some(ask)) {
        Ok(built) => built,
        Err(error) => {
            errln!("focus: {}", error.message);
            return if error.usage {
                crate::EXIT_USAGE
            } else {
                crate::EXIT_FAILURE
            };
        }
    };
    crate::terminal::signals::catch_interrupts();
    run(&mut engine, cwd, sender, inputs)
}

/// Serves commands for `engine` until stdin closes; returns the exit code.
pub fn run(
    engine: &mut Engine,
    cwd: &Path,
    sender: SyncSender<Input>,
    inputs: Receiver<Input>,
) -> i32 {
    input::spawn_stdin_reader(sender);
    let mut server = Server::new(engine, cwd);
    // Inputs that must wait for a compaction, answered once it is over.
    let mut deferred: VecDeque<Input> = VecDeque::new();
    let mut stop = Stopping::new();
    loop {
        if stop.signalled_now(&mut server) && !server.engine.conversation.is_busy() {
            break;
        }
        let Some(wait) = stop.wait(&mut server) else {
            break;
        };
        let input = match next_input(&server, &inputs, &mut deferred, wait) {
            Ok(input) => input,
            Err(()) => break,
        };
        // The run's events before the input: what it queued by now (the tool call
        // an approval is about, the turn before a command's answer) goes out first.
        let step_ended = server.forward();
        match input {
            Some(input) if server.must_wait(&input) => deferred.push_back(input),
            Some(input) => handle(&mut server, input, &mut stop),
            None => {}
        }
        // Commands that waited for a compaction are answered before the end.
        if stop.step_ended(step_ended, &mut server) && deferred.is_empty() {
            break;
        }
    }
    if stop.signalled {
        crate::stopped_exit_code()
    } else {
        0
    }
}

/// Whether `input` must wait behind commands already waiting: answers keep
/// the commands' order (a `get_state` sent after a held `set_model` is not
/// answered first), and so does the end of input (those commands are still
/// answered); only `abort` goes ahead, to stop what holds them.
fn waits_behind(deferred: &VecDeque<Input>, input: &Input) -> bool {
    match input {
        Input::Line(line) if !deferred.is_empty() => {
            parse_str(line).unwrap_or(Value::Null)["type"].as_str() != Some("abort")
        }
        Input::Oversized(_) | Input::Eof => !deferred.is_empty(),
        _ => false,
    }
}

/// The next input: one that waited (once nothing holds it back any more), else
/// one from the channel within `wait`. `Err` when every sender is gone.
fn next_input(
    server: &Server<'_>,
    inputs: &Receiver<Input>,
    deferred: &mut VecDeque<Input>,
    wait: Duration,
) -> Result<Option<Input>, ()> {
    if let Some(input) = deferred.front() {
        if !server.must_wait(input) {
            return Ok(deferred.pop_front());
        }
    }
    // A running prompt is looked at every RUN_POLL: its events wait in its
    // queue meanwhile.
    let wait = match server.engine.conversation.is_busy() {
        true => wait.min(RUN_POLL),
        false => wait,
    };
    match inputs.recv_timeout(wait) {
        Ok(input) if waits_behind(deferred, &input) => {
            deferred.push_back(input);
            Ok(None)
        }
        Ok(input) => Ok(Some(input)),
        Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(()),
    }
}

/// Answers one input.
fn handle(server: &mut Server<'_>, input: Input, stop: &mut Stopping) {
    match input {
        Input::Line(line) => server.handle_line(&line),
        Input::Oversized(n) => super::json::write_line(&error_response(
            None,
            "parse",
            &format!("command line of {n} bytes is longer than the 64 MiB limit"),
        )),
        Input::Eof => stop.end_of_input(server),
        Input::Approval(pending) => server.ask(pending),
    }
}

/// How the server ends: at end of input (the running prompt finishes its step,
/// within limits) or on a termination signal (the running prompt is aborted at
/// once; focus then exits with 128 + the signal's number).
struct Stopping {
    /// When stdin closed.
    eof: Option<Instant>,
    /// When the running prompt was aborted on the way out.
    aborted: Option<Instant>,
    /// SIGTERM, SIGHUP, SIGQUIT or SIGINT arrived.
    signalled: bool,
    signals_before: usize,
}

impl Stopping {
    fn new() -> Stopping {
        Stopping {
            eof: None,
            aborted: None,
            signalled: false,
            signals_before: crate::terminal::signals::interrupts(),
        }
    }

    /// Whether a termination signal has stopped the server (the first time it
    /// is seen, input ends and the running prompt is aborted).
    fn signalled_now(&mut self, server: &mut Server<'_>) -> bool {
        if !self.signalled && crate::terminal::signals::interrupts() > self.signals_before {
            self.signalled = true;
            if self.eof.is_none() {
                self.end_of_input(server);
            }
            self.abort(server);
        }
        self.signalled
    }

    fn end_of_input(&mut self, server: &mut Server<'_>) {
        self.eof = Some(Instant::now());
        server.end_of_input();
    }

    fn abort(&mut self, server: &mut Server<'_>) {
        if self.aborted.is_none() {
            server.abort();
            self.aborted = Some(Instant::now());
        }
    }

    /// How long the loop may wait for input: short, so a signal is seen within
    /// [`SIGNAL_POLL`]; after end of input also bounded by the limits (docs/rpc.md).
    /// `None`: the limit after the abort passed, the server exits anyway.
    fn wait(&mut self, server: &mut Server<'_>) -> Option<Duration> {
        let Some(closed) = self.eof else {
            return Some(SIGNAL_POLL);
        };
        let limit = match self.aborted {
            Some(aborted) => aborted + EOF_ABORT_LIMIT,
            None => closed + EOF_STEP_LIMIT,
        };
        let now = Instant::now();
        if now < limit {
            return Some((limit - now).min(SIGNAL_POLL));
        }
        if self.aborted.is_some() {
            return None;
        }
        self.abort(server);
        Some(Duration::ZERO)
    }

    /// After one round: at end of input a run stops after its current step;
    /// whether the server is done (input ended and nothing runs).
    fn step_ended(&mut self, step_ended: bool, server: &mut Server<'_>) -> bool {
        if self.eof.is_none() {
            return false;
        }
        if step_ended {
            self.abort(server);
        }
        !server.engine.conversation.is_busy()
    }
}
