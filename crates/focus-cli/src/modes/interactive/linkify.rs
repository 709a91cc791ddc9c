//! Paths and URLs in what the screen shows, as OSC 8 hyperlinks (where
//! [`hyperlinks`](super::hyperlinks) says the terminal shows them): a path
//! found in an answer or a tool's output links to `file://host/abs/path` when
//! that file exists, relative to the session's directory or absolute; bare
//! URLs link to themselves. Finding them is focus-tui's
//! [`links`](focus_tui::links); this file knows the directory and the host.

use focus_tui::links::{file_url, linkify, Host};
use std::path::{Component, Path, PathBuf};

/// The machine's name for `file://` URLs (none when unknown: `file:///…`),
/// read once when the screen starts.
pub fn host_name() -> Host {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|file| std::fs::read_to_string(file).ok())
        .map_or_else(Host::default, |name| Host::new(&name))
}

/// The absolute path of what `path` names when it exists, relative to the
/// current directory (interactive mode's session directory: focus starts
/// there and never changes it).
pub fn resolve_path(path: &str) -> Option<PathBuf> {
    resolve_in(&std::env::current_dir().ok()?, path)
}

/// [`resolve_path`] relative to `root`.
pub fn resolve_in(root: &Path, path: &str) -> Option<PathBuf> {
    let joined = root.join(path);
    std::fs::symlink_metadata(&joined).ok()?;
    Some(normal(&joined))
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

/// A line of a tool's output (plain, clipped) with its paths and URLs linked,
/// paths found under the directory `under` (`.`: the current one; `ls`
/// lists names in the directory it was given) as `file://` URLs on `host`.
/// A word cut by the clip (the last one, before the `…` it ends with) stays
/// plain: a link's target would be wrong.
pub fn link_line(line: &str, host: Host, under: &str) -> String {
    let resolve = |path: &str| {
        let path = Path::new(under).join(path);
        file_url(host.as_str(), resolve_path(path.to_str()?)?.to_str()?).into()
    };
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
        let found = resolve_in(root, "src/../src/./main.rs").unwrap();
        assert_eq!(found, root.join("src/main.rs"));
        assert_eq!(resolve_in(root, "src/no_such_file.rs"), None);
        assert_eq!(resolve_in(root, "/").unwrap(), Path::new("/"));
    }

    /// With hyperlinks on, the model's escapes in an answer and in a tool's
    /// output still never reach a row: every escape in the rows is a colour
    /// (`ESC [ … m`) or a hyperlink of focus's with a printable target.
    #[test]
    fn hostile_text_with_links_on_writes_only_focus_sequences() {
        use crate::modes::interactive::blocks::{Block, Kind, Look, Streamed};
        use crate::modes::interactive::tool_view::ToolBlock;
        use crate::terminal::style::Style;
        let evil = "see https://e.com/a\x1b]0;pwned\x07b and [x](https://e.com/\x1b]8;;evil\x07) \
                    Cargo.toml\u{9c} https://e.com/\u{9b}2J src/main.rs:1\x1b[2J";
        let mut tool = ToolBlock::new("c1", "grep", &Default::default());
        tool.end(
            format!("{evil}\nsrc/main.rs:3:{evil}"),
            Default::default(),
            false,
        );
        let mut blocks = vec![
            Block::done(Kind::Answer(Streamed::new(&format!(
                "{evil}\n| {evil} | x |\n"
            )))),
            Block::done(Kind::Tool(Box::new(tool))),
        ];
        let look = Look {
            width: 50,
            style: Style::COLOR,
            show_thinking: true,
            hyperlinks: true,
            graphics: None,
            host: Host::new("h"),
        };
        let mut links = 0;
        for block in &mut blocks {
            for row in block.rows_from(&look, 0) {
                let mut rest = row.as_str();
                while let Some(at) = rest.find('\x1b') {
                    rest = &rest[at..];
                    if let Some(target) = rest.strip_prefix("\x1b]8;;") {
                        let end = target.find("\x1b\\").expect("a closed hyperlink");
                        let target = &target[..end];
                        assert!(
                            target.is_empty() || focus_tui::links::safe_target(target),
                            "{row:?}"
                        );
                        links += usize::from(!target.is_empty());
                        rest = &rest[5 + end + 2..];
                    } else {
                        let csi = rest.strip_prefix("\x1b[").expect("an SGR");
                        let end = csi.find(|c: char| c.is_ascii_alphabetic()).unwrap();
                        assert_eq!(&csi[end..=end], "m", "{row:?}");
                        rest = &csi[end + 1..];
                    }
                }
                assert!(!row.contains(['\x07', '\u{9b}', '\u{9c}']), "{row:?}");
                assert!(!row.contains("pwned") && !row.contains("evil"), "{row:?}");
            }
        }
        assert!(links >= 4, "{links}");
    }

    /// `ls src` shows `main.rs`: it links to `src/main.rs`.
    #[test]
    fn names_link_under_the_directory_given() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let under = format!("{}/src", root.display());
        let linked = link_line("main.rs no_such.rs", Host::new("h"), &under);
        let target = format!("file://h{}/src/main.rs", root.display());
        assert_eq!(
            linked,
            format!("\x1b]8;;{target}\x1b\\main.rs\x1b]8;;\x1b\\ no_such.rs")
        );
    }

    #[test]
    fn a_link_cut_by_the_clip_stays_plain() {
        let out = link_line(
            "see https://e.com/a and https://e.com/lon…",
            Host::default(),
            ".",
        );
        assert_eq!(
            out,
            "see \x1b]8;;https://e.com/a\x1b\\https://e.com/a\x1b]8;;\x1b\\ and https://e.com/lon…"
        );
        assert_eq!(
            link_line("no links here", Host::new("h"), "."),
            "no links here"
        );
    }
}
