//! Hostile and odd-but-valid arguments straight into `Tool::execute` (the
//! loop's schema check is bypassed on purpose): huge numbers, empty and NUL
//! paths, `..`, control characters in paths and file names, names that are not
//! UTF-8, FIFOs, read-only files, lone carriage returns, unterminated escape
//! sequences. No call may panic or hang, no output may carry a raw control
//! character, and no file the user had may be lost or replaced behind their back.

use crate::support::common;

use common::{call, tool, tool_in, TempTree};
use focus_core::json::Value;
use focus_core::tool::ToolOutput;
use focus_core::{json_array, json_object};
use focus_testkit::rng::Rng;
use focus_tools::ToolState;

/// Every text block of `output` is free of raw control characters other than
/// newline and tab.
fn assert_terminal_safe(output: &ToolOutput, context: &str) {
    let text = output.text_content();
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{context}: raw control character in {text:?}"
    );
}

fn mkfifo(path: &std::path::Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn random_odd_arguments_never_panic_and_stay_terminal_safe() {
    let tree = TempTree::new("hostile-args");
    tree.write("a.txt", "alpha\r\nbeta\u{1b}[31m\n\u{0}gamma\n");
    tree.write("dir/b.rs", "fn main() {}\n");
    tree.write("crlf.txt", "one\r\ntwo\r\n");
    let paths = [
        "",
        " ",
        ".",
        "..",
        "/",
        "a.txt",
        "./a.txt",
        "../a.txt",
        "dir",
        "dir/",
        "dir/b.rs",
        "missing",
        "a\0b",
        "~",
        "~/",
        "@a.txt",
        "a.txt/x",
        "x\u{1b}]0;t\u{7}",
        "\u{202e}txt.exe",
        "é/日",
        "crlf.txt",
    ];
    let numbers = [
        Value::from(0u64),
        Value::from(1u64),
        Value::from(u64::MAX),
        Value::from(-1i64),
        Value::from(1.5),
        Value::from("10"),
        Value::from("-3"),
        Value::from(""),
        Value::Null,
    ];
    let texts = [
        "",
        "alpha",
        "beta",
        "\n",
        "\r\n",
        "one\r\ntwo",
        "\u{1b}",
        "(",
        "*",
        "a{1000}",
        "\u{0}",
    ];
    let mut rng = Rng::new(0x5eed_0004);
    for round in 0..400 {
        let name = ["read", "write", "edit", "ls", "find", "grep"][round % 6];
        let mut path = paths[rng.below(paths.len())];
        if matches!(name, "find" | "grep") && (path.starts_with('~') || path == "/" || path == "..")
        {
            // A walk of the whole machine proves nothing and takes long.
            path = "dir/..";
        }
        let text = |rng: &mut Rng| texts[rng.below(texts.len())];
        let old_text = text(&mut rng);
        let new_text = text(&mut rng);
        let args = json_object! {
            "path" => path,
            "offset" => numbers[rng.below(numbers.len())].clone(),
            "limit" => numbers[rng.below(numbers.len())].clone(),
            "context" => numbers[rng.below(numbers.len())].clone(),
            "pattern" => text(&mut rng),
            "glob" => text(&mut rng),
            "ignoreCase" => rng.below(2) == 0,
            "literal" => rng.below(2) == 0,
            "content" => text(&mut rng),
            "edits" => json_array![json_object! { "oldText" => old_text, "newText" => new_text }],
        };
        let output = call(&*tool(name, &tree.root), args);
        assert_terminal_safe(&output, &format!("{name} {path:?}"));
        // The search tools never change the tree; whatever the others did, the
        // directory is still a directory.
        assert!(tree.path("dir").is_dir());
    }
}

#[test]
fn grep_with_the_largest_limit_does_not_overflow() {
    // `limit + 1` overflowed: a panic in a debug build, no results in release.
    let tree = TempTree::new("grep-limit");
    tree.write("a.txt", "hello\n");
    let output = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "hello", "limit" => u64::MAX },
    );
    assert!(!output.is_error);
    assert_eq!(output.text_content(), "a.txt:1: hello");
}

