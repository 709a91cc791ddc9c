//! The commands of interactive mode II in a real terminal (tmux, as in
//! [`crate::interactive`]): `/copy`, `/name`, `/undo`, `/clone`, `!cmd` and
//! `!!cmd`, `/settings`, `/reload`, `/hotkeys`, `/changelog`, Ctrl+V images, themes and
//! `keybindings.json`.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;

/// focus in a pane with `prefix` run first in its shell (an `export`) and the
/// environment changed by `env` (pairs replacing the test defaults).
fn start_with(s: &Sandbox, prefix: &str, env: &[(&str, &str)], args: &[&str]) -> Pane {
    let mut focus = Pane::focus_command(s, args);
    for (from, to) in env {
        focus = focus.replace(from, to);
    }
    let command = format!("{prefix}{focus}; echo FOCUS-EXITED-$?; sleep 30");
    let pane = Pane::launch(s, "c", &command);
    pane.wait_for("the prompt", "›");
    pane
}

/// A sandbox whose models are served by a mock playing `scenario`.
fn sandbox_with(scenario: &str) -> (Sandbox, focus_testkit::mock_llm::MockLlm) {
    let s = Sandbox::new();
    let server = mock(scenario);
    s.write_models(&server.url());
    (s, server)
}

/// The last row of the visible window holding text (the footer).
fn footer(pane: &Pane) -> String {
    let screen = pane.visible_screen();
    let row = screen.lines().rev().find(|l| !l.trim().is_empty());
    row.unwrap_or_default().to_string()
}

