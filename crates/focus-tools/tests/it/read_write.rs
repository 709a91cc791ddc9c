//! read and write on temp trees: every error branch, caps and notes, images,
//! control characters, atomic overwrite, and the tool registry.

use crate::support::common;

use common::{call, tool, TempTree};
use focus_core::json_object;
use focus_core::message::Content;
use focus_tools::ToolState;

#[test]
fn read_returns_text_and_says_how_to_continue_after_a_user_limit() {
    let tree = TempTree::new("read-basic");
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    tree.write("a.txt", &text);
    let read = tool("read", &tree.root);
    let out = call(&*read, json_object! { "path" => "a.txt" });
    assert!(!out.is_error);
    assert_eq!(out.text_content(), text.trim_end());
    let out = call(
        &*read,
        json_object! { "path" => "a.txt", "offset" => 3, "limit" => 2 },
    );
    assert_eq!(
        out.text_content(),
        "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    );
    assert_eq!(out.details["totalLines"].as_u64(), Some(10));
}

#[test]
fn read_caps_lines_and_bytes_with_exact_continuation_offsets() {
    let tree = TempTree::new("read-caps");
    let many: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    tree.write("many.txt", &many);
    let read = tool("read", &tree.root);
    let out = call(&*read, json_object! { "path" => "many.txt" });
    let text = out.text_content();
    assert!(
        text.ends_with("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"),
        "{text}"
    );
    let out = call(
        &*read,
        json_object! { "path" => "many.txt", "offset" => 2001 },
    );
    assert!(out.text_content().starts_with("2001\n") && out.text_content().ends_with("2500"));

    let wide: String = (1..=100)
        .map(|i| format!("{i:04}{}\n", "x".repeat(996)))
        .collect();
    tree.write("wide.txt", &wide);
    let text = call(&*read, json_object! { "path" => "wide.txt" }).text_content();
    assert!(
        text.ends_with("[Showing lines 1-51 of 100 (50.0KB limit). Use offset=52 to continue.]"),
        "{}",
        &text[text.len() - 120..]
    );

    tree.write("long.txt", format!("{}\nshort\n", "y".repeat(5000)));
    let text = call(&*read, json_object! { "path" => "long.txt" }).text_content();
    assert!(text.contains("… [3000 more characters]\nshort"), "{text}");
}

#[test]
fn read_error_branches_name_the_path() {
    let tree = TempTree::new("read-errors");
    tree.write("bin.dat", b"\x7fELF\0\0\x01binary");
    tree.write("three.txt", "1\n2\n3\n");
    tree.mkdir("dir");
    let read = tool("read", &tree.root);
    let err = |args| {
        let out = call(&*read, args);
        assert!(out.is_error);
        out.text_content()
    };
    let missing = err(json_object! { "path" => "nope.txt" });
    assert!(
        missing.contains("nope.txt (") && missing.contains("no such file"),
        "{missing}"
    );
    assert!(err(json_object! { "path" => "dir" }).contains("is a directory"));
    assert!(err(json_object! { "path" => "bin.dat" }).contains("binary file"));
    let beyond = err(json_object! { "path" => "three.txt", "offset" => 9 });
    assert!(
        beyond.contains("Offset 9 is beyond the end") && beyond.contains("3 lines total"),
        "{beyond}"
    );
    assert!(err(json_object! { "path" => "three.txt", "limit" => 0 }).contains("limit"));
    assert!(err(json_object! {}).contains("\"path\""));
    assert!(err(json_object! { "path" => "" }).contains("empty"));
    let fifo = tree.path("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        assert!(err(json_object! { "path" => "fifo" }).contains("not a regular file"));
        let grep = call(
            &*tool("grep", &tree.root),
            json_object! { "pattern" => "x" },
        );
        assert!(!grep.is_error, "a FIFO in the tree must not block grep");
    }
    tree.write("empty.txt", "");
    assert!(call(&*read, json_object! { "path" => "empty.txt" })
        .text_content()
        .contains("is empty"));
}

#[test]
fn read_returns_images_as_image_content() {
    let tree = TempTree::new("read-image");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
    tree.write("pixel.png", png);
    let out = call(
        &*tool("read", &tree.root),
        json_object! { "path" => "pixel.png" },
    );
    assert!(!out.is_error);
    assert!(out.text_content().contains("image/png"));
    match &out.content[1] {
        Content::Image { data, mime_type } => {
            assert_eq!(mime_type, "image/png");
            assert_eq!(data, &focus_tools::read::base64_encode(png));
        }
        other => panic!("expected an image, got {other:?}"),
    }
}

#[test]
fn read_strips_control_characters_and_normalises_crlf() {
    let tree = TempTree::new("read-control");
    tree.write("c.txt", "\u{1b}[2Jclear\r\nbell\u{7}\tok\r\n");
    let out = call(
        &*tool("read", &tree.root),
        json_object! { "path" => "c.txt" },
    );
    assert_eq!(out.text_content(), "clear\nbell\tok");
}

#[test]
fn write_creates_parents_reports_and_overwrites_atomically() {
    let tree = TempTree::new("write");
    let write = tool("write", &tree.root);
    let out = call(
        &*write,
        json_object! { "path" => "deep/er/new.txt", "content" => "hello" },
    );
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(
        out.text_content(),
        "Created deep/er/new.txt: wrote 5 bytes."
    );
    assert_eq!(tree.read("deep/er/new.txt"), "hello");
    let out = call(
        &*write,
        json_object! { "path" => "deep/er/new.txt", "content" => "bye" },
    );
    assert!(out.text_content().starts_with("Overwrote"));
    assert_eq!(tree.read("deep/er/new.txt"), "bye");
    // No temporary files are left beside it.
    let names: Vec<_> = std::fs::read_dir(tree.path("deep/er"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn write_keeps_permissions_and_writes_through_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let tree = TempTree::new("write-perm");
    let script = tree.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    let write = tool("write", &tree.root);
    call(
        &*write,
        json_object! { "path" => "run.sh", "content" => "#!/bin/sh\necho hi\n" },
    );
    let mode = std::fs::metadata(&script).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
    std::os::unix::fs::symlink(tree.path("run.sh"), tree.path("link.sh")).unwrap();
    call(
        &*write,
        json_object! { "path" => "link.sh", "content" => "via link" },
    );
    assert!(std::fs::symlink_metadata(tree.path("link.sh"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(tree.read("run.sh"), "via link");
}

#[test]
fn write_error_branches() {
    let tree = TempTree::new("write-errors");
    tree.mkdir("adir");
    tree.write("afile", "x");
    let write = tool("write", &tree.root);
    let out = call(&*write, json_object! { "path" => "adir", "content" => "x" });
    assert!(out.is_error && out.text_content().contains("is a directory"));
    let out = call(
        &*write,
        json_object! { "path" => "afile/inner.txt", "content" => "x" },
    );
    assert!(
        out.is_error && out.text_content().contains("is a file, not a directory"),
        "{}",
        out.text_content()
    );
    let out = call(&*write, json_object! { "path" => "x.txt" });
    assert!(out.is_error && out.text_content().contains("\"content\""));
}

#[test]
fn the_registry_lists_all_seven_in_order_with_flags() {
    let cwd = std::env::temp_dir();
    let tools = focus_tools::builtin_tools(&cwd);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, focus_tools::TOOL_NAMES);
    assert_eq!(
        names,
        ["read", "bash", "edit", "write", "grep", "find", "ls"]
    );
    assert!(focus_tools::tool_by_name("rm", &cwd, &ToolState::unconfined()).is_none());
    let empty = json_object! {};
    for t in &tools {
        let spec = t.spec();
        assert_eq!(
            spec.parameters["type"].as_str(),
            Some("object"),
            "{}",
            spec.name
        );
        assert!(spec.description.len() > 40);
        let read_only = matches!(t.name(), "read" | "grep" | "find" | "ls");
        assert_eq!(t.is_read_only(&empty), read_only, "{}", t.name());
        let alone = matches!(t.name(), "write" | "edit" | "bash");
        assert_eq!(t.runs_alone(&empty), alone, "{}", t.name());
    }
    // A read-only shell command may run beside other read-only calls; a writing one
    // runs alone.
    let bash = common::tool("bash", &cwd);
    assert!(!bash.runs_alone(&json_object! { "command" => "git status && ls -la" }));
    assert!(bash.is_read_only(&json_object! { "command" => "git status && ls -la" }));
    assert!(bash.runs_alone(&json_object! { "command" => "echo x > notes.txt" }));
    assert!(bash.runs_alone(&json_object! { "command" => "rm -rf target" }));
    let edit = common::tool("edit", &cwd).parameters();
    assert!(
        edit["properties"]["edits"]["items"]["properties"]["oldText"]
            .as_object()
            .is_some()
    );
}
