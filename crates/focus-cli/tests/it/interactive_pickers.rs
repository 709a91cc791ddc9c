//! The pickers of interactive mode in a real terminal (tmux, as in
//! [`crate::interactive`]): the `/` command menu, `@` file search and the
//! `/model` picker.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;

/// Rows of the visible window that hold `needle`.
fn rows_with(screen: &str, needle: &str) -> usize {
    screen.lines().filter(|l| l.contains(needle)).count()
}

/// focus started in a window of `size`, like [`Pane::start`].
fn start_sized(s: &Sandbox, args: &[&str], size: (u16, u16)) -> Pane {
    let command = format!(
        "{}; echo FOCUS-EXITED-$?; sleep 30",
        Pane::focus_command(s, args)
    );
    let pane = Pane::launch_sized(s, "p", &command, size);
    pane.wait_for("the prompt", "›");
    pane
}

#[test]
fn slash_opens_the_command_menu_filtered_as_you_type() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[{"reply":{"text":"first reply"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);

    // `/` alone: every command, with its line.
    pane.type_text("/");
    pane.wait_for_visible(
        "the menu",
        &[
            "commands · 23 ·",
            "❯ /model",
            "session file, id, message counts, tokens and cost",
        ],
    );
    // Typing filters; the best match is selected; Enter runs it.
    pane.type_text("ses");
    pane.wait_for_visible(
        "the filtered menu",
        &["commands “ses” · 2 of 23", "❯ /session"],
    );
    pane.keys(&["Enter"]);
    pane.wait_for("session info", "messages: 0 (0 yours");
    pane.wait_until("the menu closing", || {
        !pane.visible_screen().contains("commands ·")
    });

    // Tab completes the selected command into the input, and the menu closes.
    pane.type_text("/thin");
    pane.wait_for("the menu", "commands “thin”");
    pane.keys(&["Tab"]);
    pane.wait_for("the completed command", "› /thinking");
    pane.wait_until("the menu closing after Tab", || {
        !pane.visible_screen().contains("commands “")
    });
    pane.send("high", "thinking high ·");

    // PageDown moves a page (the rows shown); Up wraps to the last entry;
    // Esc closes the menu and leaves the input alone.
    pane.type_text("/");
    pane.wait_for("the menu", "commands · 23 ·");
    pane.keys(&["PageDown"]);
    pane.wait_for("a page down", "❯ /help");
    pane.keys(&["Escape"]);
    pane.wait_until("the menu closing on Esc", || {
        let screen = pane.visible_screen();
        !screen.contains("commands ·") && screen.contains("› /")
    });
    pane.keys(&["C-u"]);
    pane.type_text("/");
    pane.wait_for("the menu", "commands · 23 ·");
    pane.keys(&["Up"]);
    pane.wait_for("the last entry", "❯ /quit");
    pane.keys(&["Enter"]);
    pane.wait_for("exit", "FOCUS-EXITED-0");
    // What the menu ran went to the history like a typed command.
    let history = std::fs::read_to_string(s.home.join("history.jsonl")).unwrap();
    assert!(history.contains("/session"), "{history}");
}

#[test]
fn a_command_no_entry_matches_is_sent_as_typed() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("/zzz");
    pane.wait_for("the empty menu", "(nothing matches)");
    pane.keys(&["Enter"]);
    pane.wait_for("the error", "unknown command /zzz");
    // A space closes the menu: arguments are typed freely.
    pane.type_text("/name");
    pane.wait_for("the menu", "commands “name”");
    pane.type_text(" my-name");
    pane.wait_until("the menu closing at a space", || {
        !pane.visible_screen().contains("commands “")
    });
    pane.keys(&["Enter"]);
    pane.wait_for("the name", "session named \"my-name\"");
}

