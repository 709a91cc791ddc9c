//! Paths and URLs in what the screen shows, as OSC 8 hyperlinks (where
//! [`hyperlinks`](super::hyperlinks) says the terminal shows them): a path
//! found in an answer or a tool's output links to `file://host/abs/path` when
//! that file exists, relative to the session's directory or absolute; bare
//! URLs link to themselves. Finding them is focus-tui's
//! [`links`](focus_tui::links); this file knows the directory and the host.

use focus_tui::links::{file_url, linkify};
use std::path::{Component, Path, PathBuf};

/// The machine's name for `file://` URLs (empty when unknown: `file:///…`).
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|file| std::fs::read_to_string(file).ok())
        .map(|name| name.trim().to_string())
        .unwrap_or_default()
}

/// The `file://` URL of `path` when it names something that exists, relative
/// to the current directory (interactive mode's session directory: focus
/// starts there and never changes it).
pub fn resolve_path(path: &str) -> Option<String> {
    let joined = std::env::current_dir().ok()?.join(path);
    std::fs::symlink_metadata(&joined).ok()?;
    Some(file_url(&host_name(), normal(&joined).to_str()?))
}

/// [`resolve_path`] for a directory and host given.
pub fn resolve_in(root: &Path, host: &str, path: &str) -> Option<String> {
    let joined = root.join(path);
    std::fs::symlink_metadata(&joined).ok()?;
    let absolute = normal(&joined);
    Some(file_url(host, absolute.to_str()?))
}

/// `path` without `.` and with each `..` taking its parent off (the file
/// exists, so this names the same one unless a symbolic link is crossed
/// backwards; a link's target is what a terminal opens either way).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A line of a tool's output (plain, clipped) with its paths and URLs linked.
/// A word cut by the clip (the last one, before the `…` it ends with) stays
/// plain: a link's target would be wrong.
pub fn link_line(line: &str) -> String {
    let resolve = |path: &str| resolve_path(path);
    match line.strip_suffix('…') {
        Some(kept) => {
            let (whole, cut) = kept.split_at(kept.rfind(' ').map_or(0, |i| i + 1));
            format!("{}{cut}…", linkify(whole, &resolve))
        }
        None => linkify(line, &resolve),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_paths_link_to_file_urls() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let url = resolve_in(root, "box", "src/../src/main.rs").unwrap();
        assert_eq!(url, format!("file://box{}/src/main.rs", root.display()));
        assert_eq!(resolve_in(root, "box", "src/no_such_file.rs"), None);
        let absolute = resolve_in(root, "", "/").unwrap();
        assert_eq!(absolute, "file:///");
    }

    #[test]
    fn a_link_cut_by_the_clip_stays_plain() {
        let out = link_line("see https://e.com/a and https://e.com/lon…");
        assert_eq!(
            out,
            "see \x1b]8;;https://e.com/a\x1b\\https://e.com/a\x1b]8;;\x1b\\ and https://e.com/lon…"
        );
        assert_eq!(link_line("no links here"), "no links here");
    }
}
