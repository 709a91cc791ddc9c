//! The differential renderer on the real terminal, from focus-tui's parts
//! alone: each line you send becomes a finished part, committed to the
//! terminal's scrollback once; a live part below it counts the keys pressed
//! and is redrawn at every key with the editor and a footer (the chrome).
//! Resize the window: everything is drawn again at the new width. Ctrl+D on an
//! empty line (or Ctrl+C) ends it, and the terminal gets its mode back.
//!
//! `cargo run -p focus-tui --example screen`

use focus_tui::editor::{EditAction, Editor};
use focus_tui::keys::{Key, KeyDecoder};
use focus_tui::rows::text_rows;
use focus_tui::screen::{Chrome, Part, Screen};
use focus_tui::style::Style;
use focus_tui::terminal::{is_tty, RawMode, STDIN, STDOUT};
use focus_tui::width::text_width;
use std::io::Read;

/// One entry of the log: a line sent (finished), or the key counter (live).
struct Entry {
    text: String,
    finished: bool,
}

impl Part for Entry {
    type Look = Style;

    fn finished(&self) -> bool {
        self.finished
    }

    fn stable_rows(&mut self, style: &Style, width: usize, skip: usize) -> Vec<String> {
        match self.finished {
            true => self.rows_from(style, width, skip),
            false => Vec::new(),
        }
    }

    fn rows_from(&mut self, style: &Style, width: usize, skip: usize) -> Vec<String> {
        let rows = text_rows(&self.text, width.saturating_sub(2));
        let rows = rows.into_iter().skip(skip);
        match self.finished {
            true => rows.map(|r| format!("• {r}")).collect(),
            false => rows.map(|r| style.dim(&format!("  {r}"))).collect(),
        }
    }
}

fn main() {
    if !is_tty(STDIN) {
        eprintln!("screen: standard input is not a terminal");
        std::process::exit(2);
    }
    let style = Style::for_fd(STDOUT);
    let raw = match RawMode::enter(STDIN) {
        Ok(raw) => raw,
        Err(error) => {
            eprintln!("screen: cannot enter raw mode: {error}");
            std::process::exit(1);
        }
    };
    let mut screen = Screen::new();
    let sent = run(&mut screen, &style);
    screen.finish();
    screen.flush();
    drop(raw);
    println!("{sent} line(s) sent; terminal restored.");
}

/// Reads keys and draws a frame after each read, until Ctrl+C or Ctrl+D on an
/// empty line; returns how many lines were sent.
fn run(screen: &mut Screen, style: &Style) -> usize {
    let mut parts = vec![Entry {
        text: "type a line and press Enter".into(),
        finished: true,
    }];
    let mut editor = Editor::new(Vec::new());
    let mut decoder = KeyDecoder::new();
    let (mut keys, mut sent) = (0, 0);
    let mut buf = [0u8; 256];
    loop {
        let counter = Entry {
            text: format!("{keys} key(s) pressed"),
            finished: false,
        };
        parts.push(counter);
        screen.draw(&mut parts, style, &chrome(&editor, style));
        screen.flush();
        parts.pop();
        let n = match std::io::stdin().read(&mut buf) {
            Ok(0) | Err(_) => return sent,
            Ok(n) => n,
        };
        for key in decoder.feed(&buf[..n]) {
            keys += 1;
            match key {
                Key::Ctrl('c') => return sent,
                Key::Ctrl('d') if editor.is_empty() => return sent,
                key => {
                    if let EditAction::Submit(text) | EditAction::FollowUp(text) =
                        editor.handle(&key)
                    {
                        parts.push(Entry {
                            text,
                            finished: true,
                        });
                        sent += 1;
                    }
                }
            }
        }
    }
}

/// The editor's lines under a prompt, the cursor where the editor has it, and
/// a footer.
fn chrome(editor: &Editor, style: &Style) -> Chrome {
    let text = editor.text();
    let before: String = text.chars().take(editor.cursor()).collect();
    let line = before.matches('\n').count();
    let column = 2 + before.rsplit('\n').next().map_or(0, text_width);
    Chrome {
        above: Vec::new(),
        editor: text
            .split('\n')
            .enumerate()
            .map(|(i, l)| format!("{}{l}", if i == 0 { "> " } else { "  " }))
            .collect(),
        cursor: (line, column),
        below: vec![style.dim("Enter sends · Shift+Enter a new line · Ctrl+D ends")],
    }
}
