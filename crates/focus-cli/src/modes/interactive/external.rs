//! Ctrl+G: the draft in `$VISUAL` or `$EDITOR` (else `vi`), the terminal given
//! to it in its original mode, the edited text back in the editor.
//!
//! The key reader thread must not read the terminal while the other editor
//! does (it would take its keys). So when a read brings a Ctrl+G (as a byte or
//! in the kitty or modifyOtherKeys encoding), the reader hands the bytes over
//! and waits for the UI's word before reading again ([`needs_pause`]); the UI
//! runs the editor, then lets it go on.

use super::ui::Ui;
use crate::terminal::raw::with_original_mode;
use focus_tui::keys::{KEYBOARD_OFF, KEYBOARD_ON};
use std::process::Command;

/// Whether `bytes` may hold a Ctrl+G: the reader waits for the UI after it.
pub fn needs_pause(bytes: &[u8]) -> bool {
    bytes.contains(&0x07) || contains(bytes, b"\x1b[103;5u") || contains(bytes, b"\x1b[27;5;103~")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The editor command: `$VISUAL`, `$EDITOR`, or `vi`.
fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

impl Ui<'_> {
    /// Opens the draft in the external editor and takes the result back (a
    /// trailing newline dropped). The file is private to the user and removed.
    pub(super) fn edit_externally(&mut self) {
        let dir = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!("focus-draft-{}-{nanos}.md", std::process::id()));
        let written = {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            // A new file only (never through a link someone left at that name).
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .and_then(|mut f| f.write_all(self.editor.text().as_bytes()))
        };
        if let Err(error) = written {
            self.notice = Some(format!("cannot write the draft for the editor: {error}"));
            return;
        }
        let command = editor_command();
        self.screen.finish();
        self.screen.flush();
        out!("{}", KEYBOARD_OFF);
        // The command is the user's own setting, run as a shell would ("code
        // -w" has arguments); the file's path is passed as "$1".
        let status = with_original_mode(|| {
            Command::new("sh")
                .arg("-c")
                .arg(format!("{command} \"$1\""))
                .arg("sh")
                .arg(&path)
                .status()
        });
        out!("{}", KEYBOARD_ON);
        self.screen.redraw_all();
        match status {
            Ok(status) if status.success() => match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let text = text.strip_suffix('\n').unwrap_or(&text);
                    self.editor.set_text(text);
                }
                Err(error) => self.notice = Some(format!("cannot read the draft back: {error}")),
            },
            Ok(status) => {
                self.notice = Some(format!(
                    "{command} exited with {status}; the draft is unchanged"
                ))
            }
            Err(error) => self.notice = Some(format!("cannot start {command}: {error}")),
        }
        let _ = std::fs::remove_file(&path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ctrl_g_in_any_encoding_pauses_the_reader() {
        assert!(needs_pause(b"ab\x07"));
        assert!(needs_pause(b"\x1b[103;5u"));
        assert!(needs_pause(b"\x1b[27;5;103~"));
        assert!(!needs_pause(b"hello\x1b[A"));
    }
}