#[test]
fn read_counts_a_line_with_a_lone_carriage_return_as_one_line() {
    // A lone `\r` is shown as a line break, but the cap counted the shown lines:
    // 2,000 of them held only 1,000 file lines, and "Use offset=2001" skipped
    // lines 1001-2000.
    let tree = TempTree::new("read-cr");
    let body: String = (1..=3000).map(|i| format!("L{i}a\rL{i}b\n")).collect();
    tree.write("progress.log", body);
    let output = call(
        &*tool("read", &tree.root),
        json_object! { "path" => "progress.log" },
    );
    let text = output.text_content();
    assert!(
        text.contains("\nL2000a\nL2000b\n"),
        "{}",
        &text[text.len() - 300..]
    );
    assert!(!text.contains("L2001a"));
    assert!(text.ends_with("[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]"));
    let next = call(
        &*tool("read", &tree.root),
        json_object! { "path" => "progress.log", "offset" => 2001, "limit" => 1 },
    );
    assert!(next.text_content().starts_with("L2001a\nL2001b\n"));
}

#[test]
fn control_characters_in_paths_are_escaped_in_every_message() {
    let tree = TempTree::new("esc-path");
    let hostile = "x\u{1b}]0;pwned\u{7}y";
    let edits = json_array![json_object! { "oldText" => "a", "newText" => "b" }];
    for name in ["read", "edit", "ls", "find", "grep"] {
        let output = call(
            &*tool(name, &tree.root),
            json_object! { "path" => hostile, "pattern" => "x", "edits" => edits.clone() },
        );
        assert!(output.is_error, "{name}");
        assert!(
            output.text_content().contains("x\\u{1b}]0;pwned\\u{7}y"),
            "{name}"
        );
        assert_terminal_safe(&output, name);
    }
    // A file the model named with an escape sequence, then listed and searched.
    let created = call(
        &*tool("write", &tree.root),
        json_object! { "path" => "f\u{1b}[2J.txt", "content" => "needle\n" },
    );
    assert_eq!(
        created.text_content(),
        "Created \"f\\u{1b}[2J.txt\": wrote 7 bytes."
    );
    let edited = call(
        &*tool("edit", &tree.root),
        json_object! { "path" => "f\u{1b}[2J.txt", "edits" => json_array![
            json_object! { "oldText" => "needle", "newText" => "pin" }
        ] },
    );
    assert!(!edited.is_error, "{}", edited.text_content());
    for (name, args) in [
        ("grep", json_object! { "pattern" => "pin" }),
        ("find", json_object! { "pattern" => "*.txt" }),
        ("ls", json_object! {}),
        (
            "edit",
            json_object! { "path" => "f\u{1b}[2J.txt", "edits" => edits.clone() },
        ),
    ] {
        let output = call(&*tool(name, &tree.root), args);
        assert_terminal_safe(&output, name);
    }
}

#[test]
fn an_unterminated_escape_sequence_does_not_swallow_the_rest_of_the_output() {
    let tree = TempTree::new("esc-bash");
    let output = call(
        &*tool("bash", &tree.root),
        json_object! { "command" => "printf 'start\\033]0;title\\nerror: kept\\n'; exit 3" },
    );
    let text = output.text_content();
    assert!(text.starts_with("start\nerror: kept"), "{text:?}");
    assert!(text.contains("exited with code 3"));
    assert_terminal_safe(&output, "bash");
}

