//! Interactive mode: the terminal UI.
//!
//! One loop owns everything and waits on one channel fed by the stdin thread
//! (raw key bytes), approval requests from the gate, and work running in the
//! background (`/compact`, a `!command`, the project walk). The running prompt's
//! events are not sent: the loop takes them from the run's queue whenever it
//! wakes, at least every 33 ms while a prompt runs. Frames are drawn at once
//! after a key, at most every 33 ms while output streams, and every 100 ms for
//! the spinner.
//! Reading order: [`keys`] (bytes to keys) and [`keymap`] (keys to actions),
//! [`editor`] (the input), [`markdown`] and [`highlight`] (styling answers),
//! [`rows`] (lines to rows that fit), [`blocks`] and [`tool_view`] (the
//! conversation as blocks), [`screen`] (the renderer), [`view`] (how events
//! change the blocks, and the chrome), [`dialog`] (approvals), [`transcript`] (a
//! saved conversation as blocks), [`footer`], [`compacting`], [`external`]
//! (Ctrl+G), [`commands`] (slash commands), [`fuzzy`] and [`picker`] (a list
//! filtered as you type) with [`pickers`] (the command menu, `@` files,
//! `/model`) and [`project_files`] (the `@` list, walked in the background),
//! [`tree_rows`] and [`tree_view`] (`/tree`), the commands in files of their
//! own ([`session_commands`], [`info_commands`], [`settings_editor`],
//! [`reload`], [`shell`] for `!cmd`, [`clipboard`]), [`keybindings`]
//! (`keybindings.json`), then this file (the loop, keys, runs). docs/tui.md
//! explains the renderer.

pub mod blocks;
pub mod clipboard;
pub mod commands;
pub mod compacting;
pub mod dialog;
pub mod editor;
pub mod external;
pub mod footer;
pub mod fuzzy;
pub mod highlight;
pub mod info_commands;
pub mod keybindings;
pub mod keymap;
pub mod keys;
pub mod markdown;
pub mod paste_image;
pub mod picker;
pub mod pickers;
pub mod project_files;
pub mod reload;
pub mod rows;
pub mod screen;
pub mod session_commands;
pub mod settings_editor;
pub mod shell;
pub mod tool_view;
pub mod transcript;
pub mod tree_rows;
pub mod tree_view;
pub mod view;

use crate::args::Args;
use crate::choose::ModelChoice;
use crate::engine::{AfterRun, Engine};
use crate::terminal::raw::RawMode;
use crate::terminal::style::Style;
use crate::terminal::{STDIN, STDOUT};
use blocks::{Block, Kind};
use editor::{EditAction, Editor};
use focus_core::agent::AgentHandle;
use focus_core::event::AgentEvent;
use focus_core::message::{now_ms, Content, Message, UserMessage};
use focus_harness::compaction::OverflowRecovery;
use focus_harness::conversation::Notice;
use keymap::Action;
use keys::{Key, KeyDecoder};
use screen::Screen;
use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::{Duration, Instant};

/// What the loop waits for.
pub enum Input {
    /// Bytes typed (or pasted), and when they were read.
    Keys(Vec<u8>, Instant),
    /// Bytes that may hold a Ctrl+G: the reader waits for a word on its resume
    /// channel before reading again ([`external`]); and when they were read.
    KeysThenWait(Vec<u8>, Instant),
    /// stdin closed.
    Eof,
    /// A `!command`'s output so far (shown as the model's bash calls are).
    ShellOutput(AgentEvent),
    /// A tool call waits for the user's decision.
    Approval(crate::approval::PendingApproval),
    /// A `/compact` summary came back.
    Compacted(compacting::Compacted),
    /// The project's files, walked (and packed for the matcher) in the
    /// background (for `@`).
    FilesWalked(project_files::Walked),
    /// The summary of a branch left in `/tree` came back.
    BranchSummarized(tree_view::Summarized),
    /// A `!command` ended.
    Shell(shell::ShellDone),
    /// Ctrl+V: the clipboard's image, or why there is none.
    PastedImage(Result<Vec<u8>, String>),
}

