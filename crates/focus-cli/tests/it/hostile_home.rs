//! A damaged or unwritable FOCUS_HOME, and attachments that are not files: the
//! user is told what was wrong and where, and can still work.

use crate::support::{stderr, stdout, Sandbox};

#[test]
fn damaged_session_lines_are_named_on_stderr() {
    // The loader's notes (corrupt line skipped, torn tail) were collected and
    // never shown, so a user could not tell their session had lost entries.
    let s = Sandbox::new();
    let file = s.root.join("broken.jsonl");
    std::fs::write(&file, "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}\nnot json \u{1b}[2J at all\n{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"mess").unwrap();
    let out = s.run(
        &[
            "-p",
            "--no-tools",
            "--session",
            file.to_str().unwrap(),
            "next",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: line 2: skipped corrupt line", file.display())),
        "{err}"
    );
    assert!(err.contains("line 4: incomplete last line"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn an_unwritable_session_directory_warns_and_still_answers() {
    // Creating the session file failed and focus exited 1 before doing anything.
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("sessions"),
        "a file where the directory should be",
    )
    .unwrap();
    let out = s.run(&["-p", "--no-tools", "hello"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("this conversation will not be saved"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("demo"), "{}", stdout(&out));
    assert!(s.home.join("sessions").is_file());
}

#[test]
fn attaching_a_device_or_fifo_is_refused_at_once() {
    // `@/dev/zero` was read until memory ran out; a FIFO blocked forever.
    let s = Sandbox::new();
    let fifo = s.work.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|st| st.success());
    let mut targets = vec!["@/dev/zero".to_string()];
    if made {
        targets.push("@pipe".to_string());
    }
    for target in targets {
        let out = s.run(&["-p", "--no-tools", "--no-session", &target, "hi"], "");
        assert!(!out.status.success(), "{target}");
        assert!(
            stderr(&out).contains("not a regular file"),
            "{target}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_session_path_that_is_not_a_file_is_refused_at_once() {
    // `--session /dev/zero` was read until memory ran out.
    let s = Sandbox::new();
    for target in ["/dev/zero", s.work.to_str().unwrap()] {
        let out = s.run(&["-p", "--no-tools", "--session", target, "hi"], "");
        assert_eq!(out.status.code(), Some(1), "{target}");
        assert!(
            stderr(&out).contains("is not a session file"),
            "{target}: {}",
            stderr(&out)
        );
    }
}
