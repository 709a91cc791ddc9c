//! The system clipboard. `/copy`: text to it, two ways at once, as pi does.
//! Ctrl+V: an image from it ([`read_image`]), through `wl-paste`, `xclip` or
//! `pngpaste` (text is pasted by the terminal itself, bracketed).
//!
//! - OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`), which the terminal itself handles —
//!   it works over SSH and needs nothing installed (tmux passes it on with
//!   `set-clipboard on`);
//! - a clipboard program when one is on `PATH`: `wl-copy` under Wayland,
//!   `xclip` or `xsel` under X11, `pbcopy` on macOS. It runs on a thread of
//!   its own, the text written to its stdin, so a slow or stuck program never
//!   holds the UI (nothing waits for it; its exit is only reaped).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The most bytes sent by OSC 52 (terminals drop longer sequences; xterm's
/// default limit is about 100 KB of base64).
pub const OSC52_LIMIT: usize = 74_994;

/// The OSC 52 sequence that puts `text` on the clipboard, or `None` when it is
/// too long for terminals to take.
pub fn osc52(text: &str) -> Option<String> {
    if text.len() > OSC52_LIMIT {
        return None;
    }
    let encoded = focus_tools::read::base64_encode(text.as_bytes());
    Some(format!("\x1b]52;c;{encoded}\x07"))
}

/// The clipboard programs focus tries, in order, with their arguments; the
/// first found on `PATH` is used. Wayland's comes first only under Wayland.
fn candidates() -> Vec<(&'static str, &'static [&'static str])> {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty());
    let mut list: Vec<(&'static str, &'static [&'static str])> = vec![
        ("xclip", &["-selection", "clipboard"]),
        ("xsel", &["--clipboard", "--input"]),
        ("pbcopy", &[]),
    ];
    let wl: (&'static str, &'static [&'static str]) = ("wl-copy", &[]);
    if wayland {
        list.insert(0, wl);
    } else {
        list.push(wl);
    }
    list
}

/// The full path of program `name` on `PATH`, if it is there.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The clipboard program found, by name, with its path and arguments.
pub fn program() -> Option<(&'static str, PathBuf, &'static [&'static str])> {
    candidates()
        .into_iter()
        .find_map(|(name, args)| on_path(name).map(|path| (name, path, args)))
}

/// Hands `text` to the clipboard program, if there is one, without waiting for
/// it: returns the program's name at once (`None`: no program found).
pub fn copy_with_program(text: &str) -> Option<&'static str> {
    let (name, path, args) = program()?;
    let text = text.to_string();
    std::thread::spawn(move || {
        let child = Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        if let Ok(mut child) = child {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            // stdin closed above: the program sees the end and exits (xclip
            // stays to serve the selection; this thread waits for it alone).
            let _ = child.wait();
        }
    });
    Some(name)
}

/// The most bytes read from the clipboard (an image larger than this would be
/// refused by the providers anyway).
pub const IMAGE_LIMIT: u64 = 20 * 1024 * 1024;

/// The programs that print the clipboard's image, with their arguments.
fn image_readers() -> Vec<(&'static str, &'static [&'static str])> {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty());
    let mut list: Vec<(&'static str, &'static [&'static str])> = vec![
        (
            "xclip",
            &["-selection", "clipboard", "-t", "image/png", "-o"],
        ),
        ("pngpaste", &["-"]),
    ];
    let wl: (&'static str, &'static [&'static str]) =
        ("wl-paste", &["--no-newline", "--type", "image/png"]);
    if wayland {
        list.insert(0, wl);
    } else {
        list.push(wl);
    }
    list
}

/// Reads the clipboard's image on a thread of its own and hands the bytes, or
/// why there are none, to `done` (a program that hangs holds only that
/// thread). `Err` at once when no clipboard program is installed.
pub fn read_image(
    done: impl FnOnce(Result<Vec<u8>, String>) + Send + 'static,
) -> Result<(), String> {
    let (name, path, args) = image_readers()
        .into_iter()
        .find_map(|(name, args)| on_path(name).map(|path| (name, path, args)))
        .ok_or("no clipboard program to read an image from (wl-paste, xclip or pngpaste)")?;
    std::thread::spawn(move || {
        let child = Command::new(path)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let result = match child {
            Ok(mut child) => {
                let mut bytes = Vec::new();
                let read = child
                    .stdout
                    .take()
                    .map(|out| Read::take(out, IMAGE_LIMIT + 1).read_to_end(&mut bytes));
                let status = child.wait();
                match (read, status) {
                    _ if bytes.len() as u64 > IMAGE_LIMIT => {
                        Err("the clipboard's image is over 20 MB".to_string())
                    }
                    (Some(Ok(_)), Ok(status)) if status.success() && !bytes.is_empty() => Ok(bytes),
                    _ => Err(format!("{name} found no image in the clipboard")),
                }
            }
            Err(error) => Err(format!("cannot run {name}: {error}")),
        };
        done(result);
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_encodes_the_text_and_refuses_what_terminals_drop() {
        assert_eq!(osc52("hi").as_deref(), Some("\x1b]52;c;aGk=\x07"));
        assert!(osc52(&"x".repeat(OSC52_LIMIT + 1)).is_none());
    }
}