/// Bracketed paste on (pasted text arrives marked, so its newlines do not
/// send), the kitty keyboard protocol's first level and xterm's modifyOtherKeys
/// (so Shift+Enter differs from Enter where the terminal supports either;
/// others ignore the requests).
pub(crate) const KEYBOARD_ON: &str = "\x1b[?2004h\x1b[>1u\x1b[>4;1m";
/// Everything [`KEYBOARD_ON`] asked for, undone.
pub(crate) const KEYBOARD_OFF: &str = "\x1b[?2004l\x1b[<u\x1b[>4;0m";

/// The shortest time between two frames while output streams (30 a second:
/// smooth for text; every frame costs a look at the window, a pty write and a
/// wake-up, and at 60 they were most of what the screen spent on a stream).
/// A key is echoed at once, whatever the time since the last frame.
const FRAME: Duration = Duration::from_millis(33);
/// The spinner's step, and how often an idle screen looks at the window size.
const TICK: Duration = Duration::from_millis(100);

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The UI's state.
pub struct Ui<'a> {
    engine: &'a mut Engine,
    cwd: PathBuf,
    style: Style,
    screen: Screen,
    editor: Editor,
    decoder: KeyDecoder,
    history_file: PathBuf,
    /// The conversation as the screen shows it.
    blocks: Vec<Block>,
    /// The first blocks (the welcome), kept when the transcript is replaced.
    welcome: String,
    show_thinking: bool,
    /// Links as OSC 8 hyperlinks ([`hyperlinks_supported`]).
    hyperlinks: bool,
    running: Option<AgentHandle>,
    /// The running prompt's events, taken at every wake-up of the loop.
    following: Option<crate::engine::RunFollower>,
    waiting: bool,
    /// Something slow is going on outside a model call ("retrying"): the notice
    /// spins.
    busy: Option<&'static str>,
    frame: usize,
    /// The notice line above the editor.
    notice: Option<String>,
    /// Steering (false) and follow-up (true) messages not yet sent.
    queued: Vec<(bool, String)>,
    /// A `/compact` running in the background: its cancel token.
    compacting: Option<focus_core::cancel::CancelToken>,
    /// The compaction running is the automatic one after a run (the next prompt
    /// waits for it).
    auto_compacting: bool,
    /// The git branch of the working directory (read at start and after each
    /// run: a tool may have switched it).
    git_branch: Option<String>,
    ctrl_c_armed: bool,
    recovery: OverflowRecovery,
    pending_prompts: VecDeque<Message>,
    approval: Option<crate::approval::PendingApproval>,
    /// When the open approval dialog was first drawn (keys before that, or too
    /// soon after, are not answers: [`dialog`]).
    approval_drawn: Option<Instant>,
    /// Typing a reason for a denial (in `reason`: the draft stays in `editor`).
    denying: bool,
    reason: Editor,
    /// The open picker (command menu, `@` files, models).
    popup: Option<pickers::Popup>,
    /// The open `/tree` navigator.
    tree: Option<tree_view::TreeView>,
    /// A branch left in `/tree` being summarized: its cancel token.
    summarizing: Option<focus_core::cancel::CancelToken>,
    /// The project's files for `@`, walked in the background.
    file_index: project_files::FileIndex,
    /// Files picked with `@` since the last message was sent.
    attached: Vec<String>,
    /// Images pasted with Ctrl+V, by the label the input shows for each.
    pasted_images: Vec<(String, Content)>,
    /// Keys `keybindings.json` changed.
    bindings: keybindings::Bindings,
    /// A `!command` running: its cancel token.
    shell: Option<focus_core::cancel::CancelToken>,
    /// Lets the key reader read again after a [`Input::KeysThenWait`].
    resume: mpsc::Sender<()>,
    inputs: SyncSender<Input>,
    /// `--models` was given: `/reload` leaves the scope alone.
    scope_from_flag: bool,
    quit: bool,
}