#[test]
fn copy_name_undo_and_clone() {
    if !tmux_available() {
        return;
    }
    let (s, server) = sandbox_with(
        r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}},{"reply":{"text":"third reply"}}]}"#,
    );
    // A clipboard program that keeps what it is given.
    let bin = s.root.join("bin");
    let clip = s.root.join("clipboard.txt");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("xclip");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > '{}.part' && mv '{0}.part' '{0}'\n",
            clip.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let prefix = format!("export PATH='{}':\"$PATH\"; ", bin.display());
    let pane = start_with(&s, &prefix, &[], &["--model", "mock-openai/m1"]);

    // tmux takes OSC 52 into its paste buffers when asked to (a server
    // option: the other tests send no OSC 52).
    assert!(std::process::Command::new("tmux")
        .args(["set-option", "-s", "set-clipboard", "on"])
        .status()
        .unwrap()
        .success());
    pane.send("/copy", "no answer to copy yet");
    pane.send("hello", "first reply");
    pane.type_text("/copy");
    pane.keys(&["Enter"]);
    pane.wait_for_all(
        "the copy note",
        &["copied the last answer (1 lines)", "OSC 52) and xclip"],
    );
    pane.wait_until("the clipboard program receiving the answer", || {
        std::fs::read_to_string(&clip).is_ok_and(|t| t == "first reply")
    });
    pane.wait_until("tmux receiving the answer by OSC 52", || {
        let buffers = std::process::Command::new("tmux")
            .args(["list-buffers", "-F", "#{buffer_sample}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&buffers.stdout)
            .lines()
            .any(|l| l == "first reply")
    });

    // The name shows in the footer and is recorded as pi's session_info.
    pane.send("/name the-named-one", "session named");
    pane.wait_until("the name in the footer", || {
        footer(&pane).contains("the-named-one")
    });

    // /undo: back before "hello", its text in the editor; the answer stays
    // in the file (append-only) but leaves the screen's conversation.
    pane.send("/undo", "undone: back to before your last message");
    pane.wait_until("the message back in the editor", || {
        pane.visible_screen()
            .lines()
            .any(|l| l.trim_end() == "› hello")
    });
    let file = s.session_files().into_iter().next().unwrap();
    assert!(file_contains(&file, "first reply"));
    assert!(file_contains(&file, "\"session_info\""));
    pane.keys(&["C-u"]);
    pane.send("/undo", "nothing to undo");
    pane.send("again", "second reply");
    let context = server.requests()[1].body_text();
    assert!(!context.contains("first reply"), "{context}");

    // /clone: a second file with the branch, continued from there.
    pane.send("/clone", "cloned into a new session");
    let files = s.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let clone = files.iter().find(|f| **f != file).unwrap();
    assert!(file_contains(clone, "second reply"));
    assert!(!file_contains(clone, "first reply"), "only the branch");
    assert!(file_contains(clone, "parentSession"));
    pane.send("more", "third reply");
    assert!(file_contains(clone, "third reply"));
    assert!(!file_contains(&file, "third reply"));
}

#[test]
fn shell_commands_go_to_the_context_or_to_the_user_only() {
    if !tmux_available() {
        return;
    }
    let (s, server) = sandbox_with(r#"{"name":"c","steps":[{"reply":{"text":"seen it"}}]}"#);
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1"]);

    pane.send("!echo SHELL-OUT-$((40+2))", "SHELL-OUT-42");
    pane.wait_for("the note", "output added to the model's context");
    pane.send("!!echo HIDDEN-$((1+1))", "HIDDEN-2");
    pane.wait_for("the note", "shown to you only");
    // A key focus holds (models.json's) never reaches the context.
    pane.send("!echo the key is test-key", "the key is [redacted]");
    // A failing command shows its exit code.
    pane.send("!exit 3", "Command exited with code 3");
    // Output streams while the command runs (it would take 30 s), and Esc
    // cancels it.
    pane.send("!echo EARLY-$((6*7)); sleep 30", "EARLY-42");
    assert!(pane
        .visible_screen()
        .contains("running !echo EARLY-$((6*7))"));
    pane.keys(&["Escape"]);
    pane.wait_for("the cancel", "Command aborted by the user");
    // Plan mode: a command that writes is refused, and nothing runs.
    pane.send("/permissions plan", "permission mode: plan");
    pane.send("!touch made-by-shell.txt", "not run (plan mode)");
    assert!(!s.work.join("made-by-shell.txt").exists());
    pane.send("/permissions default", "permission mode: default");

    pane.send("what did you see", "seen it");
    let body = server.requests()[0].body_text();
    assert!(body.contains("Ran `echo SHELL-OUT-$((40+2))`"), "{body}");
    assert!(body.contains("SHELL-OUT-42"), "{body}");
    assert!(!body.contains("HIDDEN-2"), "!! stays out: {body}");
    assert!(body.contains("the key is [redacted]"), "{body}");
    assert!(!body.contains("test-key"), "{body}");
    let file = s.session_files().into_iter().next().unwrap();
    assert!(file_contains(&file, "\"bashExecution\""));
    assert!(file_contains(&file, "\"excludeFromContext\":true"));

    // Continued later, the commands show again where they ran.
    pane.keys(&["C-d"]);
    pane.wait_for("the exit", "FOCUS-EXITED-0");
    drop(pane);
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1", "-c"]);
    pane.wait_for_all(
        "the transcript",
        &[
            "continuing a session",
            "SHELL-OUT-42",
            "HIDDEN-2",
            "Command exited with code 3",
        ],
    );
}

#[test]
fn settings_reload_hotkeys_changelog_and_keybindings() {
    if !tmux_available() {
        return;
    }
    let (s, _server) = sandbox_with(r#"{"name":"c","steps":[]}"#);
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"reserveTokens":16000}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(s.work.join(".focus")).unwrap();
    std::fs::write(
        s.work.join(".focus/settings.json"),
        r#"{"theme":"dark","steeringMode":"all"}"#,
    )
    .unwrap();
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1"]);

    pane.send("/changelog", "this project has no CHANGELOG.md");
    std::fs::write(
        s.work.join("CHANGELOG.md"),
        "# Changelog\n\n## 1.2.3\n\n- CHANGELOG-MARKER fixed\n",
    )
    .unwrap();
    pane.send("/changelog", "CHANGELOG-MARKER fixed");
    pane.send("/hotkeys", "Shift+Enter, Ctrl+J");

    // The picker: a key, then a value; written where the key is set.
    pane.type_text("/settings");
    pane.keys(&["Enter"]);
    pane.wait_for_all(
        "the settings picker",
        &[
            "settings (Enter: choose",
            "compaction.reserveTokens = 16000",
        ],
    );
    pane.type_text("theme");
    pane.wait_for("the project's theme", "theme = dark");
    pane.keys(&["C-u"]);
    pane.type_text("hidethink");
    pane.wait_for("the filtered keys", "hideThinkingBlock = false");
    pane.keys(&["Enter"]);
    pane.wait_for("the values", "hideThinkingBlock → the user");
    pane.send("true", "hideThinkingBlock = true written to the user");
    let global = std::fs::read_to_string(s.home.join("settings.json")).unwrap();
    assert!(global.contains("\"hideThinkingBlock\": true"), "{global}");
    assert!(
        global.contains("\"reserveTokens\": 16000"),
        "kept: {global}"
    );
    // Typed: the theme is set in the project file, so it is written there.
    pane.send(
        "/settings theme light",
        "theme = light written to the project",
    );
    let project = std::fs::read_to_string(s.work.join(".focus/settings.json")).unwrap();
    assert!(project.contains("\"theme\": \"light\""), "{project}");
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(s.work.join(".focus/settings.json")).unwrap();
        assert_eq!(
            meta.permissions().mode() & 0o777,
            0o600,
            "settings are private"
        );
    }
    assert!(
        project.contains("\"steeringMode\": \"all\""),
        "kept: {project}"
    );
    pane.send(
        "/settings theme nope",
        "theme: expected a theme: dark, light",
    );

    // keybindings.json, read by /reload: Ctrl+X cycles thinking, Shift+Tab
    // no longer does.
    std::fs::write(
        s.home.join("keybindings.json"),
        r#"{"cycleThinkingLevel":"ctrl+x","noSuchAction":"ctrl+q"}"#,
    )
    .unwrap();
    pane.send("/reload", "reloaded: settings (theme light)");
    pane.wait_for("the warning", "unknown action \"noSuchAction\" ignored");
    pane.wait_until("the footer at thinking off", || {
        footer(&pane).contains("thinking off")
    });
    pane.keys(&["BTab"]);
    pane.keys(&["C-x"]);
    pane.send("/thinking", "thinking: minimal (choose");
    pane.send("/hotkeys", "cycleThinkingLevel");
    pane.wait_for("the changed keys", "Changed by keybindings.json:");
}

#[test]
fn themes_and_the_16_colour_fallback() {
    if !tmux_available() {
        return;
    }
    let (s, _server) = sandbox_with(r#"{"name":"c","steps":[]}"#);
    std::fs::create_dir_all(s.home.join("themes")).unwrap();
    std::fs::write(
        s.home.join("themes/mine.json"),
        r##"{"base":"light","vars":{"hot":"#123456"},"colors":{"error":"hot"}}"##,
    )
    .unwrap();
    std::fs::write(s.home.join("settings.json"), r#"{"theme":"mine"}"#).unwrap();
    let truecolor = [("NO_COLOR=1", "NO_COLOR= COLORTERM=truecolor TERM=xterm")];
    let pane = start_with(&s, "", &truecolor, &["--model", "mock-openai/m1"]);
    pane.send("/nonsense", "unknown command /nonsense");
    assert!(
        pane.styled_screen().contains("38;2;18;52;86"),
        "the theme file's error colour: {}",
        pane.styled_screen()
    );
    // The built-in light theme, chosen by /settings.
    pane.send("/settings theme light", "theme = light written");
    pane.send("/nonsense2", "unknown command /nonsense2");
    assert!(pane.styled_screen().contains("38;2;175;0;0"));
    drop(pane);

    // A terminal that only has 16 colours gets the basic red.
    let basic = [("NO_COLOR=1", "NO_COLOR= COLORTERM= TERM=xterm")];
    let pane = start_with(&s, "", &basic, &["--model", "mock-openai/m1"]);
    pane.send("/nonsense", "unknown command /nonsense");
    let styled = pane.styled_screen();
    assert!(styled.contains("\x1b[31m"), "{styled}");
    assert!(!styled.contains("38;2;"), "{styled}");
    drop(pane);
    // NO_COLOR: no colour at all. A theme that does not exist is a warning.
    std::fs::create_dir_all(s.work.join(".focus")).unwrap();
    std::fs::write(s.work.join(".focus/settings.json"), r#"{"theme":"nope"}"#).unwrap();
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1"]);
    // The warning and /settings name the theme files too.
    pane.wait_for(
        "the warning",
        "theme \"nope\": no such theme (there are dark, light, mine;",
    );
    pane.send(
        "/settings theme nosuch",
        "expected a theme: dark, light, mine",
    );
    pane.send("/nonsense", "unknown command /nonsense");
    let styled = pane.styled_screen();
    assert!(
        !styled.contains("\x1b[31m") && !styled.contains("38;2;"),
        "{styled}"
    );
}

#[test]
fn hide_thinking_block_folds_thinking_from_the_start() {
    if !tmux_available() {
        return;
    }
    let (s, _server) = sandbox_with(
        r#"{"name":"k","steps":[{"reply":{"thinking":"a secret thought","text":"the answer"}}]}"#,
    );
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"hideThinkingBlock":true}"#,
    )
    .unwrap();
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1"]);
    pane.type_text("think");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for_all("the answer", &["the answer", "Ctrl+T shows thinking"]);
    assert!(!screen.contains("a secret thought"), "{screen}");
    pane.keys(&["C-t"]);
    pane.wait_for("thinking shown", "┊ a secret thought");
}

#[test]
fn safe_commands_run_while_the_agent_works() {
    if !tmux_available() {
        return;
    }
    // The answer's text waits behind a gate the test opens once the commands
    // ran: the run is still going however slow the machine (with 2 s between
    // the stream's events, five commands could outlast it under load).
    use focus_testkit::mock_llm::{server::respond, Scenario};
    use focus_testkit::server::{Gate, TestServer};
    let scenario =
        Scenario::parse(r#"{"name":"c","steps":[{"reply":{"text":"done at last"}}]}"#).unwrap();
    let gate = Gate::new();
    let held = gate.clone();
    let server = TestServer::responder(move |request| {
        let mut response = respond(&scenario, 0, request);
        // The first event (the stream's start) goes out; the text waits.
        if let Some(text) = response.chunks.get_mut(1) {
            text.gate = Some(held.clone());
        }
        response
    });
    let s = Sandbox::new();
    s.write_models(&server.url());
    let pane = start_with(&s, "", &[], &["--model", "mock-openai/m1"]);
    pane.send("slow one", "Esc aborts");
    pane.send("/hotkeys", "Shift+Enter, Ctrl+J");
    pane.send("/name during-run", "session named");
    pane.send("/copy", "no answer to copy yet");
    pane.send("/clone", "this command waits until the agent is done");
    assert!(!pane.screen().contains("done at last"), "still running");
    gate.open();
    pane.wait_for("the answer", "done at last");
}

/// Ctrl+V attaches the clipboard's image: the input shows `[image #1]`, and
/// the image goes with the message, as `@FILE` sends one; a clipboard without
/// an image is said so.
#[test]
fn ctrl_v_attaches_the_clipboards_image() {
    if !tmux_available() {
        return;
    }
    let (s, server) = sandbox_with(r#"{"name":"c","steps":[{"reply":{"text":"nice picture"}}]}"#);
    // A clipboard holding a PNG (its signature, then a few bytes), served the
    // way xclip serves one (`-t image/png -o`); any other request fails.
    let bin = s.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let flag = s.root.join("image-in-clipboard");
    let script = bin.join("xclip");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ -f '{}' ] || exit 1\ncase \"$*\" in *image/png*-o*) printf '\\211PNG\\r\\n\\032\\nPIXELS' ;; *) exit 1 ;; esac\n",
            flag.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let prefix = format!("export PATH='{}':\"$PATH\"; ", bin.display());
    let pane = start_with(&s, &prefix, &[], &["--model", "mock-openai/m1"]);

    pane.keys(&["C-v"]);
    pane.wait_for("no image yet", "found no image in the clipboard");
    std::fs::write(&flag, "").unwrap();
    pane.type_text("what is in ");
    pane.keys(&["C-v"]);
    pane.wait_for("the label", "› what is in [image #1]");
    pane.wait_for("the notice", "[image #1] attached (1 KB image/png)");
    let screen = pane.send("this?", "nice picture");
    // The prompt's block names the image; a PNG with no header has no size.
    assert!(screen.contains("[image, 14 B]"), "{screen}");
    let body = server.requests()[0].body_text();
    let png = focus_tools::read::base64_encode(b"\x89PNG\r\n\x1a\nPIXELS");
    assert!(body.contains(&png), "the image was sent: {body}");
    assert!(body.contains("what is in [image #1] this?"), "{body}");
}
