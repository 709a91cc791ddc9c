//! Links and images in a real terminal (tmux, as in [`crate::interactive`]):
//! URLs and existing paths in an answer and in grep's output reach the
//! terminal as OSC 8 hyperlinks when asked for (`FOCUS_HYPERLINKS=1`; tmux
//! itself gets plain text), a hostile URL's escapes never reach it at all, and
//! an image a tool returns or the user attaches shows as `[image WxH, N KB]`
//! (drawn with kitty's protocol only when that is forced, since tmux does not
//! announce graphics). The bytes focus wrote are read with `pipe-pane`.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// focus in a pane, the test's environment changed by `env` (pairs replacing
/// the defaults), everything it writes from now on copied to a file (the
/// file's path is returned).
fn start_recorded(s: &Sandbox, env: &[(&str, &str)], args: &[&str]) -> (Pane, PathBuf) {
    let mut focus = Pane::focus_command(s, args);
    for (from, to) in env {
        focus = focus.replace(from, to);
    }
    let command = format!("{focus}; echo FOCUS-EXITED-$?; sleep 30");
    let pane = Pane::launch(s, "l", &command);
    pane.wait_for("the prompt", "›");
    let raw = s.root.join("raw-output");
    let to_file = format!("cat >> '{}'", raw.display());
    assert!(Command::new("tmux")
        .args(["pipe-pane", "-o", "-t", pane.name(), &to_file])
        .status()
        .unwrap()
        .success());
    (pane, raw)
}

/// What focus wrote so far (lossy: the checks are on ASCII sequences).
fn written(raw: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(raw).unwrap_or_default()).into_owned()
}

/// The hyperlink of `label` to `target`, as focus writes it.
fn link(target: &str, label: &str) -> String {
    format!("\x1b]8;;{target}\x1b\\{label}\x1b]8;;\x1b\\")
}

/// A scenario: grep for `needle`, then an answer with a URL, a path with a
/// line, and two hostile URLs (a Markdown link and a bare one) carrying a
/// window-title escape ended by BEL.
const LINKS_SCENARIO: &str = r#"{"name":"l","steps":[
  {"reply":{"text":"Looking.","toolCalls":[{"name":"grep","arguments":{"pattern":"needle"}}]}},
  {"reply":{"text":"See https://example.com/docs. and src/found.rs:3 or [x](https://e.com/\u001b]0;pwned\u0007) and https://e.com/a\u001b]0;pwned\u0007b end-marker"}}
]}"#;

fn links_sandbox() -> (Sandbox, focus_testkit::mock_llm::MockLlm) {
    let s = Sandbox::new();
    std::fs::create_dir_all(s.work.join("src")).unwrap();
    std::fs::write(
        s.work.join("src/found.rs"),
        "fn a() {}\nfn b() {}\nlet needle = 1;\n",
    )
    .unwrap();
    let server = mock(LINKS_SCENARIO);
    s.write_models(&server.url());
    (s, server)
}

#[test]
fn urls_and_paths_are_hyperlinks_and_hostile_urls_stay_harmless() {
    if !tmux_available() {
        return;
    }
    let (s, _server) = links_sandbox();
    let on = [("NO_COLOR=1", "NO_COLOR=1 FOCUS_HYPERLINKS=1")];
    let (pane, raw) = start_recorded(&s, &on, &["--model", "mock-openai/m1"]);
    pane.send("find it", "end-marker");
    pane.wait_for("the idle footer", "○ ");
    let out = written(&raw);
    let work = std::fs::canonicalize(&s.work).unwrap();
    let file = format!("{}/src/found.rs\x1b\\", work.display());
    assert!(
        out.contains(&link(
            "https://example.com/docs",
            "https://example.com/docs"
        )),
        "the URL, without its full stop, is a link: {out:?}"
    );
    assert!(
        out.contains(&format!("{file}src/found.rs:3\x1b]8;;\x1b\\")),
        "the path with its line links to the file: {out:?}"
    );
    // grep's output names the file too: a second link to it.
    assert!(
        out.matches(&file).count() >= 2,
        "grep's line is a link: {out:?}"
    );
    assert!(out.contains("\x1b]8;;file://"), "{out:?}");
    // The hostile URLs: their escapes never reach the terminal, not even
    // inside a link's target (the bare one is linked up to the escape).
    assert!(
        !out.contains("\x1b]0;"),
        "a title escape got through: {out:?}"
    );
    assert!(!out.contains('\x07'), "a BEL got through: {out:?}");
    assert!(!out.contains("pwned"), "{out:?}");
    assert!(
        out.contains(&link("https://e.com/ab", "https://e.com/ab")),
        "{out:?}"
    );
    // What tmux shows: the text, as written.
    pane.wait_for_visible(
        "the answer's text",
        &[
            "See https://example.com/docs. and src/found.rs:3",
            "https://e.com/ab end-marker",
        ],
    );
}

