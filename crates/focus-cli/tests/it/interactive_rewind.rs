//! `/rewind`, Esc Esc, `/tree`'s offer to restore files, and `/diff`, in a
//! real terminal (tmux, as in [`crate::interactive`]): a mock model writes
//! files through the `write` tool, the screen is read for what the views
//! show, and the project's files are compared with what each choice must
//! leave. Every wait is for the screen (or a file), never a fixed time.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use focus_testkit::mock_llm::MockLlm;
use std::path::Path;

/// The visible window's rows, trailing spaces cut.
fn visible_rows(pane: &Pane) -> Vec<String> {
    pane.visible_screen()
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Waits until a row of the visible window holds all of `parts`; returns it.
fn wait_for_row(pane: &Pane, what: &str, parts: &[&str]) -> String {
    let mut found = String::new();
    pane.wait_until(&format!("{what} ({parts:?})"), || {
        match visible_rows(pane)
            .into_iter()
            .find(|row| parts.iter().all(|p| row.contains(p)))
        {
            Some(row) => {
                found = row;
                true
            }
            None => false,
        }
    });
    found
}

/// Waits until nothing runs: the footer starts with the idle mark `○` (a
/// command typed while a run ends would wait for it, as the UI says).
fn wait_idle(pane: &Pane) {
    pane.wait_until("focus idle (the footer's ○)", || {
        visible_rows(pane).iter().any(|r| r.starts_with("○ "))
    });
}

/// Waits until `file` in the project holds `text` (`None`: is absent).
fn wait_file(pane: &Pane, s: &Sandbox, file: &str, text: Option<&str>) {
    let path = s.work.join(file);
    pane.wait_until(&format!("{file} holding {text:?}"), || {
        std::fs::read_to_string(&path).ok().as_deref() == text
    });
}

fn read(s: &Sandbox, file: &str) -> Option<String> {
    std::fs::read_to_string(s.work.join(file)).ok()
}

/// A `write` tool call step followed by an answer step.
fn write_then(path: &str, content: &str, answer: &str) -> String {
    format!(
        r#"{{"reply":{{"text":"Writing.","toolCalls":[{{"name":"write","arguments":{{"path":"{path}","content":"{content}"}}}}]}}}},{{"reply":{{"text":"{answer}"}}}}"#
    )
}

/// focus on a mock playing `steps` (JSON, comma separated), in a project
/// whose notes.txt holds "old notes", writes allowed without asking.
fn start(s: &Sandbox, steps: &str) -> (MockLlm, Pane) {
    std::fs::write(s.work.join("notes.txt"), "old notes\n").unwrap();
    let server = mock(&format!(r#"{{"name":"rewind","steps":[{steps}]}}"#));
    s.write_models(&server.url());
    let pane = Pane::start(
        s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    (server, pane)
}

/// Sends `prompt`, waits for `answer` and for the run's end.
fn ask(pane: &Pane, prompt: &str, answer: &str) {
    pane.send(prompt, answer);
    wait_idle(pane);
}

fn session_text(s: &Sandbox) -> String {
    let file = s
        .session_files()
        .into_iter()
        .next()
        .expect("a session file");
    std::fs::read_to_string(Path::new(&file)).unwrap()
}

#[test]
fn rewind_lists_prompts_with_their_changes_and_restores_code_and_conversation() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let steps = format!(
        "{},{}",
        write_then("notes.txt", "new notes\\n", "first reply"),
        write_then("made.txt", "made\\n", "second reply")
    );
    let (_server, pane) = start(&s, &steps);
    ask(&pane, "alpha question", "first reply");
    ask(&pane, "beta question", "second reply");
    assert_eq!(read(&s, "made.txt").as_deref(), Some("made\n"));

    // The list: each prompt with what its run changed, the newest selected.
    pane.send("/rewind", "rewind · your prompts on this branch");
    wait_for_row(
        &pane,
        "the first prompt's changes",
        &["1. alpha question", "1 file +1 −1 · notes.txt"],
    );
    wait_for_row(
        &pane,
        "the second, selected",
        &["❯", "2. beta question", "1 file +1 −0 · made.txt"],
    );

    // The question about the first: the default (both) selected, the exact
    // file operations under it.
    pane.keys(&["Up", "Enter"]);
    wait_for_row(
        &pane,
        "the question",
        &["rewind to before “alpha question”"],
    );
    wait_for_row(
        &pane,
        "the default",
        &["❯ 1. restore code and conversation"],
    );
    wait_for_row(&pane, "an operation", &["write notes.txt (10 bytes"]);
    wait_for_row(&pane, "another", &["remove file made.txt"]);
    pane.keys(&["Enter"]);
    wait_for_row(
        &pane,
        "the note",
        &["rewound code and conversation to before “alpha question”"],
    );
    wait_for_row(&pane, "what was restored", &["files: 2 restored"]);
    assert_eq!(read(&s, "notes.txt").as_deref(), Some("old notes\n"));
    assert_eq!(read(&s, "made.txt"), None);
    // The conversation went back: the prompt is in the editor again, the
    // answers are gone from the transcript drawn again.
    wait_for_row(
        &pane,
        "the prompt back in the editor",
        &["› alpha question"],
    );
    pane.wait_until("the answers gone", || {
        !pane.visible_screen().contains("second reply")
    });
    assert!(
        session_text(&s).contains("\"focus.restore\""),
        "the restore is recorded"
    );
}

#[test]
fn esc_esc_opens_rewind_and_a_file_changed_outside_focus_is_kept_unless_f() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let steps = r#"{"reply":{"text":"Writing.","toolCalls":[{"name":"write","arguments":{"path":"notes.txt","content":"new notes\n"}},{"name":"write","arguments":{"path":"other.txt","content":"other\n"}}]}},{"reply":{"text":"first reply"}}"#;
    let (_server, pane) = start(&s, steps);
    ask(&pane, "alpha question", "first reply");
    // The user edits a file the run wrote.
    std::fs::write(s.work.join("notes.txt"), "the user's notes\n").unwrap();

    // /hotkeys names Esc Esc (in Esc's row).
    pane.send("/hotkeys", "Keys");
    pane.wait_for_all("Esc Esc in /hotkeys", &["Esc Esc on an", "`/rewind`"]);

    // One Esc says what a second does; the second opens the list.
    pane.keys(&["Escape"]);
    wait_for_row(&pane, "the hint", &["Esc again: rewind"]);
    pane.keys(&["Escape"]);
    wait_for_row(&pane, "the list", &["rewind · your prompts on this branch"]);
    wait_for_row(&pane, "the prompt", &["❯", "1. alpha question", "2 files"]);
    pane.keys(&["Enter"]);
    wait_for_row(
        &pane,
        "the conflict",
        &["1 file(s) changed outside focus since focus recorded them"],
    );
    wait_for_row(&pane, "its diff", &["+ the user's notes"]);
    wait_for_row(&pane, "kept by default", &["kept (f: overwrite them)"]);
    // Code only: the other file goes, the user's file stays.
    pane.keys(&["3"]);
    wait_for_row(
        &pane,
        "the note",
        &["rewound the code to before “alpha question”; the conversation stays"],
    );
    wait_for_row(
        &pane,
        "the conflict kept",
        &["kept 1 file(s) changed outside focus: notes.txt"],
    );
    assert_eq!(read(&s, "other.txt"), None);
    assert_eq!(read(&s, "notes.txt").as_deref(), Some("the user's notes\n"));
    // The conversation stays: all five messages (the prompt, two answers,
    // two tool results).
    pane.send("/session", "(1 yours, 2 answers, 2 tool results)");

    // `/rewind 1` asks at once; `f` then 3 overwrites.
    pane.send("/rewind 1", "rewind to before “alpha question”");
    wait_for_row(&pane, "the conflict", &["+ the user's notes"]);
    pane.keys(&["f"]);
    wait_for_row(&pane, "overwrite on", &["OVERWRITTEN (f: keep them)"]);
    pane.keys(&["3"]);
    wait_for_row(
        &pane,
        "the note",
        &["overwrote 1 file(s) changed outside focus"],
    );
    wait_file(&pane, &s, "notes.txt", Some("old notes\n"));
}

#[test]
fn tree_offers_to_restore_files_with_the_rewind_default_setting() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"checkpoints":{"rewindDefault":"code"}}"#,
    )
    .unwrap();
    let steps = format!(
        r#"{{"reply":{{"text":"first reply"}}}},{}"#,
        write_then("notes.txt", "new notes\\n", "second reply")
    );
    let (_server, pane) = start(&s, &steps);
    ask(&pane, "alpha question", "first reply");
    ask(&pane, "beta question", "second reply");
    assert_eq!(read(&s, "notes.txt").as_deref(), Some("new notes\n"));

    // To the first answer, before the write: the branch question, then the
    // files' question with the setting's choice (code) selected.
    pane.send("/tree", "session tree ·");
    pane.type_text("/first reply");
    wait_for_row(&pane, "the match", &["ai: first reply"]);
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the search kept", &["tree›"]);
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the branch question", &["Summarize branch? [y/n]"]);
    pane.keys(&["n"]);
    wait_for_row(&pane, "the files' question", &["differ from the files now"]);
    wait_for_row(&pane, "the setting's default", &["❯ 3. code only"]);
    wait_for_row(&pane, "the operation", &["write notes.txt (10 bytes"]);
    // Both: the files come back and the conversation moves.
    pane.keys(&["1"]);
    wait_for_row(&pane, "the move", &["continuing from that entry"]);
    wait_for_row(&pane, "the files", &["files: 1 restored (notes.txt)"]);
    assert_eq!(read(&s, "notes.txt").as_deref(), Some("old notes\n"));

    // Back to the latest answer with `/tree N` (entry 5 of the outline: the
    // two prompts, the first answer, the write call, the second answer): its
    // files differ again; conversation only moves and leaves them.
    pane.type_text("/tree 5");
    pane.keys(&["Enter"]);
    wait_for_row(
        &pane,
        "the files' question",
        &["second reply", "differ from the files now"],
    );
    pane.keys(&["2"]);
    pane.wait_until("the second move", || {
        let screen = pane.visible_screen();
        screen.contains("second reply")
            && !screen.contains("session tree ·")
            && !screen.contains("differ from the files now")
    });
    assert_eq!(read(&s, "notes.txt").as_deref(), Some("old notes\n"));
}

