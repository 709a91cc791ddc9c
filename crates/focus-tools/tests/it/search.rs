//! grep, find and ls on temp trees: ignore-file semantics, glob filters,
//! regex and literal search, context, limits, binary files and errors.

use crate::support::common;

use common::{call, tool, TempTree};
use focus_core::json_object;

/// A small project with ignore rules of every kind.
fn project() -> TempTree {
    let tree = TempTree::new("search");
    tree.write(
        ".gitignore",
        "*.log\n!keep.log\nbuild/\n/anchored.txt\nnested/deep/*.tmp\n",
    );
    tree.write("a.log", "needle in a log\n");
    tree.write("keep.log", "needle kept\n");
    tree.write("build/out.rs", "needle built\n");
    tree.write(
        "sub/build",
        "needle: a file named build is not a directory\n",
    );
    tree.write("anchored.txt", "needle anchored\n");
    tree.write("sub/anchored.txt", "needle not anchored here\n");
    tree.write("nested/deep/x.tmp", "needle tmp\n");
    tree.write("nested/x.tmp", "needle shallow tmp\n");
    tree.write("sub/.gitignore", "*.rs\n!main.rs\n");
    tree.write("sub/lib.rs", "needle lib\n");
    tree.write("sub/main.rs", "fn main() {\n    let needle = 1;\n}\n");
    tree.write(".ignore", "secret.txt\n");
    tree.write("secret.txt", "needle secret\n");
    tree.write(".git/config", "needle in git\n");
    tree.write(".github/workflow.yml", "needle: hidden dirs are searched\n");
    tree.write(
        "src/lib.rs",
        "// Needle in caps\npub fn parse_args() {}\npub fn parse_env() {}\n",
    );
    tree.write("bin.dat", b"needle\0binary");
    tree
}

fn find(tree: &TempTree, pattern: &str) -> Vec<String> {
    let out = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => pattern },
    );
    assert!(!out.is_error, "{}", out.text_content());
    let text = out.text_content();
    if text.starts_with("No files") {
        return Vec::new();
    }
    text.lines().map(String::from).collect()
}

#[test]
fn find_honours_negation_directory_only_anchored_and_nested_rules() {
    let tree = project();
    let all = find(&tree, "*");
    let expected = [
        ".github/",
        ".github/workflow.yml",
        ".gitignore",
        ".ignore",
        "bin.dat",
        "keep.log",
        "nested/",
        "nested/deep/",
        "nested/x.tmp",
        "src/",
        "src/lib.rs",
        "sub/",
        "sub/.gitignore",
        "sub/anchored.txt",
        "sub/build",
        "sub/main.rs",
    ];
    assert_eq!(all, expected);
}

#[test]
fn find_globs_match_names_or_relative_paths() {
    let tree = project();
    assert_eq!(find(&tree, "*.rs"), ["src/lib.rs", "sub/main.rs"]);
    assert_eq!(find(&tree, "**/*.rs"), ["src/lib.rs", "sub/main.rs"]);
    assert_eq!(
        find(&tree, "sub/*.{rs,txt}"),
        ["sub/anchored.txt", "sub/main.rs"]
    );
    assert_eq!(find(&tree, "[kb]*.???"), ["bin.dat", "keep.log"]);
    assert!(find(&tree, "*.nothing").is_empty());
    let out = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*", "limit" => 3 },
    );
    assert!(out
        .text_content()
        .ends_with("[3 results limit reached. Use limit=6 for more, or refine the pattern]"));
    let out = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*.rs", "path" => "src" },
    );
    assert_eq!(out.text_content(), "src/lib.rs");
    let err = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "[x" },
    );
    assert!(err.is_error && err.text_content().contains("unclosed '['"));
    let err = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*", "path" => "keep.log" },
    );
    assert!(err.is_error && err.text_content().contains("is a file"));
    let err = call(
        &*tool("find", &tree.root),
        json_object! { "pattern" => "*", "path" => "missing" },
    );
    assert!(err.is_error && err.text_content().contains("no such file"));
}

fn grep(tree: &TempTree, args: focus_core::json::Value) -> String {
    let out = call(&*tool("grep", &tree.root), args);
    assert!(!out.is_error, "{}", out.text_content());
    out.text_content()
}