#[test]
fn grep_and_find_search_files_whose_names_are_not_utf8() {
    // The walk rebuilt each path from the lossy name, so such a file, or
    // everything under such a directory, could not be opened and was skipped.
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let tree = TempTree::new("non-utf8");
    let dir = tree.root.join(OsStr::from_bytes(b"d\xff"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("f.txt"), "needle\n").unwrap();
    std::fs::write(tree.root.join(OsStr::from_bytes(b"g\xfe.txt")), "needle\n").unwrap();
    let grep = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "needle" },
    );
    assert_eq!(
        grep.text_content(),
        "d\u{fffd}/f.txt:1: needle\ng\u{fffd}.txt:1: needle"
    );
    let find = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*.txt" },
    );
    assert_eq!(find.text_content(), "d\u{fffd}/f.txt\ng\u{fffd}.txt");
}

#[test]
fn write_refuses_to_replace_a_fifo_or_device() {
    // The rename put a regular file in place of the FIFO (as root, of /dev/null).
    let tree = TempTree::new("write-fifo");
    let fifo = tree.path("pipe");
    if !mkfifo(&fifo) {
        focus_testkit::skipped("mkfifo is not available");
        return;
    }
    let output = call(
        &*tool("write", &tree.root),
        json_object! { "path" => "pipe", "content" => "x" },
    );
    assert!(output.is_error);
    assert!(output.text_content().contains("not a regular file"));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    for name in ["read", "edit", "grep"] {
        let output = call(
            &*tool(name, &tree.root),
            json_object! { "path" => "pipe", "pattern" => "x", "edits" => json_array![
                json_object! { "oldText" => "a", "newText" => "b" }
            ] },
        );
        assert_terminal_safe(&output, name);
    }
}

#[test]
fn write_and_edit_refuse_a_read_only_file_and_leave_it_alone() {
    use std::os::unix::fs::PermissionsExt;
    // Root ignores file permissions: the test runs again as uid 65534.
    if crate::support::kernel::is_root() {
        crate::support::kernel::also_as_unprivileged_user(
            "hostile_tools::write_and_edit_refuse_a_read_only_file_and_leave_it_alone",
        );
        return;
    }
    let tree = TempTree::new("read-only");
    let file = tree.write("locked.txt", "keep me\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    if std::fs::OpenOptions::new().write(true).open(&file).is_ok() {
        focus_testkit::skipped("running with privileges that ignore file permissions");
        return;
    }
    let write = call(
        &*tool("write", &tree.root),
        json_object! { "path" => "locked.txt", "content" => "gone" },
    );
    assert!(write.is_error && write.text_content().contains("permission denied"));
    let edit = call(
        &*tool("edit", &tree.root),
        json_object! { "path" => "locked.txt", "edits" => json_array![
            json_object! { "oldText" => "keep", "newText" => "lose" }
        ] },
    );
    assert!(edit.is_error && edit.text_content().contains("permission denied"));
    assert_eq!(tree.read("locked.txt"), "keep me\n");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
}

#[test]
fn files_with_the_longest_names_can_be_written_and_edited() {
    // The temporary file's name added ~25 bytes to the target's and went past
    // the 255 a name may have, so such a file could never be written.
    let tree = TempTree::new("long-name");
    let name = format!("{}.txt", "é".repeat(125));
    assert_eq!(name.len(), 254);
    let write = call(
        &*tool("write", &tree.root),
        json_object! { "path" => name.as_str(), "content" => "one\n" },
    );
    assert!(!write.is_error, "{}", write.text_content());
    let edit = call(
        &*tool("edit", &tree.root),
        json_object! { "path" => name.as_str(), "edits" => json_array![
            json_object! { "oldText" => "one", "newText" => "two" }
        ] },
    );
    assert!(!edit.is_error, "{}", edit.text_content());
    assert_eq!(tree.read(&name), "two\n");
    assert_eq!(std::fs::read_dir(&tree.root).unwrap().count(), 1);
}