#[test]
fn diff_shows_the_session_changes_unified_and_side_by_side() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let steps = r#"{"reply":{"text":"Writing.","toolCalls":[{"name":"write","arguments":{"path":"notes.txt","content":"new notes\nsecond line\n"}},{"name":"write","arguments":{"path":"made.txt","content":"made\n"}}]}},{"reply":{"text":"first reply"}}"#;
    let (_server, pane) = start(&s, steps);
    ask(&pane, "alpha question", "first reply");

    // 110 columns: unified, numbered, every file headed.
    pane.send("/diff", "session diff ·");
    wait_for_row(
        &pane,
        "the title",
        &["session diff · 2 file(s) · +3 −1", "unified"],
    );
    wait_for_row(&pane, "a created file", &["━━ made.txt · created"]);
    wait_for_row(&pane, "a changed file", &["━━ notes.txt · modified"]);
    wait_for_row(&pane, "the removed line", &["1       -old notes"]);
    wait_for_row(&pane, "the added line", &["1 +new notes"]);
    // Esc closes; a note stays.
    pane.keys(&["Escape"]);
    pane.wait_until("the pager closed", || {
        !pane.visible_screen().contains("session diff ·")
    });
    wait_for_row(
        &pane,
        "the note",
        &["2 file(s) changed in this session · +3 −1"],
    );
    pane.send("/quit", "FOCUS-EXITED-0");
    drop(pane);

    // 170 columns, the same session continued: side by side.
    let command = format!(
        "{}; echo FOCUS-EXITED-$?; sleep 30",
        Pane::focus_command(&s, &["--model", "mock-openai/m1", "-c"])
    );
    let wide = Pane::launch_sized(&s, "wide", &command, (170, 40));
    wide.wait_for("the prompt", "›");
    wide.send("/diff", "session diff ·");
    wait_for_row(
        &wide,
        "the title",
        &["session diff · 2 file(s)", "side by side"],
    );
    let paired = wait_for_row(&wide, "the pair", &["-old notes", " │ ", "+new notes"]);
    let (left, right) = paired.split_once(" │ ").unwrap();
    assert!(
        left.contains("-old notes") && right.contains("+new notes"),
        "{paired}"
    );
    wait_for_row(&wide, "an added line alone", &[" │ ", "2 +second line"]);
}
