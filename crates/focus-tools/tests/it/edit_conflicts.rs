//! Issue 19, item 6: `edit` and `write` notice that a file changed since focus
//! read it and refuse; they keep the file's mode, its hard links and its open
//! writers; concurrent appends are never lost.

use crate::support::common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::{Command, Stdio};

use common::{call, tool, tool_in, TempTree};
use focus_core::json::Value;
use focus_core::{json_array, json_object};
use focus_tools::ToolState;

fn edit_args(path: &str, old: &str, new: &str) -> Value {
    json_object! {
        "path" => path,
        "edits" => json_array![json_object! { "oldText" => old, "newText" => new }],
    }
}

#[test]
fn an_edit_after_someone_else_changed_the_file_is_refused_until_it_is_read_again() {
    let tree = TempTree::new("changed-since-read");
    tree.write("a.txt", "one\ntwo\n");
    // One state: what `read` saw is what `edit` and `write` check against.
    let state = ToolState::unconfined();
    let (read, edit, write) = (
        tool_in("read", &tree.root, &state),
        tool_in("edit", &tree.root, &state),
        tool_in("write", &tree.root, &state),
    );
    assert!(!call(&*read, json_object! { "path" => "a.txt" }).is_error);
    // The user changes the file behind focus's back (same size: only the hash tells).
    std::fs::write(tree.path("a.txt"), "one\nTWO\n").unwrap();
    let out = call(&*edit, edit_args("a.txt", "one", "1"));
    assert!(out.is_error);
    assert!(
        out.text_content().contains("changed since focus last read"),
        "{}",
        out.text_content()
    );
    assert!(out.text_content().contains("Read it again"));
    let out = call(
        &*write,
        json_object! { "path" => "a.txt", "content" => "x" },
    );
    assert!(out.is_error, "{}", out.text_content());
    assert_eq!(
        tree.read("a.txt"),
        "one\nTWO\n",
        "the user's change is kept"
    );

    // Read again: the edit goes through, and its own write does not count as a change.
    assert!(!call(&*read, json_object! { "path" => "a.txt" }).is_error);
    let out = call(&*edit, edit_args("a.txt", "one", "1"));
    assert!(!out.is_error, "{}", out.text_content());
    let out = call(&*edit, edit_args("a.txt", "TWO", "2"));
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(tree.read("a.txt"), "1\n2\n");
    // A grown file is named by its sizes.
    std::fs::OpenOptions::new()
        .append(true)
        .open(tree.path("a.txt"))
        .unwrap()
        .write_all(b"3\n")
        .unwrap();
    let out = call(&*edit, edit_args("a.txt", "1", "one"));
    assert!(
        out.text_content().contains("from 4 to 6 bytes"),
        "{}",
        out.text_content()
    );
}

#[test]
fn mode_and_hard_links_are_kept() {
    let tree = TempTree::new("links");
    let path = tree.write("run.sh", "echo old\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
    std::fs::hard_link(&path, tree.path("other-name.sh")).unwrap();
    let inode = std::fs::metadata(&path).unwrap().ino();
    let out = call(
        &*tool("edit", &tree.root),
        edit_args("run.sh", "old", "new"),
    );
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(out.details["written"].as_str(), Some("in place"));
    assert_eq!(
        tree.read("other-name.sh"),
        "echo new\n",
        "the other link sees it"
    );
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.ino(), inode);
    assert_eq!(meta.permissions().mode() & 0o777, 0o751);

    // One link: replaced atomically, mode kept.
    let single = tree.write("single.sh", "echo old\n");
    std::fs::set_permissions(&single, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = call(
        &*tool("write", &tree.root),
        json_object! { "path" => "single.sh", "content" => "echo new\n" },
    );
    assert_eq!(out.details["written"].as_str(), Some("atomically"));
    let mode = std::fs::metadata(&single).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn a_writer_holding_the_file_open_keeps_writing_into_it() {
    let tree = TempTree::new("open-writer");
    tree.write("log.txt", "header\n");
    // A process that opens the file for appending, says so, waits for a line
    // on its stdin, then writes through the descriptor it held all along.
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg("exec 3>>log.txt; echo ready; read go; echo late >&3")
        .current_dir(&tree.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(writer.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert_eq!(ready, "ready\n");
    let out = call(
        &*tool("edit", &tree.root),
        edit_args("log.txt", "header", "HEADER"),
    );
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(out.details["written"].as_str(), Some("in place"));
    writer.stdin.take().unwrap().write_all(b"go\n").unwrap();
    assert!(writer.wait().unwrap().success());
    assert_eq!(
        tree.read("log.txt"),
        "HEADER\nlate\n",
        "the writer's line arrived"
    );
}

#[test]
fn edits_racing_a_appending_loop_lose_no_line() {
    const LINES: usize = 3000;
    let tree = TempTree::new("appends");
    tree.write("log.txt", "HEADER 0\n");
    let mut appender = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "i=1; while [ $i -le {LINES} ]; do echo \"line $i\" >> log.txt; i=$((i+1)); done"
        ))
        .current_dir(&tree.root)
        .spawn()
        .unwrap();
    let state = ToolState::unconfined();
    let (read, edit) = (
        tool_in("read", &tree.root, &state),
        tool_in("edit", &tree.root, &state),
    );
    let (mut done, mut refused, mut header) = (0, 0, 0);
    loop {
        let finished = appender.try_wait().unwrap().is_some();
        let _ = call(&*read, json_object! { "path" => "log.txt", "limit" => 1 });
        let out = call(
            &*edit,
            edit_args(
                "log.txt",
                &format!("HEADER {header}\n"),
                &format!("HEADER {}\n", header + 1),
            ),
        );
        if out.is_error {
            refused += 1;
        } else {
            done += 1;
            header += 1;
        }
        if finished {
            break;
        }
    }
    assert!(appender.wait().unwrap().success());
    let text = tree.read("log.txt");
    assert!(
        text.starts_with(&format!("HEADER {header}\n")),
        "{}",
        &text[..40]
    );
    let mut seen = vec![0u32; LINES + 1];
    for line in text.lines().skip(1) {
        let n: usize = line.strip_prefix("line ").unwrap().parse().unwrap();
        seen[n] += 1;
    }
    let lost: Vec<usize> = (1..=LINES).filter(|&n| seen[n] != 1).collect();
    assert!(
        lost.is_empty(),
        "{} lines lost or doubled (first {:?}); {done} edits done, {refused} refused",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
    assert!(
        done > 0,
        "at least the last edit, after the appender ended, is applied"
    );
}
