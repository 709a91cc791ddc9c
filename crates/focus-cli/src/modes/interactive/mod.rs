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
//! conversation as blocks), [`screen`] (blocks on focus-tui's renderer,
//! [`focus_tui::screen`]), [`view`] (how events
//! change the blocks, and the chrome), [`dialog`] (approvals), [`transcript`] (a
//! saved conversation as blocks), [`footer`], [`compacting`], [`external`]
//! (Ctrl+G), [`commands`] (slash commands), [`fuzzy`](focus_tui::fuzzy) and [`picker`](focus_tui::picker) (a list
//! filtered as you type) with [`popup`] and [`pickers`] (the command menu, `@` files,
//! `/model`) and [`project_files`] (the `@` list, walked in the background),
//! [`tree_rows`], [`tree_view`] and [`tree_moves`] (`/tree`), [`panels`] with
//! [`rewind_picker`] (`/rewind`, Esc Esc) and [`diff_view`] (`/diff`) opened by [`rewind_moves`], the commands in files of their
//! own ([`session_commands`], [`info_commands`], [`settings_editor`],
//! [`reload`], [`shell`] for `!cmd`, [`clipboard`]), [`keybindings`]
//! (`keybindings.json`), [`key_input`] (what the keys do), [`submit`] (a line
//! sent), [`following`] (the conversation's events on the screen: the one call
//! into the harness, `Conversation::poll`), then this file (the loop).
//! docs/tui.md explains the renderer.
//!
//! The state is one [`Ui`] ([`ui`]), extended by `impl Ui` blocks in the files
//! above. `ui.rs` sits below all of them and names only parts that know nothing
//! of the `Ui` ([`screen`], [`blocks`], [`popup`], [`tree_view`],
//! [`project_files`], [`input`]); this file declares the files, builds the
//! state, runs the loop and keeps the few methods every command uses
//! ([`Ui::say`], [`Ui::show_history`]), and no file imports it. So no file of the mode imports a file that imports it back, and
//! helpers two files share live in leaves ([`transcript`], [`footer`]).

pub mod agents;
pub mod blocks;
pub mod clipboard;
pub mod commands;
pub mod compacting;
pub mod dialog;
pub mod diff_view;
pub mod external;
pub mod following;
pub mod footer;
pub mod hyperlinks;
pub mod images;
pub mod info_commands;
pub mod input;
pub mod key_input;
pub mod keymap;
pub mod linkify;
pub mod notes;
pub mod panels;
pub mod paste_image;
pub mod pickers;
pub mod popup;
pub mod project_files;
pub mod reload;
pub mod rewind_moves;
pub mod rewind_picker;
pub mod screen;
pub mod session_commands;
pub mod settings_editor;
pub mod settings_keys;
pub mod shell;
pub mod submit;
pub mod tool_view;
pub mod transcript;
pub mod tree_moves;
pub mod tree_rows;
pub mod tree_view;
pub mod ui;
pub mod view;

use crate::args::Args;
use crate::choose::ModelChoice;
use crate::engine::Engine;
use crate::terminal::raw::RawMode;
use crate::terminal::style::Style;
use crate::terminal::{STDIN, STDOUT};
use blocks::{Block, Kind};
use focus_core::message::Message;
use focus_tui::editor::{self, Editor};
use focus_tui::keybindings;
use focus_tui::keys::{KeyDecoder, KEYBOARD_OFF, KEYBOARD_ON};
use input::Input;
use screen::Screen;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::{Duration, Instant};
use transcript::summary_block;
use ui::Ui;

/// The shortest time between two frames while output streams (30 a second:
/// smooth for text; every frame costs a look at the window, a pty write and a
/// wake-up, and at 60 they were most of what the screen spent on a stream).
/// A key is echoed at once, whatever the time since the last frame.
const FRAME: Duration = Duration::from_millis(33);
/// The spinner's step, and how often an idle screen looks at the window size.
const TICK: Duration = Duration::from_millis(100);

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
    let mut ui = new_ui(engine, args, cwd, prompts, sender, resume);
    ui.open(choice);
    // SIGTERM, SIGHUP (the terminal window closed) and SIGQUIT end focus cleanly:
    // seen within a TICK, they stop the loop like a quit, and the running prompt
    // is finished below (aborted, every tool call answered, the session written).
    crate::terminal::signals::catch_interrupts();
    let signals_before = crate::terminal::signals::interrupts();
    ui.run_loop(&receiver, || {
        crate::terminal::signals::interrupts() != signals_before
    });
    let signalled = crate::terminal::signals::interrupts() > signals_before;
    ui.close(&receiver);
    drop(raw);
    outln!();
    if signalled {
        crate::stopped_exit_code()
    } else {
        0
    }
}

