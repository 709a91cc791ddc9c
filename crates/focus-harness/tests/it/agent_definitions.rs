//! Agent definitions: Claude Code's Markdown files read as written, from the
//! three folders in order, and malformed or hostile files refused with the
//! file and the line named, never a panic.

use crate::support::Scratch;
use focus_harness::subagents::{load_definitions, parse_definition};
use focus_testkit::rng::Rng;
use std::path::Path;

const CLAUDE_STYLE: &str = "---\nname: code-reviewer\ndescription: \"Reviews code: use after edits\"\ntools: Read, Grep, Glob, Bash, mcp__github__get_issue\ndisallowedTools:\n  - Bash\nmodel: inherit\npermissionMode: acceptEdits\ncolor: blue\nhooks:\n  PreToolUse: []\n---\nYou review code.\n\nBe brief.\n";

#[test]
fn a_claude_code_definition_reads_as_written() {
    let agent = parse_definition(CLAUDE_STYLE, Path::new("/p/.claude/agents/r.md")).unwrap();
    assert_eq!(agent.name, "code-reviewer");
    assert_eq!(agent.description, "Reviews code: use after edits");
    assert_eq!(
        agent.tools.as_deref(),
        Some(&["read", "grep", "find", "bash", "github__get_issue"].map(String::from)[..])
    );
    assert_eq!(agent.disallowed_tools, ["bash"]);
    assert_eq!(agent.model, None, "inherit is the parent's model");
    assert_eq!(agent.permission_mode.as_deref(), Some("acceptEdits"));
    assert_eq!(agent.prompt, "You review code.\n\nBe brief.");
    let listed = "---\nname: a\ndescription: d # a comment\ntools: [read, 'grep']\n---\n";
    let agent = parse_definition(listed, Path::new("a.md")).unwrap();
    assert_eq!(agent.description, "d");
    assert_eq!(agent.tools.unwrap(), ["read", "grep"]);
    assert_eq!(agent.prompt, "");
}

#[test]
fn malformed_definitions_name_the_file_and_the_line() {
    let cases: [(&str, &str); 10] = [
        ("no frontmatter here", "x.md:1: no frontmatter"),
        (
            "---\nname: a\ndescription: d\n",
            "x.md: the frontmatter is never closed",
        ),
        (
            "---\nname: a\n---\nbody",
            "x.md:3: the frontmatter has no `description:`",
        ),
        (
            "---\ndescription: d\n---\n",
            "x.md:3: the frontmatter has no `name:`",
        ),
        (
            "---\nname: Bad Name\ndescription: d\n---\n",
            "x.md:2: `name` \"Bad Name\" must be",
        ),
        (
            "---\nname: a\ndescription: d\njust words\n---\n",
            "x.md:4: expected `key: value`",
        ),
        (
            "---\nname: a\ndescription: d\npermissionMode: yolo\n---\n",
            "x.md:4: unknown permissionMode \"yolo\"",
        ),
        (
            "---\nname: a\nname: b\ndescription: d\n---\n",
            "x.md:3: `name` is given twice",
        ),
        (
            "---\nname: a\ndescription: \"open\n---\n",
            "x.md:3: `description`: a quoted value must end",
        ),
        (
            "---\nname: a\ndescription: d\ntools: [read\n---\n",
            "x.md:4: `tools`: a `[` list must end",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_definition(text, Path::new("x.md")).unwrap_err();
        assert!(error.to_string().starts_with(expected), "{text:?}: {error}");
    }
}

#[test]
fn damaged_definitions_never_panic() {
    let mut rng = Rng::new(32);
    let original = CLAUDE_STYLE.as_bytes();
    for _ in 0..5_000 {
        let mut bytes = original.to_vec();
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[at] = rng.below(256) as u8,
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, b"-:\n\"'[]# \t\r"[rng.below(11)]),
            }
            if bytes.is_empty() {
                break;
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(error) = parse_definition(&text, Path::new("fuzz.md")) {
            assert!(error.to_string().starts_with("fuzz.md"), "{error}");
        }
    }
}

#[test]
fn definitions_come_from_three_folders_first_name_wins_and_bad_files_are_reported() {
    let scratch = Scratch::new("agent-defs");
    let (cwd, home) = (scratch.path().join("project"), scratch.path().join("home"));
    let write = |dir: &Path, file: &str, text: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    };
    let def = |name: &str, description: &str| {
        format!("---\nname: {name}\ndescription: {description}\n---\nprompt of {description}\n")
    };
    write(
        &cwd.join(".focus/agents"),
        "a.md",
        &def("shared", "from focus"),
    );
    write(
        &cwd.join(".claude/agents"),
        "a.md",
        &def("shared", "from claude"),
    );
    write(
        &cwd.join(".claude/agents"),
        "b.md",
        &def("claude-only", "c"),
    );
    write(&home.join("agents"), "c.md", &def("mine", "user"));
    write(&home.join("agents"), "notes.txt", "not a definition");
    write(&cwd.join(".focus/agents"), "broken.md", "---\nname: x\n");
    let big = format!("{}{}", def("big", "b"), "x".repeat(300 * 1024));
    write(&cwd.join(".focus/agents"), "big.md", &big);
    let made = std::process::Command::new("mkfifo")
        .arg(cwd.join(".focus/agents/fifo.md"))
        .status();
    let found = load_definitions(&cwd, &home);
    let names: Vec<&str> = found.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["shared", "claude-only", "mine", "explore"]);
    assert_eq!(found.find("shared").unwrap().description, "from focus");
    let errors: Vec<String> = found.errors.iter().map(|e| e.to_string()).collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("broken.md: the frontmatter is never closed")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("big.md") && e.contains("at most")),
        "{errors:?}"
    );
    if made.is_ok_and(|s| s.success()) {
        assert!(
            errors
                .iter()
                .any(|e| e.contains("fifo.md") && e.contains("not a regular file")),
            "{errors:?}"
        );
    }
    // A project may define its own `explore`; the built-in stands in otherwise.
    write(&cwd.join(".focus/agents"), "e.md", &def("explore", "mine"));
    let found = load_definitions(&cwd, &home);
    assert_eq!(found.find("explore").unwrap().description, "mine");
}