#[test]
fn write_through_a_file_in_the_parent_path_is_a_clear_error() {
    let tree = TempTree::new("parent-file");
    tree.write("file", "content\n");
    for path in ["file/new.txt", "file/deeper/new.txt"] {
        let output = call(
            &*tool("write", &tree.root),
            json_object! { "path" => path, "content" => "x" },
        );
        assert!(output.is_error, "{path}");
        assert!(output.text_content().contains(path), "{path}");
    }
    assert_eq!(tree.read("file"), "content\n");
}

#[test]
fn an_enormous_line_is_cut_without_holding_it_whole() {
    // The whole line was read into memory (then copied twice) before being cut
    // to 2,000 characters; a multi-gigabyte single-line file exhausted memory.
    // Now only its start is kept, and the count of what was dropped stays exact.
    let tree = TempTree::new("huge-line");
    let mut body = "é".repeat(200_000);
    body.push_str("\r\nsecond\n");
    tree.write("min.js", body);
    let output = call(
        &*tool("read", &tree.root),
        json_object! { "path" => "min.js" },
    );
    let text = output.text_content();
    let expected = format!("{}… [198000 more characters]\nsecond", "é".repeat(2000));
    assert_eq!(text, expected);
}

#[test]
fn a_search_inside_one_large_file_stops_when_cancelled() {
    // Cancellation was checked only between files, so a costly pattern over one
    // large file could not be stopped with Esc until it had read all of it.
    use focus_tools::grep::search_buffer;
    use focus_tools::regex::Regex;
    let regex = Regex::new(r"(.{10}){10}\d").unwrap();
    let buffer = "abcdefghij".repeat(10) + "7\n";
    let buffer = buffer.repeat(1000);
    let all = search_buffer(&regex, buffer.as_bytes(), usize::MAX, &|| false);
    assert_eq!(all.len(), 1000);
    let checks = std::cell::Cell::new(0);
    let after_three = || {
        checks.set(checks.get() + 1);
        checks.get() > 3
    };
    let some = search_buffer(&regex, buffer.as_bytes(), usize::MAX, &after_three);
    assert_eq!(some.len(), 3);
    assert!(search_buffer(&regex, buffer.as_bytes(), usize::MAX, &|| true).is_empty());
}

#[test]
fn a_fifo_named_gitignore_does_not_block_the_walk() {
    // Loading ignore rules read `.gitignore` whatever it was; a FIFO blocked
    // grep and find forever.
    let tree = TempTree::new("fifo-ignore");
    tree.write("a.txt", "needle\n");
    tree.mkdir("sub");
    if !mkfifo(&tree.path("sub/.gitignore")) || !mkfifo(&tree.path(".ignore")) {
        focus_testkit::skipped("mkfifo is not available");
        return;
    }
    tree.write("sub/b.txt", "needle\n");
    let grep = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "needle" },
    );
    assert_eq!(
        grep.text_content(),
        "a.txt:1: needle\nsub/b.txt:1: needle\n\n[2 special files (pipe, device or a kernel \
         file whose reads block) skipped unread]"
    );
    let find = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*.txt" },
    );
    assert_eq!(find.text_content(), "a.txt\nsub/b.txt");
}