#[test]
fn at_searches_the_project_files_and_attaches_the_chosen_one() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[{"reply":{"text":"got the file"}}]}"#);
    s.write_models(&server.url());
    std::fs::create_dir_all(s.work.join("src/deep")).unwrap();
    std::fs::create_dir_all(s.work.join("ignored")).unwrap();
    std::fs::write(s.work.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::write(s.work.join("ignored/secret-notes.txt"), "hidden").unwrap();
    std::fs::write(s.work.join("src/deep/alpha.txt"), "ALPHA-CONTENT-42\n").unwrap();
    std::fs::write(s.work.join("src/beta.txt"), "beta\n").unwrap();
    // A file name holding an escape sequence (it would turn the screen red).
    std::fs::write(s.work.join("evil\x1b[31mred.txt"), "x").unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);

    pane.type_text("look at @");
    // The name is shown without its escape, which colored nothing (NO_COLOR
    // is set: focus itself writes no colors).
    let screen = pane.wait_for_all(
        "the file picker",
        &["files · ", "src/deep/alpha.txt", "evilred.txt"],
    );
    assert!(!screen.contains("secret-notes"), "ignored file: {screen}");
    let styled = pane.styled_screen();
    assert!(!styled.contains("31m"), "{styled}");
    pane.type_text("alp");
    pane.wait_for_visible(
        "the filtered files",
        &["files “alp” · 1 of", "❯ src/deep/alpha.txt"],
    );
    pane.keys(&["Tab"]);
    pane.wait_for("the path in the input", "› look at @src/deep/alpha.txt");
    pane.wait_until("the picker closing", || {
        !pane.visible_screen().contains("files “")
    });
    pane.send("please", "got the file");
    // The file went to the model as `focus @FILE` sends it.
    let body = server.requests()[0].body_text();
    assert!(body.contains("ALPHA-CONTENT-42"), "{body}");
    assert!(body.contains("src/deep/alpha.txt"), "{body}");
    assert!(
        body.contains("look at @src/deep/alpha.txt please"),
        "{body}"
    );

    // `@` inside a word (an e-mail address) opens nothing; Esc closes a picker.
    // A name holding an escape is never put in the input.
    pane.type_text("@evil");
    pane.wait_for("the picker", "❯ evilred.txt");
    pane.keys(&["Enter"]);
    pane.wait_for_visible("the refusal", &["holds control characters", "› @evil"]);
    let styled = pane.styled_screen();
    assert!(!styled.contains("31m"), "{styled}");
    pane.keys(&["C-u"]);

    pane.type_text("mail me@");
    pane.wait_for("the typed text", "› mail me@");
    assert!(!pane.visible_screen().contains("files ·"));
    pane.keys(&["C-u"]);
    pane.type_text("@be");
    pane.wait_for("the picker", "files “be”");
    pane.keys(&["Escape"]);
    pane.wait_until("the picker closing", || {
        !pane.visible_screen().contains("files “")
    });
}

/// In a small window the picker shows a few rows and the whole live area
/// (picker, editor, footer) still fits.
#[test]
fn a_picker_stays_within_a_small_window() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[]}"#);
    s.write_models(&server.url());
    for i in 0..60 {
        std::fs::write(s.work.join(format!("file-{i:02}.txt")), "x").unwrap();
    }
    let pane = start_sized(&s, &["--model", "mock-openai/m1"], (70, 12));
    pane.type_text("@");
    // The footer and the editor: the whole live area fits.
    let screen = pane.wait_for_visible("the picker", &["files · 60", "mock-openai/m1", "› @"]);
    let shown = rows_with(&screen, "file-");
    assert!((2..=8).contains(&shown), "{shown} rows: {screen}");
    // Paging keeps the selection in view.
    pane.keys(&["PageDown", "PageDown"]);
    pane.wait_until("the selection moving by pages", || {
        let screen = pane.visible_screen();
        screen
            .lines()
            .any(|l| l.starts_with("❯ file-") && !l.starts_with("❯ file-0"))
    });
}