/// Runs the interactive terminal UI; returns the exit code.
pub fn run(
    engine: &mut Engine,
    choice: &ModelChoice,
    args: &Args,
    cwd: &Path,
    prompts: Vec<Message>,
    inputs: (SyncSender<Input>, Receiver<Input>),
) -> i32 {
    let raw = match RawMode::enter(STDIN) {
        Ok(raw) => raw,
        Err(error) => {
            errln!("focus: cannot put the terminal in raw mode ({error}); use -p for print mode");
            return crate::EXIT_FAILURE;
        }
    };
    let (sender, receiver) = inputs;
    let (resume, resumed) = mpsc::channel();
    spawn_key_reader(sender.clone(), resumed);
    let home = focus_harness::session::focus_home();
    let history_file = editor::history_path(&home);
    let mut ui = Ui {
        engine,
        cwd: cwd.to_path_buf(),
        style: Style::for_fd(STDOUT),
        screen: Screen::new(),
        editor: Editor::new(editor::load_history(&history_file)),
        decoder: KeyDecoder::new(),
        history_file,
        blocks: Vec::new(),
        welcome: String::new(),
        show_thinking: true,
        hyperlinks: hyperlinks_supported(),
        running: None,
        following: None,
        waiting: false,
        busy: None,
        frame: 0,
        notice: None,
        queued: Vec::new(),
        compacting: None,
        auto_compacting: false,
        git_branch: footer::git_branch(cwd),
        ctrl_c_armed: false,
        recovery: OverflowRecovery::new(),
        pending_prompts: prompts.into(),
        approval: None,
        approval_drawn: None,
        denying: false,
        reason: Editor::new(Vec::new()),
        popup: None,
        tree: None,
        summarizing: None,
        file_index: project_files::FileIndex::default(),
        attached: Vec::new(),
        pasted_images: Vec::new(),
        bindings: keybindings::Bindings::default(),
        shell: None,
        resume,
        inputs: sender,
        scope_from_flag: args.models.is_some(),
        quit: false,
    };
    // The theme, folded thinking and keybindings.json; their warnings after
    // the history.
    let mut look = reload::UiSettings::load(cwd);
    let warnings = std::mem::take(&mut look.warnings);
    ui.apply_ui_settings(look);
    ui.welcome = ui.welcome(choice);
    ui.walk_files_in_background();
    ui.show_history();
    for warning in warnings {
        let text = focus_tools::output::sanitize(&warning).into_owned();
        ui.say(&ui.style.yellow(&text));
    }
    out!("{KEYBOARD_ON}");
    ui.start_next_prompt();
    ui.redraw();
    // Frames: at once after a key (the echo), at most every FRAME while output
    // streams (a burst of deltas is one frame), every TICK for the spinner.
    let mut last_draw = Instant::now();
    let mut last_tick = Instant::now();
    let mut dirty = false;
    // SIGTERM, SIGHUP (the terminal window closed) and SIGQUIT end focus cleanly:
    // seen within a TICK, they stop the loop like a quit, and the running prompt
    // is finished below (aborted, every tool call answered, the session written).
    crate::terminal::signals::catch_interrupts();
    let signals_before = crate::terminal::signals::interrupts();
    while !ui.quit && crate::terminal::signals::interrupts() == signals_before {
        // A running prompt is looked at every FRAME (its events wait in its
        // queue meanwhile); idle, the loop wakes every TICK.
        let wait = if dirty {
            FRAME.saturating_sub(last_draw.elapsed())
        } else if ui.following.is_some() {
            FRAME
        } else {
            TICK.saturating_sub(last_tick.elapsed())
        };
        let mut typed = false;
        match receiver.recv_timeout(wait) {
            Ok(input) => {
                typed = matches!(input, Input::Keys(..) | Input::KeysThenWait(..));
                ui.handle(input);
                dirty = true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if last_tick.elapsed() >= TICK {
            // The spinner turns, and the window's size is looked at again.
            if ui.running.is_some() || ui.busy.is_some() {
                ui.frame += 1;
            }
            last_tick = Instant::now();
            dirty = true;
        }
        // Drain what is already queued before drawing (bursts of deltas).
        while let Ok(input) = receiver.try_recv() {
            typed |= matches!(input, Input::Keys(..) | Input::KeysThenWait(..));
            ui.handle(input);
            if ui.quit {
                break;
            }
        }
        dirty |= ui.take_run_events();
        if typed || (dirty && last_draw.elapsed() >= FRAME) {
            ui.redraw();
            last_draw = Instant::now();
            dirty = false;
        }
    }
    let signalled = crate::terminal::signals::interrupts() > signals_before;
    ui.stop_running_prompt(&receiver);
    ui.screen.finish();
    ui.screen.flush();
    out!("{KEYBOARD_OFF}");
    drop(raw);
    outln!();
    if signalled {
        crate::stopped_exit_code()
    } else {
        0
    }
}

/// How long focus, quitting, waits for an aborted prompt to end.
const STOP_LIMIT: Duration = Duration::from_secs(5);

/// Reads raw bytes from the terminal on its own thread.
fn spawn_key_reader(sender: SyncSender<Input>, resumed: Receiver<()>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0u8; 4096];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => {
                    let _ = sender.send(Input::Eof);
                    return;
                }
                Ok(n) => {
                    let bytes = buffer[..n].to_vec();
                    let read_at = Instant::now();
                    if external::needs_pause(&bytes) {
                        // The UI may hand the terminal to another editor:
                        // read nothing until it says so.
                        if sender.send(Input::KeysThenWait(bytes, read_at)).is_err()
                            || resumed.recv().is_err()
                        {
                            return;
                        }
                    } else if sender.send(Input::Keys(bytes, read_at)).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

impl Ui<'_> {
    fn welcome(&self, choice: &ModelChoice) -> String {
        let model = self.engine.config.provider.model();
        let mut text = format!(
            "{} {}\n",
            self.style.bold("focus"),
            self.style
                .dim(&format!("· {} · {}", model.label(), self.cwd.display()))
        );
        if let Some(note) = crate::setup::choice_note(choice) {
            text.push_str(&self.style.yellow(&note));
            text.push('\n');
        }
        text.push_str(&self.style.dim(
            "Enter sends · Shift+Enter or \\ for a new line · Esc aborts · /help · type / for commands, @ for a file",
        ));
        text
    }

    /// Replaces the transcript by the welcome and the conversation in the engine
    /// (a session opened, resumed, forked, or moved in its tree) and redraws all.
    pub fn show_history(&mut self) {
        self.blocks = vec![Block::done(Kind::Note(self.welcome.clone()))];
        let history = transcript::history_blocks(&self.engine.history, self.style);
        if !history.is_empty() {
            self.blocks
                .push(Block::done(Kind::Note(self.style.dim(&format!(
                    "continuing a session with {} messages",
                    self.engine.history.len()
                )))));
        }
        self.blocks.extend(history);
        self.screen.restart();
    }

    /// Quitting (or stopped by a signal) while a prompt runs: aborts it and waits
    /// (at most [`STOP_LIMIT`]) for its end, recording its last events, so its
    /// tools' process groups are killed and every tool call is answered in the
    /// session. An approval still asked for is denied.
    fn stop_running_prompt(&mut self, inputs: &Receiver<Input>) {
        let Some(handle) = self.running.take() else {
            return;
        };
        handle.abort();
        let deny = |pending: crate::approval::PendingApproval| {
            pending.answer(crate::approval::ApprovalAnswer::Deny(
                "focus is quitting. Do not retry it.".into(),
            ))
        };
        if let Some(pending) = self.approval.take() {
            deny(pending);
        }
        let Some(mut following) = self.following.take() else {
            return;
        };
        let deadline = Instant::now() + STOP_LIMIT;
        while Instant::now() < deadline {
            let events = following.take();
            events.iter().for_each(|e| self.engine.record(e));
            following.recycle(events);
            if following.ended() {
                self.engine.run_ended(following.join());
                return;
            }
            match inputs.recv_timeout(FRAME) {
                Ok(Input::Approval(pending)) => deny(pending),
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn handle(&mut self, input: Input) {
        match input {
            Input::Keys(bytes, read_at) => {
                let keys = self.decoder.feed(&bytes);
                for key in keys {
                    self.key(key, read_at);
                    if self.quit {
                        return;
                    }
                }
            }
            Input::KeysThenWait(bytes, read_at) => {
                self.handle(Input::Keys(bytes, read_at));
                let _ = self.resume.send(());
            }
            Input::Eof => self.quit = true,
            Input::ShellOutput(event) => self.event(&event),
            Input::Approval(pending) => {
                // The call's own events (queued before the gate asked) first: its
                // block is on screen when the dialog about it opens.
                self.take_run_events();
                self.approval_asked(pending);
            }
            Input::Compacted(done) => self.compacted(done),
            Input::BranchSummarized(done) => self.branch_summarized(done),
            Input::FilesWalked(files) => self.files_walked(files),
            Input::PastedImage(result) => self.pasted_image(result),
            Input::Shell(done) => self.shell_done(done),
        }
    }

    /// Ctrl+Z: clears the live area, gives the terminal back as it was and stops
    /// focus; after `fg` it takes the terminal again and the next redraw shows the
    /// live area. A running prompt waits meanwhile (the whole process is stopped).
    fn suspend(&mut self) {
        self.screen.finish();
        self.screen.flush();
        out!("{KEYBOARD_OFF}");
        crate::terminal::raw::with_original_mode(crate::terminal::signals::stop_self);
        out!("{KEYBOARD_ON}");
    }

    /// One key, read at `read_at`. While an approval is asked, a key that could
    /// not have been a reply to it (read before the dialog was drawn, or within
    /// [`dialog::ANSWER_DELAY`] after) is typing, and goes to the editor; Esc and
    /// Ctrl+C always reach the dialog (they abort, the safe way).
    fn key(&mut self, key: Key, read_at: Instant) {
        if self.approval.is_some()
            && (self.approval_answerable(read_at) || matches!(key, Key::Esc | Key::Ctrl('c')))
        {
            self.approval_key(key);
            return;
        }
        // keybindings.json: a bound key stands for its action's default key.
        let Some(key) = self.bindings.translate(key) else {
            return;
        };
        if key != Key::Ctrl('c') {
            self.ctrl_c_armed = false;
        }
        if self.tree_key(&key) || self.picker_key(&key) {
            return;
        }
        self.key_action(&key);
        self.after_key(&key);
    }

    /// What a key does outside an approval and a picker.
    fn key_action(&mut self, key: &Key) {
        let key = key.clone();
        if self.compacting.is_some()
            && matches!(keymap::action(&key), Action::Abort | Action::ClearAbortQuit)
        {
            self.cancel_compaction();
            return;
        }
        if let Some(cancel) = &self.summarizing {
            if matches!(keymap::action(&key), Action::Abort | Action::ClearAbortQuit) {
                cancel.cancel();
                self.notice = Some("cancelling the branch summary…".into());
                return;
            }
        }
        // A `!command` running: Esc cancels it, and Ctrl+C does once the
        // input is empty.
        let cancels = match keymap::action(&key) {
            Action::Abort => true,
            Action::ClearAbortQuit => self.editor.is_empty(),
            _ => false,
        };
        if cancels && self.cancel_shell() {
            return;
        }
        match keymap::action(&key) {
            Action::Abort => {
                if let Some(handle) = &self.running {
                    handle.abort();
                    // Queued messages go back to the editor rather than being lost.
                    let queued: Vec<String> =
                        handle.drain_queued().iter().map(message_text).collect();
                    if !queued.is_empty() {
                        let mut text = queued.join("\n");
                        if !self.editor.is_empty() {
                            text = format!("{}\n{}", text, self.editor.text());
                        }
                        self.editor.set_text(&text);
                    }
                    self.queued.clear();
                    self.notice = Some("aborting…".into());
                }
            }
            Action::ClearAbortQuit => {
                if !self.editor.is_empty() {
                    self.editor.take();
                } else if let Some(handle) = &self.running {
                    handle.abort();
                } else if self.ctrl_c_armed {
                    self.quit = true;
                } else {
                    self.ctrl_c_armed = true;
                    self.notice = Some("press Ctrl+C again to quit".into());
                }
            }
            Action::Quit if self.editor.is_empty() && self.running.is_none() => self.quit = true,
            Action::Suspend => self.suspend(),
            Action::ToggleThinking => {
                self.show_thinking = !self.show_thinking;
                self.screen.redraw_all();
                self.notice = Some(if self.show_thinking {
                    "thinking shown".into()
                } else {
                    "thinking collapsed".into()
                });
            }
            Action::SelectModel => {
                self.screen.redraw_all();
                if self.running.is_none() {
                    if let Err(error) = self.open_model_picker() {
                        self.notice = Some(focus_tools::output::sanitize(&error).into_owned());
                    }
                }
            }
            Action::ExternalEditor => self.edit_externally(),
            Action::Unqueue => self.unqueue(),
            Action::Expand => self.toggle_expanded(),
            Action::Complete => self.complete(),
            Action::CycleThinking => self.cycle_thinking(),
            Action::CycleModel => self.cycle_model(false),
            Action::CycleModelBackward => self.cycle_model(true),
            Action::PasteImage => self.paste_image(),
            _ => match self.editor.handle(&key) {
                EditAction::None => {}
                EditAction::Submit(text) => self.submit(text, false),
                EditAction::FollowUp(text) => self.submit(text, true),
            },
        }
    }

    /// Alt+Up: the queued steering and follow-up messages leave the queue and
    /// go back to the editor (before its draft), to edit or drop.
    fn unqueue(&mut self) {
        let Some(handle) = &self.running else {
            return;
        };
        let queued: Vec<String> = handle.drain_queued().iter().map(message_text).collect();
        self.queued.clear();
        if queued.is_empty() {
            self.notice = Some("nothing queued".into());
            return;
        }
        let mut text = queued.join("\n");
        if !self.editor.is_empty() {
            text = format!("{}\n{}", text, self.editor.text());
        }
        self.editor.set_text(&text);
        self.notice = Some("queued messages back in the editor (not sent)".into());
    }

    fn complete(&mut self) {
        let text = self.editor.text();
        match commands::complete(&text, &commands::user_commands(&self.cwd)) {
            commands::Completion::One(done) => self.editor.set_text(&done),
            commands::Completion::Many(prefix, names) => {
                self.editor.set_text(&prefix);
                self.notice = Some(names.join("  "));
            }
            commands::Completion::None => {}
        }
    }

    fn submit(&mut self, text: String, follow_up: bool) {
        editor::append_history(&self.history_file, &text);
        if self.summarizing.is_some() {
            self.notice = Some("wait: summarizing the branch… · Esc cancels".into());
            self.editor.set_text(&text);
            return;
        }
        if self.compacting.is_some() {
            self.notice = Some("wait: compacting the history… · Esc cancels".into());
            self.editor.set_text(&text);
            return;
        }
        // `/skill:name` and `/template args` are prompts, expanded before sending
        // (a built-in command of the same name wins).
        let word = text.split_whitespace().next().unwrap_or("");
        let builtin = commands::is_builtin(word);
        let expanded = if builtin {
            Ok(None)
        } else {
            crate::input::expand_typed_command(&text, &self.cwd)
        };
        let text = match expanded {
            Ok(Some(expanded)) => expanded,
            Ok(None) => text,
            Err(error) => {
                self.note(self.style.red(&error));
                self.editor.set_text(&text);
                return;
            }
        };
        if self.shell.is_some() {
            self.notice = Some("wait: a shell command is running · Esc cancels it".into());
            self.editor.set_text(&text);
            return;
        }
        if text.starts_with('!') {
            if let Err(error) = self.run_shell(&text) {
                self.note(self.style.red(&error));
            }
            return;
        }
        if text.trim_start().starts_with('/') && !text.trim_start().starts_with("//") {
            if self.running.is_some() && !commands::safe_while_running(text.trim()) {
                self.notice = Some(
                    "this command waits until the agent is done (Esc aborts); /session, /copy, /hotkeys, /export, /name and /help run now"
                        .into(),
                );
                self.editor.set_text(&text);
                return;
            }
            commands::run(self, text.trim());
            return;
        }
        let files = match self.take_attachments(&text) {
            Ok(files) => files,
            Err(error) => {
                self.note(self.style.red(&error));
                self.editor.set_text(&text);
                return;
            }
        };
        // Attached files come first, as with `focus @FILE message`.
        let mut content = files;
        content.extend(self.take_pasted_images(&text));
        content.push(Content::text(text.clone()));
        let message = Message::User(UserMessage {
            content,
            timestamp: now_ms(),
        });
        // The queue shows a message until it reaches the model, compared by
        // its text as the event has it.
        let text = message_text(&message);
        match &self.running {
            Some(handle) if follow_up => {
                handle.follow_up(message);
                self.queued.push((true, text));
            }
            Some(handle) => {
                handle.steer(message);
                self.queued.push((false, text));
            }
            None => {
                self.recovery = OverflowRecovery::new();
                self.start(vec![message]);
            }
        }
    }

    fn start_next_prompt(&mut self) {
        if let Some(prompt) = self.pending_prompts.pop_front() {
            self.recovery = OverflowRecovery::new();
            self.start(vec![prompt]);
        }
    }

    fn start(&mut self, prompts: Vec<Message>) {
        let run = self.engine.spawn(prompts);
        self.running = Some(run.handle.clone());
        self.following = Some(crate::engine::RunFollower::new(run));
        self.waiting = true;
        self.notice = None;
        self.ctrl_c_armed = false;
    }

    /// Takes what the running prompt queued since the last look and shows it;
    /// after its end, finishes it. Whether anything came.
    fn take_run_events(&mut self) -> bool {
        let Some(following) = self.following.as_mut() else {
            return false;
        };
        let events = following.take();
        if events.is_empty() {
            following.recycle(events);
            return false;
        }
        for event in events.iter() {
            self.engine.record(event);
            self.event(event);
        }
        let Some(following) = self.following.as_mut() else {
            return true;
        };
        following.recycle(events);
        if let Some(following) = self.following.take_if(|f| f.ended()) {
            self.finished(following.join());
        }
        true
    }

    fn finished(&mut self, history: Vec<Message>) {
        self.finish_streams();
        self.walk_files_in_background();
        self.git_branch = footer::git_branch(&self.cwd);
        self.running = None;
        self.waiting = false;
        self.busy = None;
        self.queued.clear();
        if self.notice.as_deref() == Some("aborting…") {
            self.notice = None;
        }
        self.engine.run_ended(history);
        // A context past the threshold (but not an overflow, which must compact
        // before the run goes on) is compacted in the background, like `/compact`:
        // the screen lives, Esc cancels, the next prompt waits for it.
        if self.engine.wants_threshold_compaction() && self.start_auto_compaction() {
            return;
        }
        let style = self.style;
        let mut notes = Vec::new();
        let mut compacted = false;
        let action = self.engine.after_run(&mut self.recovery, &mut |notice| {
            if let Notice::Compaction(event) = notice {
                compacted |= matches!(
                    &**event,
                    AgentEvent::CompactionEnd {
                        result: Some(_),
                        ..
                    }
                );
                notes.push(compaction_note(event));
            }
        });
        for note in notes.into_iter().flatten() {
            self.note(style.dim(&note));
        }
        if compacted {
            self.show_summary();
        }
        match action {
            AfterRun::Retry => {
                self.note(style.dim("context was too long: compacted, retrying"));
                self.start(Vec::new());
                return;
            }
            AfterRun::GaveUp(note) => self.note(style.red(&note)),
            AfterRun::Aborted => self.note(style.dim("compaction cancelled")),
            AfterRun::Done => {}
        }
        if let Some(warning) = self.engine.store_warning.take() {
            self.note(style.yellow(&focus_tools::output::sanitize(&warning)));
        }
        self.start_next_prompt();
    }

    /// Shows a note in the conversation (used by commands; styled, sanitized).
    pub fn say(&mut self, text: &str) {
        self.note(text.to_string());
    }

    /// Shows the summary a compaction just put at the start of the history, as a
    /// marked block.
    pub fn show_summary(&mut self) {
        if let Some(block) = summary_block(&self.engine.history) {
            self.blocks.push(block);
        }
    }

    /// Ctrl+O: shows the last tool call or summary in full, or collapses it again
    /// (everything is drawn again: the block may be in the scrollback).
    fn toggle_expanded(&mut self) {
        let last = self
            .blocks
            .iter_mut()
            .rev()
            .find(|b| matches!(b.kind, Kind::Tool(_) | Kind::Summary { .. }));
        if let Some(block) = last {
            block.expanded = !block.expanded;
            self.screen.redraw_all();
        }
    }

    /// Puts text in the editor (used by /fork and /tree).
    pub fn set_input(&mut self, text: &str) {
        self.editor.set_text(text);
    }

    /// The engine (used by commands).
    pub fn engine(&mut self) -> &mut Engine {
        self.engine
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The output style.
    pub fn style(&self) -> Style {
        self.style
    }

    /// Ends the UI.
    pub fn request_quit(&mut self) {
        self.quit = true;
    }
}

/// Whether the terminal shows OSC 8 hyperlinks: known terminals that do
/// (iTerm2, WezTerm, kitty, Ghostty, VS Code, Windows Terminal, VTE 0.50+),
/// not inside tmux or screen (which may drop them), or `FOCUS_HYPERLINKS=1`
/// (`0` turns them off). Elsewhere a link shows as `text (url)`.
fn hyperlinks_supported() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    match var("FOCUS_HYPERLINKS").as_str() {
        "1" => return true,
        "0" => return false,
        _ => {}
    }
    if !var("TMUX").is_empty() || var("TERM").starts_with("screen") {
        return false;
    }
    matches!(
        var("TERM_PROGRAM").as_str(),
        "iTerm.app" | "WezTerm" | "vscode" | "ghostty"
    ) || !var("KITTY_WINDOW_ID").is_empty()
        || !var("WT_SESSION").is_empty()
        || var("VTE_VERSION").parse::<u32>().is_ok_and(|v| v >= 5000)
}

/// The marked block showing the compaction summary `history` starts from, if any.
pub fn summary_block(history: &[Message]) -> Option<Block> {
    let text = history.iter().find_map(|m| match m {
        Message::Custom(c) if c.role == "compactionSummary" => {
            Some(c.raw["summary"].as_str().unwrap_or("").to_string())
        }
        _ => None,
    })?;
    Some(Block::done(Kind::Summary {
        label: "summary of the earlier conversation (compacted)".into(),
        text,
    }))
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

/// The text of a user message.
fn message_text(message: &Message) -> String {
    match message {
        Message::User(u) => u
            .content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `1234` → `1.2k`.
fn human(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}