/// The UI's state at start: nothing shown yet, the editor's history loaded,
/// `prompts` waiting to be sent.
fn new_ui<'a>(
    engine: &'a mut Engine,
    args: &Args,
    cwd: &Path,
    prompts: Vec<Message>,
    sender: SyncSender<Input>,
    resume: mpsc::Sender<()>,
) -> Ui<'a> {
    let home = focus_harness::session::focus_home();
    let history_file = editor::history_path(&home);
    Ui {
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
        panels: panels::Panels::default(),
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
    }
}

/// When the loop draws: at once after a key (the echo), at most every FRAME
/// while output streams (a burst of deltas is one frame), every TICK for the
/// spinner and a look at the window's size.
struct Frames {
    last_draw: Instant,
    last_tick: Instant,
    /// Something changed since the last frame.
    dirty: bool,
}

impl Frames {
    /// How long the loop may wait for input: until the next frame is due
    /// when something changed, a FRAME while a prompt runs (its events wait
    /// in its queue meanwhile), else until the next tick.
    fn wait(&self, running: bool) -> Duration {
        if self.dirty {
            FRAME.saturating_sub(self.last_draw.elapsed())
        } else if running {
            FRAME
        } else {
            TICK.saturating_sub(self.last_tick.elapsed())
        }
    }

    /// Whether a tick is due (and if so, counts it: a frame is due too).
    fn tick(&mut self) -> bool {
        if self.last_tick.elapsed() < TICK {
            return false;
        }
        self.last_tick = Instant::now();
        self.dirty = true;
        true
    }

    /// Whether to draw now: a key was typed, or something changed and a
    /// FRAME passed since the last frame.
    fn due(&self, typed: bool) -> bool {
        typed || (self.dirty && self.last_draw.elapsed() >= FRAME)
    }

    /// A frame was drawn.
    fn drawn(&mut self) {
        self.last_draw = Instant::now();
        self.dirty = false;
    }
}

/// Whether `input` is keys typed (their echo is drawn at once).
fn is_typed(input: &Input) -> bool {
    matches!(input, Input::Keys(..) | Input::KeysThenWait(..))
}

impl Ui<'_> {
    /// The first frame: the settings (theme, folded thinking,
    /// keybindings.json) applied, the welcome and the history shown, then the
    /// settings' warnings, the keyboard's modes asked for, the first prompt
    /// given on the command line started.
    fn open(&mut self, choice: &ModelChoice) {
        let mut look = reload::UiSettings::load(&self.cwd);
        let warnings = std::mem::take(&mut look.warnings);
        self.apply_ui_settings(look);
        self.welcome = self.welcome(choice);
        self.walk_files_in_background();
        self.show_history();
        for warning in warnings {
            let text = focus_tools::output::sanitize(&warning).into_owned();
            self.say(&self.style.yellow(&text));
        }
        out!("{KEYBOARD_ON}");
        self.start_next_prompt();
        self.redraw();
    }

    /// Handles inputs and draws frames until a quit, stdin's end, or
    /// `stopped` says a signal came.
    fn run_loop(&mut self, receiver: &Receiver<Input>, stopped: impl Fn() -> bool) {
        let mut frames = Frames {
            last_draw: Instant::now(),
            last_tick: Instant::now(),
            dirty: false,
        };
        while !self.quit && !stopped() {
            let wait = frames.wait(self.engine.conversation.is_busy());
            let mut typed = false;
            match receiver.recv_timeout(wait) {
                Ok(input) => {
                    typed = is_typed(&input);
                    // A key is read against what the conversation says now (a
                    // run that just ended takes prompts and commands again).
                    self.take_conversation_events();
                    self.handle(input);
                    frames.dirty = true;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            // The spinner turns, and the window's size is looked at again.
            if frames.tick() && (self.engine.conversation.is_busy() || self.busy.is_some()) {
                self.frame += 1;
            }
            typed |= self.drain(receiver);
            frames.dirty |= self.take_conversation_events();
            if frames.due(typed) {
                self.redraw();
                frames.drawn();
            }
        }
    }

    /// Handles what is already queued before drawing (a burst of deltas is
    /// one frame); whether keys were among it.
    fn drain(&mut self, receiver: &Receiver<Input>) -> bool {
        let mut typed = false;
        while let Ok(input) = receiver.try_recv() {
            typed |= is_typed(&input);
            self.handle(input);
            if self.quit {
                break;
            }
        }
        typed
    }

    /// The end: the running prompt finished (aborted, every tool call
    /// answered, the session written), the live area erased, the keyboard's
    /// modes given back.
    fn close(&mut self, receiver: &Receiver<Input>) {
        self.stop_conversation(receiver);
        self.screen.finish();
        self.screen.flush();
        out!("{KEYBOARD_OFF}");
    }

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
