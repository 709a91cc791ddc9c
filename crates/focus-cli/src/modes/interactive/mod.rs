//! Interactive mode: the terminal UI.
//!
//! One loop owns everything and waits on one channel fed by the stdin thread
//! (raw key bytes), approval requests from the gate, and work running in the
//! background (`/compact`, a `!command`, the project walk). The running prompt's
//! events are not sent: the loop takes them from the run's queue whenever it
//! wakes, at least every 33 ms while a prompt runs. Frames are drawn at once
//! after a key, at most every 33 ms while output streams, and every 100 ms for
//! the spinner.
//! The terminal kit's parts are focus-tui's; this mode wires the conversation
//! to them. Reading order: [`keys`](focus_tui::keys) (bytes to keys) and [`keymap`] (keys to actions),
//! [`editor`] (the input), [`markdown`](focus_tui::markdown) and [`highlight`](focus_tui::highlight) (styling answers),
//! [`rows`](focus_tui::rows) (lines to rows that fit), [`blocks`] and [`tool_view`] (the
//! conversation as blocks), [`screen`] (the renderer), [`view`] (how events
//! change the blocks, and the chrome), [`dialog`] (approvals), [`transcript`] (a
//! saved conversation as blocks), [`footer`], [`compacting`], [`external`]
//! (Ctrl+G), [`commands`] (slash commands), [`fuzzy`](focus_tui::fuzzy) and [`picker`](focus_tui::picker) (a list
//! filtered as you type) with [`pickers`] (the command menu, `@` files,
//! `/model`) and [`project_files`] (the `@` list, walked in the background),
//! [`tree_rows`] and [`tree_view`] (`/tree`), the commands in files of their
//! own ([`session_commands`], [`info_commands`], [`settings_editor`],
//! [`reload`], [`shell`] for `!cmd`, [`clipboard`]), [`keybindings`]
//! (`keybindings.json`), [`key_input`] (what the keys do), [`submit`] (a line
//! sent), [`following`] (the conversation's events on the screen: the one call
//! into the harness, `Conversation::poll`), then this file (the state and the
//! loop). docs/tui.md explains the renderer.

pub mod agents;
pub mod blocks;
pub mod clipboard;
pub mod commands;
pub mod compacting;
pub mod dialog;
pub mod external;
pub mod following;
pub mod footer;
pub mod hyperlinks;
pub mod images;
pub mod info_commands;
pub mod key_input;
pub mod keymap;
pub mod linkify;
pub mod notes;
pub mod paste_image;
pub mod pickers;
pub mod project_files;
pub mod reload;
pub mod screen;
pub mod session_commands;
pub mod settings_editor;
pub mod settings_keys;
pub mod shell;
pub mod submit;
pub mod tool_view;
pub mod transcript;
pub mod tree_rows;
pub mod tree_view;
pub mod view;

use crate::args::Args;
use crate::choose::ModelChoice;
use crate::engine::Engine;
use crate::terminal::raw::RawMode;
use crate::terminal::style::Style;
use crate::terminal::{STDIN, STDOUT};
use blocks::{Block, Kind};
use focus_core::event::AgentEvent;
use focus_core::message::{Content, Message};
use focus_tui::editor::{self, Editor};
use focus_tui::keybindings;
use focus_tui::keys::KeyDecoder;
use screen::Screen;
use std::collections::VecDeque;
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
    /// Links as OSC 8 hyperlinks ([`hyperlinks::supported`]).
    hyperlinks: bool,
    /// Images drawn inline with this protocol ([`focus_tui::graphics::protocol`]).
    graphics: Option<focus_tui::graphics::Protocol>,
    /// The host of `file://` links ([`linkify::host_name`]).
    host: focus_tui::links::Host,
    waiting: bool,
    /// Something slow is going on outside a model call ("retrying"): the notice
    /// spins.
    busy: Option<&'static str>,
    frame: usize,
    /// The notice line above the editor.
    notice: Option<String>,
    /// What focus said in this session, put back when the transcript is
    /// rebuilt ([`notes`]).
    said: notes::Said,
    /// Steering (false) and follow-up (true) messages not yet sent.
    queued: Vec<(bool, String)>,
    /// The git branch of the working directory (read at start and after each
    /// run: a tool may have switched it).
    git_branch: Option<String>,
    ctrl_c_armed: bool,
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
    key_input::spawn_key_reader(sender.clone(), resumed);
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
        hyperlinks: hyperlinks::supported(),
        graphics: focus_tui::graphics::protocol(),
        host: linkify::host_name(),
        waiting: false,
        busy: None,
        frame: 0,
        notice: None,
        said: notes::Said::default(),
        queued: Vec::new(),
        git_branch: footer::git_branch(cwd),
        ctrl_c_armed: false,
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
        } else if ui.engine.conversation.is_busy() {
            FRAME
        } else {
            TICK.saturating_sub(last_tick.elapsed())
        };
        let mut typed = false;
        match receiver.recv_timeout(wait) {
            Ok(input) => {
                typed = matches!(input, Input::Keys(..) | Input::KeysThenWait(..));
                // A key is read against what the conversation says now (a run
                // that just ended takes prompts and commands again).
                ui.take_conversation_events();
                ui.handle(input);
                dirty = true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if last_tick.elapsed() >= TICK {
            // The spinner turns, and the window's size is looked at again.
            if ui.engine.conversation.is_busy() || ui.busy.is_some() {
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
        dirty |= ui.take_conversation_events();
        if typed || (dirty && last_draw.elapsed() >= FRAME) {
            ui.redraw();
            last_draw = Instant::now();
            dirty = false;
        }
    }
    let signalled = crate::terminal::signals::interrupts() > signals_before;
    ui.stop_conversation(&receiver);
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

impl Ui<'_> {
    fn welcome(&self, choice: &ModelChoice) -> String {
        let model = self.engine.conversation.config.provider.model();
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
        let (history, ends) =
            transcript::history_blocks_with_ends(&self.engine.conversation.history, self.style);
        let session = self.engine.conversation.session.lock().id().to_string();
        let history = notes::interleave(history, &ends, self.said.anchored(&session));
        if !history.is_empty() {
            self.blocks
                .push(Block::done(Kind::Note(self.style.dim(&format!(
                    "continuing a session with {} messages",
                    self.engine.conversation.history.len()
                )))));
        }
        self.blocks.extend(history);
        self.screen.restart();
    }

    /// Shows a note in the conversation (used by commands; styled, sanitized),
    /// kept with the session's notes: a rebuilt transcript shows it again.
    pub fn say(&mut self, text: &str) {
        let session = self.engine.conversation.session.lock().id().to_string();
        let messages = self.engine.conversation.history.len();
        self.said.keep(&session, messages, text);
        self.note(text.to_string());
    }

    /// Shows the summary a compaction just put at the start of the history, as a
    /// marked block.
    pub fn show_summary(&mut self) {
        if let Some(block) = summary_block(&self.engine.conversation.history) {
            self.blocks.push(block);
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