#[test]
fn grep_skips_ignored_and_binary_files() {
    let tree = project();
    let text = grep(&tree, json_object! { "pattern" => "needle" });
    let files: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        files,
        [
            ".github/workflow.yml",
            "keep.log",
            "nested/x.tmp",
            "sub/anchored.txt",
            "sub/build",
            "sub/main.rs"
        ]
    );
    assert!(
        text.contains("sub/main.rs:2:     let needle = 1;"),
        "{text}"
    );
    // A file given directly is searched even if ignored.
    let text = grep(
        &tree,
        json_object! { "pattern" => "needle", "path" => "a.log" },
    );
    assert_eq!(text, "a.log:1: needle in a log");
    let text = grep(
        &tree,
        json_object! { "pattern" => "needle", "path" => "bin.dat" },
    );
    assert!(
        text.contains("is a binary file; grep skips binary files"),
        "{text}"
    );
}

#[test]
fn grep_regex_case_literal_and_glob_options() {
    let tree = project();
    let text = grep(
        &tree,
        json_object! { "pattern" => r"fn\s+parse_\w+\(", "path" => "src" },
    );
    assert_eq!(
        text,
        "src/lib.rs:2: pub fn parse_args() {}\nsrc/lib.rs:3: pub fn parse_env() {}"
    );
    let text = grep(
        &tree,
        json_object! { "pattern" => "NEEDLE IN", "ignoreCase" => true, "glob" => "*.rs" },
    );
    assert_eq!(text, "src/lib.rs:1: // Needle in caps");
    let text = grep(
        &tree,
        json_object! { "pattern" => "parse_args()", "literal" => true },
    );
    assert_eq!(text, "src/lib.rs:2: pub fn parse_args() {}");
    let text = grep(
        &tree,
        json_object! { "pattern" => "^needle", "glob" => "sub/**" },
    );
    assert_eq!(text, "sub/anchored.txt:1: needle not anchored here\nsub/build:1: needle: a file named build is not a directory");
    assert_eq!(
        grep(&tree, json_object! { "pattern" => "absent_text" }),
        "No matches found."
    );
}