#[test]
fn model_opens_a_picker_and_switching_is_recorded() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}}]}"#,
    );
    s.write_models(&server.url());
    // A model id holding an escape sequence (models.json is outside input too).
    let models = s.home.join("models.json");
    let json = std::fs::read_to_string(&models).unwrap().replace(
        r#"v1beta","api":"google-generative-ai","apiKey":"test-key","models":[{"id":"m1""#,
        r#"v1beta","api":"google-generative-ai","apiKey":"test-key","models":[{"id":"m1\u001b[31mred""#,
    );
    assert!(json.contains("red"), "{json}");
    std::fs::write(&models, json).unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("hello", "first reply");

    pane.type_text("/model");
    pane.keys(&["Enter"]);
    // The current model is selected; each shows its context window.
    let screen = pane.wait_for_all(
        "the model picker",
        &[
            "models · ",
            "❯ mock-openai/m1  ",
            "mock-anthropic/m1",
            "mock-google/m1red",
        ],
    );
    // (The details start in one column, after the longest name.)
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("❯ mock-openai/m1  ") && l.trim_end().ends_with("ctx 100.0k")),
        "{screen}"
    );
    assert!(screen.contains("mock-anthropic/m1"), "{screen}");
    assert!(screen.contains("mock-google/m1red"), "{screen}");
    let styled = pane.styled_screen();
    assert!(!styled.contains("31m"), "{styled}");
    // The query is typed into the picker (the input stays empty).
    pane.type_text("anth");
    pane.wait_for_visible(
        "the filtered models",
        &["models “anth”", "❯ mock-anthropic/m1"],
    );
    pane.keys(&["Enter"]);
    pane.wait_for("the switch", "model: mock-anthropic/m1");
    pane.wait_for("the footer", "mock-anthropic/m1 · thinking");
    pane.send("again", "second reply");
    let change = s.last_entry("model_change");
    assert!(change.contains("mock-anthropic"), "{change}");

    // Esc closes the picker without switching.
    pane.send("/model", "❯ mock-anthropic/m1");
    pane.type_text("goo");
    pane.keys(&["Escape"]);
    pane.wait_until("the picker closing on the same model", || {
        let screen = pane.visible_screen();
        !screen.contains("models “") && screen.contains("mock-anthropic/m1 · thinking")
    });
}