#[test]
fn inside_tmux_without_a_request_links_are_plain_text() {
    if !tmux_available() {
        return;
    }
    let (s, _server) = links_sandbox();
    // No FOCUS_HYPERLINKS: inside tmux (and under NO_COLOR) no link is written.
    let (pane, raw) = start_recorded(&s, &[], &["--model", "mock-openai/m1"]);
    pane.send("find it", "end-marker");
    pane.wait_for("the idle footer", "○ ");
    let out = written(&raw);
    assert!(out.contains("src/found.rs:3"), "{out:?}");
    assert!(!out.contains("\x1b]8;"), "a hyperlink inside tmux: {out:?}");
    assert!(!out.contains("pwned") && !out.contains('\x07'), "{out:?}");
}

/// A PNG's signature and header for 640×480, then 2,000 bytes: 2,033 in all.
fn picture() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&640u32.to_be_bytes());
    bytes.extend_from_slice(&480u32.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes.resize(2033, 0);
    bytes
}

const IMAGE_SCENARIO: &str = r#"{"name":"i","steps":[
  {"reply":{"text":"Reading.","toolCalls":[{"name":"read","arguments":{"path":"pic.png"}}]}},
  {"reply":{"text":"seen end-marker"}}
]}"#;

/// The image `read` returns and the one attached on the command line are
/// named with their size; tmux announces no graphics, so none are written.
#[test]
fn images_are_named_with_their_size() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(s.work.join("pic.png"), picture()).unwrap();
    let server = mock(IMAGE_SCENARIO);
    s.write_models(&server.url());
    let (pane, raw) = start_recorded(&s, &[], &["--model", "mock-openai/m1"]);
    pane.send("look at pic.png", "end-marker");
    let screen = pane.wait_for("the idle footer", "○ ");
    assert!(screen.contains("[image 640x480, 2 KB]"), "{screen}");
    let out = written(&raw);
    assert!(
        !out.contains("\x1b_G") && !out.contains("1337;File"),
        "{out:?}"
    );
    drop(pane);

    // Attached on the command line: the prompt's block names it.
    let server = mock(r#"{"name":"a","steps":[{"reply":{"text":"a picture end-marker"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1", "@pic.png", "what is it"]);
    let screen = pane.wait_for("the answer", "a picture end-marker");
    assert!(screen.contains("[image 640x480, 2 KB]"), "{screen}");
}

/// With a protocol forced (`FOCUS_IMAGES=kitty` or `iterm2`), the image goes
/// out as that protocol's escape (tmux drops it) with the file's own base64,
/// and the screen around it stays whole: the answer comes after the image's
/// rows, and no part of the escape shows as text.
#[test]
fn a_forced_protocol_writes_the_image_and_keeps_the_screen() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(s.work.join("pic.png"), picture()).unwrap();
    for (protocol, escape) in [
        ("kitty", "\x1b_Ga=T,f=100,t=d,q=2,C=1,"),
        ("iterm2", "\x1b]1337;File=inline=1;size=2033;"),
    ] {
        let server = mock(IMAGE_SCENARIO);
        s.write_models(&server.url());
        let forced = format!("FOCUS_IMAGES={protocol}");
        let env = [("NO_COLOR=1", forced.as_str())];
        let (pane, raw) = start_recorded(&s, &env, &["--model", "mock-openai/m1"]);
        pane.send("look at pic.png", "end-marker");
        let screen = pane.wait_for("the idle footer", "○ ");
        let out = written(&raw);
        let _ = std::fs::remove_file(&raw);
        assert!(out.contains(escape), "{protocol}: {out:?}");
        // The payload is the file's own base64, drawn once.
        assert_eq!(
            out.matches("iVBORw0KGgoAAAANSUhEUgAAAoAAAAHg").count(),
            1,
            "{out:?}"
        );
        let rows: Vec<&str> = screen.lines().collect();
        let label = rows
            .iter()
            .position(|r| r.contains("[image 640x480, 2 KB]"));
        let answer = rows.iter().position(|r| r.contains("seen end-marker"));
        match (label, answer) {
            (Some(label), Some(answer)) => assert!(answer > label + 12, "{screen}"),
            _ => panic!("{protocol}: the label or the answer is missing:\n{screen}"),
        }
        for text in ["Ga=T", "1337", "iVBOR"] {
            assert!(
                !screen.contains(text),
                "the escape shows as text:\n{screen}"
            );
        }
    }
}