#[test]
fn grep_context_limits_and_long_lines() {
    let tree = TempTree::new("grep-context");
    let body: String = (1..=30)
        .map(|i| {
            if i % 10 == 0 {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    tree.write("c.txt", &body);
    let text = grep(&tree, json_object! { "pattern" => "hit", "context" => 1 });
    assert_eq!(
        text,
        "c.txt-9- line 9\nc.txt:10: hit 10\nc.txt-11- line 11\nc.txt-19- line 19\nc.txt:20: hit 20\nc.txt-21- line 21\nc.txt-29- line 29\nc.txt:30: hit 30"
    );
    let text = grep(&tree, json_object! { "pattern" => "hit", "limit" => 2 });
    assert_eq!(text, "c.txt:10: hit 10\nc.txt:20: hit 20\n\n[2 matches limit reached. Use limit=4 for more, or refine the pattern]");
    tree.write(
        "wide.txt",
        format!("{}hit{}\n", "a".repeat(600), "b".repeat(10)),
    );
    let text = grep(
        &tree,
        json_object! { "pattern" => "hit", "path" => "wide.txt" },
    );
    assert!(text.contains("… [113 more characters]"), "{text}");
    assert!(text.contains("longer than 500 characters"));
    tree.write("crlf.txt", "one\r\ntwo hit\r\n");
    let text = grep(
        &tree,
        json_object! { "pattern" => "hit$", "path" => "crlf.txt" },
    );
    assert_eq!(text, "crlf.txt:2: two hit");
}

#[test]
fn grep_limit_is_deterministic_across_many_files() {
    let tree = TempTree::new("grep-many");
    for i in 0..300 {
        tree.write(
            &format!("d{:02}/f{i:03}.txt", i % 7),
            format!("x\nmatch {i}\n"),
        );
    }
    let first = grep(&tree, json_object! { "pattern" => "match", "limit" => 50 });
    for _ in 0..3 {
        assert_eq!(
            grep(&tree, json_object! { "pattern" => "match", "limit" => 50 }),
            first
        );
    }
    assert!(
        first.starts_with("d00/f000.txt:2: match 0\nd00/f007.txt:2: match 7\n"),
        "{first}"
    );
}

#[test]
fn grep_errors_explain_themselves() {
    let tree = project();
    let grep = tool("grep", &tree.root);
    let out = call(&*grep, json_object! { "pattern" => "(unclosed" });
    assert!(out.is_error);
    assert!(
        out.text_content().contains("unclosed '('") && out.text_content().contains("literal=true")
    );
    let out = call(
        &*grep,
        json_object! { "pattern" => "x", "path" => "nowhere" },
    );
    assert!(out.is_error && out.text_content().contains("nowhere ("));
    let out = call(&*grep, json_object! { "pattern" => "x", "glob" => "{a" });
    assert!(out.is_error && out.text_content().contains("Invalid glob"));
    let out = call(&*grep, json_object! { "path" => "." });
    assert!(out.is_error && out.text_content().contains("\"pattern\""));
}

#[test]
fn ls_lists_one_directory_sorted_with_markers() {
    let tree = project();
    let ls = tool("ls", &tree.root);
    let out = call(&*ls, json_object! {});
    let text = out.text_content();
    let entries: Vec<&str> = text.lines().collect();
    assert_eq!(
        entries,
        [
            ".git/",
            ".github/",
            ".gitignore",
            ".ignore",
            "a.log",
            "anchored.txt",
            "bin.dat",
            "build/",
            "keep.log",
            "nested/",
            "secret.txt",
            "src/",
            "sub/"
        ]
    );
    let out = call(&*ls, json_object! { "path" => "sub", "limit" => 2 });
    assert_eq!(
        out.text_content(),
        ".gitignore\nanchored.txt\n\n[2 entries limit reached (5 in total). Use limit=4 for more.]"
    );
    tree.mkdir("empty");
    assert_eq!(
        call(&*ls, json_object! { "path" => "empty" }).text_content(),
        "(empty directory)"
    );
    let out = call(&*ls, json_object! { "path" => "keep.log" });
    assert!(out.is_error && out.text_content().contains("is a file"));
    let out = call(&*ls, json_object! { "path" => "missing" });
    assert!(out.is_error && out.text_content().contains("no such file"));
}

#[test]
fn ignore_files_above_the_search_root_apply_up_to_the_repository() {
    let tree = TempTree::new("search-parent-ignore");
    tree.mkdir(".git");
    tree.write(".gitignore", "*.gen\n/pkg/local.txt\n");
    tree.write("pkg/a.gen", "needle generated\n");
    tree.write("pkg/local.txt", "needle anchored from above\n");
    tree.write("pkg/src/b.rs", "needle source\n");
    let out = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "needle", "path" => "pkg" },
    );
    assert_eq!(out.text_content(), "pkg/src/b.rs:1: needle source");
    let out = call(
        &*tool("find", &tree.path("pkg")),
        json_object! { "pattern" => "*" },
    );
    assert_eq!(out.text_content(), "src/\nsrc/b.rs");
}

#[test]
fn grep_output_is_capped_at_50kb_with_a_note() {
    let tree = TempTree::new("grep-bytes");
    let line = format!("hit {}\n", "w".repeat(400));
    tree.write("big.txt", line.repeat(300));
    let out = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "hit", "limit" => 1000 },
    );
    let text = out.text_content();
    assert!(text.len() < 52 * 1024, "{}", text.len());
    assert!(
        text.ends_with("[50.0KB limit reached; output cut]"),
        "{}",
        &text[text.len() - 100..]
    );
    assert_eq!(out.details["matches"].as_u64(), Some(300));
}

#[test]
fn a_cancelled_search_says_so() {
    let tree = project();
    let cancel = focus_core::cancel::CancelToken::new();
    cancel.cancel();
    for name in ["grep", "find"] {
        let out = common::call_with(
            &*tool(name, &tree.root),
            json_object! { "pattern" => if name == "grep" { "needle" } else { "*" } },
            &cancel,
            &|_| {},
        );
        assert!(
            out.is_error && out.text_content().contains("cancelled"),
            "{name}: {}",
            out.text_content()
        );
    }
}

#[test]
fn an_early_limit_does_not_stall_the_walk_over_many_files() {
    let tree = TempTree::new("grep-early-stop");
    for i in 0..600 {
        tree.write(&format!("d{}/f{i:04}.txt", i % 10), "hit\n");
    }
    let out = call(
        &*tool("grep", &tree.root),
        json_object! { "pattern" => "hit", "limit" => 1 },
    );
    assert!(
        out.text_content()
            .starts_with("d0/f0000.txt:1: hit\n\n[1 matches limit reached"),
        "{}",
        out.text_content()
    );
}