#[test]
fn random_edits_are_all_or_nothing_and_exact_when_unique() {
    let tree = TempTree::new("edit-prop");
    let state = ToolState::unconfined();
    let (read, edit) = (
        tool_in("read", &tree.root, &state),
        tool_in("edit", &tree.root, &state),
    );
    let pieces = [
        "fn a() {",
        "    x += 1;",
        "\tlet y = \"q\";",
        "}",
        "",
        "  ",
        "// é 日",
        "x",
        "x",
        "return x;",
        "\u{1b}[31m",
        "a\rb",
    ];
    let mut rng = Rng::new(0x5eed_0005);
    let mut exact_checks = 0;
    for round in 0..300 {
        let crlf = rng.below(3) == 0;
        let bom = if rng.below(5) == 0 { "\u{feff}" } else { "" };
        let eol = if crlf { "\r\n" } else { "\n" };
        let lines: Vec<&str> = (0..1 + rng.below(8))
            .map(|_| pieces[rng.below(pieces.len())])
            .collect();
        let body = lines.join("\n") + if rng.below(2) == 0 { "\n" } else { "" };
        let original = format!("{bom}{}", body.replace('\n', eol));
        tree.write("f.txt", &original);
        // Rewritten behind focus's back: read it again, as a model must.
        call(&*read, json_object! { "path" => "f.txt" });
        // Old text: a piece of the file (by whole characters), sometimes reindented.
        let chars: Vec<char> = body.chars().collect();
        let start = rng.below(chars.len());
        let end = (start + 1 + rng.below(30)).min(chars.len());
        let mut old: String = chars[start..end].iter().collect();
        if rng.below(4) == 0 {
            old = old.replace("    ", "  ");
        }
        let new = ["", "y", "z\nw", "    x += 2;", "\u{1b}]0;t\u{7}"][rng.below(5)];
        let output = call(
            &*edit,
            json_object! { "path" => "f.txt", "edits" => json_array![
                json_object! { "oldText" => old.as_str(), "newText" => new }
            ] },
        );
        assert_terminal_safe(&output, &format!("round {round}"));
        let after = tree.read_bytes("f.txt");
        if output.is_error {
            assert_eq!(
                after,
                original.as_bytes(),
                "round {round}: a failed edit changed the file"
            );
            continue;
        }
        if body.matches(old.as_str()).count() == 1 && old != new {
            let expected = format!(
                "{bom}{}",
                body.replacen(old.as_str(), new, 1).replace('\n', eol)
            );
            // CRLF files: what the first line ends with decides; a body whose first
            // line has no break is written as LF.
            if !crlf || body.contains('\n') {
                exact_checks += 1;
                assert_eq!(
                    String::from_utf8_lossy(&after),
                    expected,
                    "round {round}: {old:?} -> {new:?} in {original:?}"
                );
            }
        }
    }
    assert!(exact_checks > 50, "only {exact_checks} exact edits checked");
}

#[test]
fn bash_takes_odd_commands_and_timeouts_without_panicking() {
    let tree = TempTree::new("bash-odd");
    let bash = tool("bash", &tree.root);
    let cases = [
        json_object! { "command" => "echo a\u{0}b" },
        json_object! { "command" => "printf '\\xff\\xfe\\x00\\x1b[2J\\r50%%\\r100%%\\n'" },
        json_object! { "command" => "true", "timeout" => 1e300 },
        json_object! { "command" => "sleep 5", "timeout" => 1e-9 },
        json_object! { "command" => "exit 300" },
        json_object! { "command" => "kill -9 $$" },
    ];
    for args in cases {
        let output = call(&*bash, args.clone());
        assert_terminal_safe(&output, &args.to_json_string());
        assert!(!output.text_content().is_empty());
    }
}

#[test]
fn edit_keeps_each_untouched_line_ending_in_a_mixed_file() {
    // The whole file was rewritten with the first line's ending: a CRLF-first
    // file had every LF line turned into CRLF, an LF-first file lost every CR.
    let tree = TempTree::new("mixed-eol");
    let state = ToolState::unconfined();
    let (read, edit) = (
        tool_in("read", &tree.root, &state),
        tool_in("edit", &tree.root, &state),
    );
    let cases = [
        ("a\r\nb\nc\r\nd\n", "b", "B", "a\r\nB\nc\r\nd\n"),
        ("a\nb\r\nc\n", "a", "A", "A\nb\r\nc\n"),
        ("x\r\ny\nz", "y", "1\n2", "x\r\n1\r\n2\nz"),
        ("p\r\nq\r\nr\nend", "q\nr", "s", "p\r\ns\nend"),
        ("p\nq\r\nr\n", "p\nq\n", "", "r\n"),
    ];
    for (original, old, new, expected) in cases {
        tree.write("m.txt", original);
        call(&*read, json_object! { "path" => "m.txt" });
        let output = call(
            &*edit,
            json_object! { "path" => "m.txt", "edits" => json_array![
                json_object! { "oldText" => old, "newText" => new }
            ] },
        );
        assert!(!output.is_error, "{original:?}: {}", output.text_content());
        assert_eq!(
            tree.read("m.txt"),
            expected,
            "{original:?}: {old:?} -> {new:?}"
        );
    }
}

