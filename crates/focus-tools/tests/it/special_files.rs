//! Issue 19, item 4: reading special files never blocks. `/proc/kmsg` looks
//! like an empty regular file but its reads wait for the kernel; a FIFO waits
//! for a writer. Reached directly or through a symbolic link in the project,
//! `read` and `grep` answer at once and say what was skipped.

use crate::support::common;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use common::{call, tool, TempTree};
use focus_core::json_object;
use focus_core::tool::ToolOutput;

/// Generous: a blocked call never answers, a working one answers in milliseconds.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// Runs `name` with `args` on its own thread; the output, or a panic naming
/// the call if it has not answered within [`ANSWER_WITHIN`].
fn call_in_time(name: &str, cwd: &Path, args: focus_core::json::Value) -> ToolOutput {
    let (send, receive) = mpsc::channel();
    let tool = tool(name, cwd);
    let shown = args.to_json_string();
    std::thread::spawn(move || {
        let _ = send.send(call(&*tool, args));
    });
    receive
        .recv_timeout(ANSWER_WITHIN)
        .unwrap_or_else(|_| panic!("{name} {shown} blocked for {ANSWER_WITHIN:?}"))
}

/// Whether this process may open `/proc/kmsg` (root in a container); the
/// kernel-file cases need it.
fn kmsg_readable() -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(0o4000)
        .open("/proc/kmsg")
        .is_ok()
}

#[test]
fn read_and_grep_of_proc_kmsg_through_a_project_symlink_answer_at_once() {
    if !kmsg_readable() {
        eprintln!("skipped: /proc/kmsg cannot be opened by this user");
        return;
    }
    let tree = TempTree::new("kmsg");
    tree.write("src/a.txt", "hello\n");
    std::os::unix::fs::symlink("/proc/kmsg", tree.path("src/log")).unwrap();

    let out = call_in_time("read", &tree.root, json_object! { "path" => "src/log" });
    assert!(out.is_error, "{}", out.text_content());
    assert!(
        out.text_content()
            .contains("cannot be read without waiting"),
        "{}",
        out.text_content()
    );

    let out = call_in_time("read", &tree.root, json_object! { "path" => "/proc/kmsg" });
    assert!(out.is_error, "{}", out.text_content());

    let out = call_in_time(
        "grep",
        &tree.root,
        json_object! { "pattern" => "x", "path" => "src/log" },
    );
    assert!(out.is_error, "{}", out.text_content());
    assert!(out
        .text_content()
        .contains("cannot be read without waiting"));

    let out = call_in_time("grep", &tree.root, json_object! { "pattern" => "hello" });
    assert!(!out.is_error, "{}", out.text_content());
    let text = out.text_content();
    assert!(text.contains("src/a.txt:1: hello"), "{text}");
    assert!(text.contains("1 special file"), "{text}");
}

#[test]
fn read_and_grep_of_a_fifo_in_the_tree_answer_at_once() {
    let tree = TempTree::new("fifo");
    tree.write("a.txt", "needle\n");
    let made = std::process::Command::new("mkfifo")
        .arg(tree.path("pipe"))
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    std::os::unix::fs::symlink(tree.path("pipe"), tree.path("link")).unwrap();

    for path in ["pipe", "link"] {
        let out = call_in_time("read", &tree.root, json_object! { "path" => path });
        assert!(out.is_error);
        assert!(
            out.text_content().contains("named pipe"),
            "{}",
            out.text_content()
        );
        let out = call_in_time(
            "grep",
            &tree.root,
            json_object! { "pattern" => "needle", "path" => path },
        );
        assert!(out.is_error);
        assert!(
            out.text_content().contains("named pipe"),
            "{}",
            out.text_content()
        );
    }
    let out = call_in_time("grep", &tree.root, json_object! { "pattern" => "needle" });
    let text = out.text_content();
    assert!(text.contains("a.txt:1: needle"), "{text}");
    assert!(text.contains("2 special files"), "{text}");
}