/// /session, /export, /name and /help run while the agent works (the history
/// still holds nothing: proof it ran before the run ended); others wait.
#[test]
fn reading_commands_run_while_the_agent_works() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(&format!(
        r#"{{"name":"slow","steps":[{WAIT_FOR_RELEASE},
      {{"reply":{{"text":"and then some more"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let args = ["--model", "mock-openai/m1", "--permission-mode", "auto"];
    let pane = Pane::start(&s, &args);
    pane.send("go", "● bash while");
    pane.send("/sess", "messages: 0 (0 yours");
    pane.send("/name busy-run", "session named \"busy-run\"");
    pane.type_text("/thinking high");
    pane.keys(&["Enter"]);
    pane.wait_for_visible(
        "the command kept in the editor",
        &[
            "this command waits until the agent is done",
            "› /thinking high",
        ],
    );
    std::fs::write(s.work.join("release"), "").unwrap();
    pane.wait_for("the answer", "and then some more");
}

/// `/fork` and `/resume` bare open pickers, `/tree` its navigator; the choice
/// does what `/tree N`, `/fork N` and `/resume N` do.
#[test]
fn tree_fork_and_resume_choose_with_the_picker() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    for (prompt, answer) in [
        ("alpha question", "first reply"),
        ("beta question", "second reply"),
    ] {
        pane.send(prompt, answer);
    }

    // The tree (interactive_tree.rs has the rest): the current entry
    // selected; `/` searches; Enter on your message moves before it.
    pane.send("/tree", "❯● ai: second reply");
    pane.send("/beta", "❯● you: beta question");
    pane.keys(&["Enter"]);
    pane.wait_for("the summary question", "Summarize branch? [y/n]");
    pane.keys(&["n"]);
    pane.wait_for("the move", "moved before that message");
    pane.wait_for("the message back in the editor", "› beta question");
    pane.keys(&["C-u"]);

    // Fork: your messages on this branch.
    pane.send("/fork", "❯ alpha question");
    pane.keys(&["Enter"]);
    pane.wait_for("the fork", "forked into a new session");
    pane.wait_for("the forked message in the editor", "› alpha question");
    pane.keys(&["C-u"]);

    // Resume: the recent sessions with their age and size.
    pane.type_text("/resume");
    pane.keys(&["Enter"]);
    pane.wait_for_all("the session picker", &["recent sessions", "msgs"]);
    pane.type_text("alpha");
    pane.wait_for("the filtered sessions", "❯ alpha question");
    pane.keys(&["Enter"]);
    pane.wait_for("the session resumed", "(4 messages)");
}

/// Shift+Tab steps through the thinking levels, Ctrl+P through the usable
/// models; both show in the footer and are recorded in the session.
#[test]
fn shift_tab_and_ctrl_p_cycle_thinking_and_models() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("hello", "first reply");
    pane.keys(&["BTab"]);
    pane.wait_for("the next level", "mock-openai/m1 · thinking minimal");
    pane.keys(&["BTab"]);
    pane.wait_for("the level after", "thinking low ·");
    pane.keys(&["C-p"]);
    // The note and the footer are drawn by one frame or two: wait for the
    // footer, then the note must be there too.
    let screen = pane.wait_for(
        "the next model in the footer",
        "mock-responses/m1 · thinking low",
    );
    assert!(screen.contains("model: mock-responses/m1"), "{screen}");
    pane.send("again", "second reply");
    let change = s.last_entry("model_change");
    assert!(change.contains("mock-responses"), "{change}");
    let level = s.last_entry("thinking_level_change");
    assert!(level.contains("\"low\""), "{level}");
}

/// A picked file that cannot be read when the message is sent: the error names
/// it, the message stays in the editor with its pick, and sending again (the
/// file back) attaches it.
#[test]
fn a_picked_file_gone_before_sending_keeps_the_message() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[{"reply":{"text":"got it"}}]}"#);
    s.write_models(&server.url());
    let file = s.work.join("notes.txt");
    std::fs::write(&file, "NOTES-BODY-7\n").unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("@notes");
    pane.wait_for("the picker", "❯ notes.txt");
    pane.keys(&["Enter"]);
    pane.wait_for("the path", "› @notes.txt");
    std::fs::remove_file(&file).unwrap();
    pane.type_text("read");
    pane.keys(&["Enter"]);
    pane.wait_for_visible(
        "the refusal, the input kept",
        &["cannot attach @notes.txt", "› @notes.txt read"],
    );
    assert!(server.requests().is_empty());
    std::fs::write(&file, "NOTES-BODY-7\n").unwrap();
    pane.keys(&["Enter"]);
    pane.wait_for("the answer", "got it");
    assert!(server.requests()[0].body_text().contains("NOTES-BODY-7"));
}

/// The user's prompt templates and skills join the `/` menu, Tab completion
/// and `/help`, each with its line; a chosen template waits in the input for
/// its arguments and is sent expanded.
#[test]
fn templates_and_skills_are_listed_in_the_menu_and_help() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[{"reply":{"text":"reviewed it"}}]}"#);
    s.write_models(&server.url());
    s.write_template(
        "review",
        "---\ndescription: Review the staged diff\n---\nReview $1 carefully.\n",
    );
    s.write_skill(
        "pdf",
        "---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n",
    );
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);

    pane.type_text("/");
    pane.wait_for("the menu with two more entries", "commands · 25 ·");
    pane.type_text("skil");
    pane.wait_for_visible("the skill", &["❯ /skill:pdf", "Read PDF files"]);
    pane.keys(&["C-u"]);
    pane.type_text("/rev");
    pane.wait_for_visible("the template", &["❯ /review", "Review the staged diff"]);
    // Enter puts it in the input, for its arguments.
    pane.keys(&["Enter"]);
    pane.wait_for("the template in the input", "› /review");
    pane.type_text("src/main.rs");
    pane.wait_for("its argument after a space", "› /review src/main.rs");
    pane.keys(&["Enter"]);
    pane.wait_for("the answer", "reviewed it");
    let body = server.requests()[0].body_text();
    assert!(body.contains("Review src/main.rs carefully."), "{body}");

    // Tab completion knows it; /help lists both with their lines.
    pane.type_text("/revi");
    pane.wait_for("the menu", "commands “revi”");
    pane.keys(&["Escape"]);
    pane.wait_until("the menu closing", || {
        !pane.visible_screen().contains("commands “")
    });
    pane.keys(&["Tab"]);
    pane.wait_for("the completed name", "› /review");
    pane.type_text("x");
    pane.wait_for("a space after it", "› /review x");
    pane.keys(&["C-u"]);
    pane.send("/help", "Keys:");
    let screen = pane.wait_for_all(
        "the help",
        &[
            "Prompt templates and skills",
            "Review the staged diff",
            "Read PDF files",
        ],
    );
    assert!(screen.contains("Prompt templates and skills"), "{screen}");
    // Names and descriptions in two aligned columns.
    let column = |name: &str, description: &str| {
        screen
            .lines()
            .find(|l| l.starts_with(&format!("  {name} ")) && l.contains(description))
            .and_then(|l| l.find(description))
    };
    let review = column("/review", "Review the staged diff");
    assert!(review.is_some(), "{screen}");
    assert_eq!(review, column("/skill:pdf", "Read PDF files"), "{screen}");
}