#[test]
fn file_names_with_newlines_or_escapes_stay_one_quoted_entry() {
    // A newline in a name made ls, find and grep show two entries that do not
    // exist; an escape was silently dropped, naming another file.
    let tree = TempTree::new("odd-names");
    tree.write("a\nb.txt", "needle\n");
    tree.write("c\u{1b}[31md.txt", "needle\n");
    let ls = call(&*tool("ls", &tree.root), json_object! {});
    assert_eq!(ls.text_content(), "\"a\\nb.txt\"\n\"c\\u{1b}[31md.txt\"");
    let find = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*.txt" },
    );
    assert_eq!(find.text_content(), ls.text_content());
    let grep = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "needle" },
    );
    assert_eq!(
        grep.text_content(),
        "\"a\\nb.txt\":1: needle\n\"c\\u{1b}[31md.txt\":1: needle"
    );
}

#[test]
fn grep_on_one_file_it_would_skip_says_why() {
    // A file over 64 MB (or a FIFO) named directly gave "No matches found."
    let tree = TempTree::new("grep-skip");
    let big = std::fs::File::create(tree.path("big.log")).unwrap();
    big.set_len(65 * 1024 * 1024).unwrap();
    let output = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "x", "path" => "big.log" },
    );
    assert!(output.is_error);
    assert!(
        output.text_content().contains("larger than the 64.0MB"),
        "{}",
        output.text_content()
    );
    if mkfifo(&tree.path("pipe")) {
        let output = call(
            &*tool("grep", &tree.root),
            json_object! { "pattern" => "x", "path" => "pipe" },
        );
        assert!(output.is_error && output.text_content().contains("not a regular file"));
    }
}

#[test]
fn the_full_output_file_of_a_long_command_is_private() {
    // It was created 0644 in the shared temp directory; command output can hold
    // secrets.
    use std::os::unix::fs::PermissionsExt;
    let tree = TempTree::new("spill-mode");
    // The spill file lives as long as the tool's state.
    let bash = tool("bash", &tree.root);
    let output = call(&*bash, json_object! { "command" => "seq 1 30000" });
    let path = output.details["fullOutputPath"]
        .as_str()
        .expect("a full output file")
        .to_string();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    let _ = std::fs::remove_file(&path);
    assert_eq!(mode, 0o600);
}

#[test]
fn symlink_loops_are_clear_errors_and_walks_do_not_follow_them() {
    let tree = TempTree::new("symlink-loop");
    std::os::unix::fs::symlink("b", tree.path("a")).unwrap();
    std::os::unix::fs::symlink("a", tree.path("b")).unwrap();
    std::os::unix::fs::symlink(".", tree.path("self")).unwrap();
    tree.write("f.txt", "needle\n");
    let edits = json_array![json_object! { "oldText" => "x", "newText" => "y" }];
    for name in ["read", "write", "edit", "ls"] {
        let output = call(
            &*tool(name, &tree.root),
            json_object! { "path" => "a", "content" => "x", "edits" => edits.clone() },
        );
        assert!(output.is_error, "{name}: {}", output.text_content());
        assert!(
            output.text_content().contains("a ("),
            "{name}: {}",
            output.text_content()
        );
    }
    let grep = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "needle" },
    );
    assert_eq!(grep.text_content(), "f.txt:1: needle");
    let find = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*" },
    );
    assert_eq!(find.text_content(), "a\nb\nf.txt\nself");
}
