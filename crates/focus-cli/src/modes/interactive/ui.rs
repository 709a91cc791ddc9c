//! The interactive mode's state: one [`Ui`] that the files of the mode extend
//! with `impl Ui` blocks, each for its own job (keys, commands, pickers,
//! `/tree`, the view). This file sits below all of them: it names the state's
//! parts, which live in files that know nothing of the `Ui` (the screen, the
//! blocks, the open picker, the `/tree` navigator, the `/rewind` and `/diff` views, the project's files, the
//! loop's inputs), so no file of the mode imports a file that imports it back.

use super::blocks::Block;
use super::input::Input;
use super::notes::Said;
use super::panels::Panels;
use super::popup::Popup;
use super::project_files::FileIndex;
use super::screen::Screen;
use super::tree_view::TreeView;
use crate::engine::Engine;
use crate::terminal::style::Style;
use focus_core::cancel::CancelToken;
use focus_core::message::{Content, Message};
use focus_tui::editor::Editor;
use focus_tui::keybindings;
use focus_tui::keys::KeyDecoder;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{self, SyncSender};
use std::time::Instant;

/// The UI's state.
pub struct Ui<'a> {
    pub(super) engine: &'a mut Engine,
    pub(super) cwd: PathBuf,
    pub(super) style: Style,
    pub(super) screen: Screen,
    pub(super) editor: Editor,
    pub(super) decoder: KeyDecoder,
    pub(super) history_file: PathBuf,
    /// The conversation as the screen shows it.
    pub(super) blocks: Vec<Block>,
    /// The first blocks (the welcome), kept when the transcript is replaced.
    pub(super) welcome: String,
    pub(super) show_thinking: bool,
    /// Links as OSC 8 hyperlinks ([`supported`](super::hyperlinks::supported)).
    pub(super) hyperlinks: bool,
    /// Images drawn inline with this protocol ([`focus_tui::graphics::protocol`]).
    pub(super) graphics: Option<focus_tui::graphics::Protocol>,
    /// The host of `file://` links ([`super::linkify::host_name`]).
    pub(super) host: focus_tui::links::Host,
    pub(super) waiting: bool,
    /// Something slow is going on outside a model call ("retrying"): the notice
    /// spins.
    pub(super) busy: Option<&'static str>,
    pub(super) frame: usize,
    /// The notice line above the editor.
    pub(super) notice: Option<String>,
    /// What focus said in this session, put back when the transcript is
    /// rebuilt ([`notes`](super::notes)).
    pub(super) said: Said,
    /// Steering (false) and follow-up (true) messages not yet sent.
    pub(super) queued: Vec<(bool, String)>,
    /// The git branch of the working directory (read at start and after each
    /// run: a tool may have switched it).
    pub(super) git_branch: Option<String>,
    pub(super) ctrl_c_armed: bool,
    pub(super) pending_prompts: VecDeque<Message>,
    pub(super) approval: Option<crate::approval::PendingApproval>,
    /// When the open approval dialog was first drawn (keys before that, or too
    /// soon after, are not answers: [`dialog`]).
    pub(super) approval_drawn: Option<Instant>,
    /// Typing a reason for a denial (in `reason`: the draft stays in `editor`).
    pub(super) denying: bool,
    pub(super) reason: Editor,
    /// The open picker (command menu, `@` files, models).
    pub(super) popup: Option<Popup>,
    /// The open `/tree` navigator.
    pub(super) tree: Option<TreeView>,
    /// The open `/rewind` or `/diff` view, and Esc Esc.
    pub(super) panels: Panels,
    /// A branch left in `/tree` being summarized: its cancel token.
    pub(super) summarizing: Option<CancelToken>,
    /// The project's files for `@`, walked in the background.
    pub(super) file_index: FileIndex,
    /// Files picked with `@` since the last message was sent.
    pub(super) attached: Vec<String>,
    /// Images pasted with Ctrl+V, by the label the input shows for each.
    pub(super) pasted_images: Vec<(String, Content)>,
    /// Keys `keybindings.json` changed.
    pub(super) bindings: keybindings::Bindings,
    /// A `!command` running: its cancel token.
    pub(super) shell: Option<CancelToken>,
    /// Lets the key reader read again after a [`Input::KeysThenWait`].
    pub(super) resume: mpsc::Sender<()>,
    pub(super) inputs: SyncSender<Input>,
    /// `--models` was given: `/reload` leaves the scope alone.
    pub(super) scope_from_flag: bool,
    pub(super) quit: bool,
}

impl Ui<'_> {
    /// Starts walking the project's files in the background (unless a walk is
    /// going on); they arrive as [`Input::FilesWalked`].
    pub(super) fn walk_files_in_background(&mut self) {
        let sender = self.inputs.clone();
        self.file_index
            .walk_in_background(&self.cwd, move |walked| {
                let _ = sender.send(Input::FilesWalked(walked));
            });
    }
}
