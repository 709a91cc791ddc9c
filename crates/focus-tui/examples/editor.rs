//! A small line editor on the real terminal, from focus-tui's parts alone: keys
//! are decoded ([`KeyDecoder`]), edited ([`Editor`]), and the line is redrawn;
//! Enter prints what was typed, Ctrl+D on an empty line (or Ctrl+C) ends it, and
//! the terminal gets its mode back on the way out.
//!
//! `cargo run -p focus-tui --example editor`

use focus_tui::editor::{EditAction, Editor};
use focus_tui::keys::{Key, KeyDecoder};
use focus_tui::style::Style;
use focus_tui::terminal::{is_tty, RawMode, STDIN, STDOUT};
use focus_tui::width::text_width;
use std::io::{Read, Write};

fn main() {
    if !is_tty(STDIN) {
        eprintln!("editor: standard input is not a terminal");
        std::process::exit(2);
    }
    let style = Style::for_fd(STDOUT);
    let raw = match RawMode::enter(STDIN) {
        Ok(raw) => raw,
        Err(error) => {
            eprintln!("editor: cannot enter raw mode: {error}");
            std::process::exit(1);
        }
    };
    let typed = edit_lines(&style);
    drop(raw);
    println!("\r\x1b[2K{typed} line(s) typed; terminal restored.");
}

/// Reads keys until Ctrl+C or Ctrl+D on an empty line; returns how many lines
/// were submitted.
fn edit_lines(style: &Style) -> usize {
    let mut editor = Editor::new(Vec::new());
    let mut decoder = KeyDecoder::new();
    let mut stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut buf = [0u8; 256];
    let mut submitted = 0;
    let prompt = style.dim("> ");
    redraw(&mut out, &prompt, &editor);
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => return submitted,
            Ok(n) => n,
        };
        for key in decoder.feed(&buf[..n]) {
            match key {
                Key::Ctrl('c') => return submitted,
                Key::Ctrl('d') if editor.is_empty() => return submitted,
                key => {
                    if let EditAction::Submit(text) | EditAction::FollowUp(text) =
                        editor.handle(&key)
                    {
                        let _ = write!(out, "\r\n{}\r\n", text.replace('\n', "\r\n"));
                        submitted += 1;
                    }
                }
            }
        }
        redraw(&mut out, &prompt, &editor);
    }
}

/// Draws the first line of the buffer after the prompt and puts the cursor where
/// the editor has it (the example keeps to one screen row).
fn redraw(out: &mut impl Write, prompt: &str, editor: &Editor) {
    let text = editor.text().replace('\n', " ");
    let before: String = text.chars().take(editor.cursor()).collect();
    let column = 2 + text_width(&before);
    let _ = write!(out, "\r\x1b[2K{prompt}{text}\r\x1b[{column}C");
    let _ = out.flush();
}
