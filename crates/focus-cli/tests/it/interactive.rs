//! Interactive mode in a real terminal: tmux runs focus in a pane, `send-keys`
//! types, `capture-pane` reads the screen. Without tmux the tests say SKIPPED
//! (and fail under CI=true, where tmux must be installed).

use crate::support::*;
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a wait for the screen may take before the test fails: generous,
/// since a loaded machine can be slow to start focus or draw a frame, and a
/// passing test never waits that long.
const SCREEN_WAIT: Duration = Duration::from_secs(60);

/// A tmux session running focus; killed on drop.
pub(crate) struct Pane {
    name: String,
}

pub(crate) fn tmux_available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("tmux is required for the interactive tests under CI");
        }
        focus_testkit::skipped("tmux not installed; interactive mode tests not run");
    }
    ok
}

impl Pane {
    /// The shell command that runs focus in the sandbox, offline, with `args`.
    pub(crate) fn focus_command(s: &Sandbox, args: &[&str]) -> String {
        let mut command = format!(
            "cd '{}' && env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u GEMINI_API_KEY -u OLLAMA_HOST FOCUS_HOME='{}' HOME='{}' FOCUS_OFFLINE=1 NO_COLOR=1 '{}'",
            s.work.display(), s.home.display(), s.root.display(), FOCUS
        );
        for arg in args {
            command.push_str(&format!(" '{arg}'"));
        }
        command
    }

    /// A new tmux session (110×40) named after the sandbox and `tag`, running
    /// `command`.
    ///
    /// Sessions are created one at a time: with no tmux server running yet, tests
    /// starting at once each try to start one, and the losers of that race fail
    /// ("server exited unexpectedly"). A failure is retried a few times for the same
    /// reason, and reported with tmux's own words.
    pub(crate) fn launch(s: &Sandbox, tag: &str, command: &str) -> Pane {
        Pane::launch_sized(s, tag, command, (110, 40))
    }

    /// Like [`Pane::launch`], in a window of `(columns, rows)`.
    pub(crate) fn launch_sized(s: &Sandbox, tag: &str, command: &str, size: (u16, u16)) -> Pane {
        let (columns, rows) = (size.0.to_string(), size.1.to_string());
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let name = format!(
            "focus-it-{tag}{}-{}",
            std::process::id(),
            s.root.file_name().unwrap().to_str().unwrap()
        );
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let mut last_error = String::new();
        for _ in 0..5 {
            let out = Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-s",
                    &name,
                    "-x",
                    &columns,
                    "-y",
                    &rows,
                    command,
                ])
                .output()
                .unwrap();
            if out.status.success() {
                return Pane { name };
            }
            last_error = String::from_utf8_lossy(&out.stderr).into_owned();
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("tmux new-session failed five times: {last_error}");
    }

    /// focus in a pane, its exit status printed after it; returns once the
    /// editor prompt shows.
    pub(crate) fn start(s: &Sandbox, args: &[&str]) -> Pane {
        let command = format!(
            "{}; echo FOCUS-EXITED-$?; sleep 30",
            Pane::focus_command(s, args)
        );
        let pane = Pane::launch(s, "", &command);
        pane.wait_for("the prompt", "›");
        pane
    }

    /// Like [`Pane::start`], but focus is started from an interactive bash, as a
    /// job of a shell with job control (so Ctrl+Z can stop it and `fg` resume it).
    /// (No exit status is printed: the shell would print it when the job stops.)
    pub(crate) fn start_in_job_shell(s: &Sandbox, args: &[&str]) -> Pane {
        let pane = Pane::launch(s, "j", "bash --norc --noprofile -i");
        pane.type_text(&Pane::focus_command(s, args));
        pane.keys(&["Enter"]);
        pane.wait_for("the prompt", "›");
        pane
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(Command::new("tmux").args(&args).status().unwrap().success());
    }

    /// Types `text`, presses Enter and waits until the screen shows `expect`;
    /// the screen then.
    pub(crate) fn send(&self, text: &str, expect: &str) -> String {
        self.type_text(text);
        self.keys(&["Enter"]);
        self.wait_for(text, expect)
    }

    /// Lets tmux pass modified keys (Shift+Enter, Ctrl+Shift+P) in the
    /// encoding focus asks for (modifyOtherKeys).
    pub(crate) fn extended_keys(&self) {
        assert!(Command::new("tmux")
            .args(["set-option", "-s", "-t", &self.name, "extended-keys", "on"])
            .status()
            .unwrap()
            .success());
    }

    pub(crate) fn type_text(&self, text: &str) {
        assert!(Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .unwrap()
            .success());
    }

    /// The process id of focus in the pane: the child of the pane's shell.
    pub(crate) fn focus_pid(&self) -> u32 {
        let out = Command::new("tmux")
            .args(["display-message", "-p", "-t", &self.name, "#{pane_pid}"])
            .output()
            .unwrap();
        let shell = String::from_utf8_lossy(&out.stdout).trim().to_string();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // pid (comm) state ppid …
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
                continue;
            };
            let fields: Vec<&str> = after.split_whitespace().collect();
            if fields.get(1) == Some(&shell.as_str()) && stat.contains("(focus)") {
                return entry.file_name().to_string_lossy().parse().unwrap();
            }
        }
        panic!("no focus process under the pane's shell {shell}");
    }

    /// The state letter of process `pid` (`S` sleeping, `T` stopped, …).
    pub(crate) fn process_state(pid: u32) -> char {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rfind(')')
            .and_then(|i| stat[i + 2..].chars().next())
            .unwrap_or('?')
    }

    /// The cursor's column (0-based), as tmux sees it.
    pub(crate) fn cursor_column(&self) -> usize {
        let out = Command::new("tmux")
            .args(["display-message", "-p", "-t", &self.name, "#{cursor_x}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }

    /// Waits until `done` holds; panics naming `what`, with the screen, after
    /// [`SCREEN_WAIT`].
    pub(crate) fn wait_until(&self, what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + SCREEN_WAIT;
        while !done() {
            if Instant::now() > deadline {
                panic!(
                    "interactive: {what} did not happen in {SCREEN_WAIT:?}; screen:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The tmux session's name (a target for `tmux` commands).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Waits until the cursor stands in `column`.
    pub(crate) fn wait_for_cursor(&self, column: usize) {
        self.wait_until(&format!("the cursor reaching column {column}"), || {
            self.cursor_column() == column
        });
    }

    /// The visible window only (no scrollback).
    pub(crate) fn visible_screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible window with its colors and attributes as escape sequences
    /// (`capture-pane -e`): what focus made the terminal do, not only the text.
    pub(crate) fn styled_screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-e", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name, "-S", "-200"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen (with its scrollback) shows `needle`; the screen
    /// then. Only `needle` is sure to be there: what another frame draws may
    /// still be missing (wait for it too, with [`Pane::wait_for_all`]).
    pub(crate) fn wait_for(&self, what: &str, needle: &str) -> String {
        self.wait_for_all(what, &[needle])
    }

    /// Waits until the screen (with its scrollback) shows every one of
    /// `needles` at once; the screen then.
    pub(crate) fn wait_for_all(&self, what: &str, needles: &[&str]) -> String {
        self.wait_for_screen(&format!("{what} ({needles:?})"), |screen| {
            needles.iter().all(|needle| screen.contains(needle))
        })
    }

    /// Waits until the screen (with its scrollback) passes `check`; the
    /// screen then.
    pub(crate) fn wait_for_screen(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let mut screen = String::new();
        self.wait_until(what, || {
            screen = self.screen();
            check(&screen)
        });
        screen
    }

    /// Waits until the visible window (no scrollback) shows every one of
    /// `needles` at once; the window then.
    pub(crate) fn wait_for_visible(&self, what: &str, needles: &[&str]) -> String {
        let mut screen = String::new();
        self.wait_until(&format!("{what} ({needles:?})"), || {
            screen = self.visible_screen();
            needles.iter().all(|needle| screen.contains(needle))
        });
        screen
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

#[test]
fn a_conversation_with_tools_commands_and_quit() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    let screen = pane.send("Run echo please", "Done.");
    assert!(screen.contains("› Run echo please"));
    assert!(screen.contains("● bash echo hi-from-tool"), "{screen}");
    assert!(screen.contains("⎿ hi-from-tool"), "{screen}");
    assert!(
        screen.contains("mock-openai/m1 · thinking off"),
        "footer: {screen}"
    );

    // Tab completes a command; /session reports the counts.
    pane.type_text("/sess");
    pane.keys(&["Tab", "Enter"]);
    pane.wait_for("session info", "4 (1 yours, 2 answers, 1 tool results)");
    // Multi-line input with a trailing backslash, then clearing it with Ctrl+C.
    pane.type_text("line one\\");
    pane.keys(&["Enter"]);
    pane.type_text("line two");
    pane.wait_for("second line", "  line two");
    pane.keys(&["C-c"]);
    pane.send("/quit", "FOCUS-EXITED-0");
    // History survives the run.
    let history = std::fs::read_to_string(s.home.join("history.jsonl")).unwrap();
    assert!(history.contains("Run echo please"));
}

/// Chinese text takes two columns a character: the cursor follows the text, not
/// the character count (it stood mid-text before).
#[test]
fn the_cursor_follows_wide_characters() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let pane = Pane::start(&s, &[]);
    pane.type_text("你好世界");
    // "› " is two columns, each ideograph two more.
    pane.wait_for_cursor(2 + 8);
    pane.keys(&["Left"]);
    pane.wait_for_cursor(2 + 6);
    pane.keys(&["End"]);
    pane.type_text("ok");
    pane.wait_for_cursor(2 + 8 + 2);
    // At 110 columns, "› a" and 53 ideographs fill 109: the 54th does not fit in
    // the last column and starts the next row, where 7 ideographs end at column 14.
    pane.keys(&["C-c"]);
    pane.type_text(&format!("a{}", "字".repeat(60)));
    pane.wait_for_cursor(14);
    pane.keys(&["C-c"]);
    pane.send("/quit", "FOCUS-EXITED-0");
}

/// Narrowing the window re-wraps the live area on screen; widening joins it
/// again. After each, the window shows exactly one footer and one editor
/// (narrowing left the old ones' top rows behind). (What tmux itself moved into
/// the scrollback while re-wrapping stays there: no program can erase that.)
#[test]
fn resizing_the_window_leaves_no_stale_rows() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let pane = Pane::start(&s, &[]);
    pane.type_text(&"word ".repeat(30));
    for width in ["30", "70", "25", "110"] {
        assert!(Command::new("tmux")
            .args(["resize-window", "-t", &pane.name, "-x", width, "-y", "40"])
            .status()
            .unwrap()
            .success());
        pane.type_text(width);
        // Wait for the screen, never for a time: focus notices the new size on its
        // next tick, and until then the old layout may show. Stale rows that stay
        // make this wait fail.
        let mut screen = String::new();
        let settled = |screen: &mut String| {
            *screen = pane.visible_screen();
            let count = |needle: &str| screen.lines().filter(|l| l.contains(needle)).count();
            screen.contains(width) && count("○ ") == 1 && count("› word") == 1
        };
        pane.wait_until(&format!("a clean redraw at width {width}"), || {
            settled(&mut screen)
        });
        assert!(settled(&mut screen), "at width {width}:\n{screen}");
    }
    pane.keys(&["C-u"]);
    pane.send("/quit", "FOCUS-EXITED-0");
}

/// Ctrl+Z stops focus like any terminal program (raw mode turns it into a key, so
/// focus stops itself), the shell gets a working terminal, and `fg` brings focus
/// back where it was.
#[test]
fn ctrl_z_stops_and_fg_resumes() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let pane = Pane::start_in_job_shell(&s, &[]);
    let pid = pane.focus_pid();
    pane.type_text("half a thought");
    pane.keys(&["C-z"]);
    pane.wait_until("focus stopping on Ctrl+Z", || {
        Pane::process_state(pid) == 'T'
    });
    // The shell has the terminal, in its own mode: it echoes a command and runs it.
    pane.send("echo SHELL-$((40+2))", "SHELL-42");
    pane.type_text("fg");
    pane.keys(&["Enter"]);
    // Type only once focus has redrawn its editor below the shell's output: it
    // takes the terminal back (raw mode) before it draws, so keys typed earlier
    // could still reach the shell's line editing.
    pane.wait_until("focus redrawing after fg", || {
        let screen = pane.visible_screen();
        let shell = screen.rfind("SHELL-42");
        let editor = screen.rfind("› half a thought");
        matches!((shell, editor), (Some(shell), Some(editor)) if editor > shell)
    });
    // The editor kept its text; typing goes on and /quit still works.
    pane.type_text(", finished");
    pane.wait_for("the text after resuming", "› half a thought, finished");
    pane.keys(&["C-u"]);
    pane.type_text("/quit");
    pane.keys(&["Enter"]);
    pane.wait_until("focus quitting after fg", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    });
}

#[test]
fn escape_aborts_and_keeps_the_history() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    // The first answer stops after its first piece ("one two three "), behind
    // a gate never opened: it is mid-answer when Esc arrives however slow the
    // machine (with 300 ms between pieces, a loaded one could see it end).
    use focus_testkit::mock_llm::{server::respond, Scenario};
    let scenario = Scenario::parse(
        r#"{"name":"slow","steps":[
      {"reply":{"text":"one two three four five six seven eight nine ten eleven twelve"}},
      {"reply":{"text":"after the abort"}}]}"#,
    )
    .unwrap();
    let never = focus_testkit::server::Gate::new();
    let turn = std::sync::atomic::AtomicUsize::new(0);
    let server = focus_testkit::server::TestServer::responder(move |request| {
        let n = turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut response = respond(&scenario, n, request);
        // Chunk 0 starts the stream, chunk 1 is the first piece.
        if let (0, Some(rest)) = (n, response.chunks.get_mut(2)) {
            rest.gate = Some(never.clone());
        }
        response
    });
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("talk", "Esc aborts");
    // Mid-answer: the first piece is on screen, the rest held back.
    pane.wait_for("the first words", "one two three");
    pane.keys(&["Escape"]);
    pane.wait_for("abort", "(aborted)");
    pane.send("again", "after the abort");
    let second = server.requests()[1].body_text();
    assert!(
        second.contains("talk"),
        "the aborted turn stays in the history: {second}"
    );
}

#[test]
fn approval_prompt_allows_once() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch approved.txt"}}]}},
      {"reply":{"text":"file made"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("make it", "[y] allow once");
    assert!(!s.work.join("approved.txt").exists());
    pane.keys(&["y"]);
    pane.wait_for("answer", "file made");
    assert!(s.work.join("approved.txt").exists());
}

#[test]
fn resume_lists_sessions_and_opens_the_chosen_one() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    assert!(s
        .run(&["-p", "--no-tools", "the first session"], "")
        .status
        .success());
    let pane = Pane::start_raw(&s, &["-r"]);
    pane.wait_for("list", "the first session");
    pane.type_text("1");
    pane.keys(&["Enter"]);
    // The conversation itself is shown (it was not).
    pane.wait_for_all(
        "the resumed session",
        &[
            "continuing a session with 2 messages",
            "› the first session",
        ],
    );
}

impl Pane {
    /// Like [`Pane::start`] without waiting for the editor prompt.
    fn start_raw(s: &Sandbox, args: &[&str]) -> Pane {
        let command = format!("{}; sleep 30", Pane::focus_command(s, args));
        Pane::launch(s, "r-", &command)
    }
}

#[test]
fn slash_commands_do_what_they_say() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    let command = |text: &str, expect: &str| {
        pane.type_text(text);
        pane.keys(&["Enter"]);
        pane.wait_for(text, expect)
    };
    command("hello", "first reply");
    command("/help", "Shift+Enter, Ctrl+J");
    command("/thinking high", "thinking high ·");
    command("/name my-session", "session named \"my-session\"");
    command("/session", "name: my-session");
    command("/permissions plan", "permission mode: plan");
    command(
        "/model mock-anthropic/m1",
        "mock-anthropic/m1 · thinking high",
    );
    // Bare, the choosing commands open a picker (tests/it/interactive_pickers.rs)
    // or the tree navigator (tests/it/interactive_tree.rs); Esc closes it.
    let close_picker = || {
        pane.keys(&["Escape"]);
        pane.wait_until("the picker closing", || {
            !pane.visible_screen().contains("❯ ")
        });
    };
    command("/tree", "❯● ai: first reply");
    pane.keys(&["Escape"]);
    pane.wait_until("the navigator closing", || {
        !pane.visible_screen().contains("session tree ·")
    });
    let html = s.root.join("chat.html");
    command(&format!("/export {}", html.display()), "exported to");
    assert!(file_contains(&html, "first reply"));
    command("/fork", "your messages (Enter");
    close_picker();
    command("/fork 1", "forked into a new session");
    pane.wait_for("the forked message in the editor", "› hello");
    pane.keys(&["C-u"]);
    command("/new", "new session started");
    command("/resume", "recent sessions (Enter opens one)");
    close_picker();
    command("/nonsense", "unknown command /nonsense");
    // (The fork and the new session have no entries yet, so no files.)
    let file = s
        .session_files()
        .into_iter()
        .find(|f| file_contains(f, "my-session"))
        .unwrap();
    assert!(file_contains(&file, "\"thinking_level_change\""));
    assert!(file_contains(&file, "\"model_change\""));
}

#[test]
fn enter_while_working_steers() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(&format!(
        r#"{{"name":"s","steps":[{WAIT_FOR_RELEASE},{{"reply":{{"text":"steered reply"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    pane.send("start", "● bash while");
    pane.send("change of plan", "steering queued");
    std::fs::write(s.work.join("release"), "").unwrap();
    pane.wait_for("steered answer", "steered reply");
    assert!(server.requests()[1].body_text().contains("change of plan"));
}

#[test]
fn alt_enter_while_working_queues_a_follow_up() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(&format!(
        r#"{{"name":"f","steps":[{WAIT_FOR_RELEASE},
      {{"reply":{{"text":"the first answer, complete"}}}},
      {{"reply":{{"text":"follow-up reply"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    pane.send("start", "● bash while");
    pane.type_text("and then this");
    pane.keys(&["M-Enter"]);
    pane.wait_for("queued", "follow-up queued");
    std::fs::write(s.work.join("release"), "").unwrap();
    let screen = pane.wait_for("the follow-up answer", "follow-up reply");
    // The first answer finished before the follow-up was sent.
    let first = screen
        .find("the first answer, complete")
        .expect("first answer complete");
    let second = screen.find("› and then this").expect("follow-up shown");
    assert!(first < second, "{screen}");
}

impl Pane {
    /// focus in a pane of `(columns, rows)`; returns once the editor prompt shows.
    pub(crate) fn start_sized(s: &Sandbox, args: &[&str], size: (u16, u16)) -> Pane {
        let command = format!(
            "{}; echo FOCUS-EXITED-$?; sleep 30",
            Pane::focus_command(s, args)
        );
        let pane = Pane::launch_sized(s, "z", &command, size);
        pane.wait_for("the prompt", "›");
        pane
    }

    /// Everything tmux keeps: the whole scrollback and the window.
    fn scrollback(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name, "-S", "-"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn resize(&self, columns: u16, rows: u16) {
        assert!(Command::new("tmux")
            .args([
                "resize-window",
                "-t",
                &self.name,
                "-x",
                &columns.to_string(),
                "-y",
                &rows.to_string(),
            ])
            .status()
            .unwrap()
            .success());
    }

    /// Pastes `text` as a terminal does (bracketed, since focus asks for it).
    fn paste(&self, text: &str) {
        let buffer = format!("{}-paste", self.name);
        let mut child = Command::new("tmux")
            .args(["load-buffer", "-b", &buffer, "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        assert!(Command::new("tmux")
            .args(["paste-buffer", "-p", "-d", "-b", &buffer, "-t", &self.name])
            .status()
            .unwrap()
            .success());
    }
}

/// The non-blank rows of a capture that show more than once (the footer and the
/// editor are left out: they are redrawn, and show once on the window anyway).
fn duplicate_rows(capture: &str) -> Vec<String> {
    let mut seen = std::collections::HashMap::new();
    for row in capture.lines().map(str::trim_end).filter(|r| !r.is_empty()) {
        *seen.entry(row.to_string()).or_insert(0usize) += 1;
    }
    let mut twice: Vec<String> = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(row, n)| format!("{n}× {row:?}"))
        .collect();
    twice.sort();
    twice
}

/// A 200-line paste shows as a marker in the editor and is sent whole; the
/// scrollback holds the prompt once and no row twice (each redraw of a live
/// area taller than the window copied it into the scrollback: ~1,900 duplicate
/// rows).
#[test]
fn a_200_line_paste_reaches_the_scrollback_once() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"p","steps":[{"reply":{"text":"pasted text received"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (80, 24));
    let text: String = (1..=200).map(|i| format!("pasted line {i:03}\n")).collect();
    pane.paste(&text);
    // In the editor, the paste is a marker; it is expanded when sent.
    pane.wait_for(
        "the paste's marker in the editor",
        "› [paste #1 +200 lines]",
    );
    pane.send("end of prompt", "pasted text received");
    pane.wait_for("idle", "○ mock-openai/m1");
    let all = pane.scrollback();
    assert_eq!(all.matches("› pasted line 001").count(), 1, "{all}");
    for i in [2, 100, 199, 200] {
        assert_eq!(
            all.matches(&format!("pasted line {i:03}")).count(),
            1,
            "{i}: {all}"
        );
    }
    assert_eq!(duplicate_rows(&all), Vec::<String>::new(), "{all}");
    assert!(server.requests()[0].body_text().contains("pasted line 200"));
}

/// A 3.6 KB answer on one line, streamed into a 60×20 window: while it streams,
/// the window shows its tail; afterwards the scrollback holds it once.
#[test]
fn a_long_single_line_answer_in_a_small_window() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let answer: Vec<String> = (1..=620).map(|i| format!("w{i:04}")).collect();
    let answer = answer.join(" ");
    assert!(answer.len() >= 3600);
    let server = mock(&format!(
        r#"{{"name":"l","steps":[{{"reply":{{"text":"{answer}","chunkDelayMs":5}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (60, 20));
    pane.type_text("tell me a long one");
    pane.keys(&["Enter"]);
    // Mid-stream, the window shows the tail of the growing line and the editor.
    pane.wait_for_visible("streaming above the editor", &["w0300", "›"]);
    pane.wait_until("the end of the answer and idle", || {
        let screen = pane.visible_screen();
        screen.contains("w0620") && screen.contains("○ mock-openai/m1")
    });
    let all = pane.scrollback();
    assert_eq!(all.matches("› tell me a long one").count(), 1, "{all}");
    for word in ["w0001", "w0300", "w0620"] {
        assert_eq!(all.matches(word).count(), 1, "{word}: {all}");
    }
    assert_eq!(duplicate_rows(&all), Vec::<String>::new(), "{all}");
}

/// The window goes 120 → 40 → 120 columns while an answer streams: every row is
/// drawn again at the new width, nothing is lost and nothing is doubled.
#[test]
fn resizing_mid_stream_loses_and_doubles_nothing() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let lines: Vec<String> = (1..=40)
        .map(|i| {
            let words: Vec<String> = (1..=12).map(|j| format!("l{i:02}w{j:02}")).collect();
            words.join(" ")
        })
        .collect();
    let answer = lines.join("\\n");
    let server = mock(&format!(
        r#"{{"name":"r","steps":[{{"reply":{{"text":"first answer"}}}},{{"reply":{{"text":"{answer}","chunkDelayMs":25}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (120, 30));
    pane.send("warm up", "first answer");
    pane.send("stream while I resize", "l05w01");
    pane.resize(40, 30);
    // At 40 columns the footer shortens its items (the model to its id) and
    // keeps the cost (the rows tmux re-wrapped from the 120-column footer show
    // the whole label).
    pane.wait_until("a redraw at 40 columns", || {
        pane.visible_screen()
            .lines()
            .any(|l| l.contains(" m1 · ") && l.contains('$') && !l.contains("mock-openai"))
    });
    pane.resize(120, 30);
    pane.wait_until("a redraw at 120 columns", || {
        pane.visible_screen()
            .lines()
            .any(|l| l.contains("mock-openai/m1 · thinking off · ") && l.contains("of "))
    });
    pane.wait_until("the end of the answer and idle", || {
        let screen = pane.visible_screen();
        screen.contains("l40w12") && screen.contains("○ mock-openai/m1")
    });
    let all = pane.scrollback();
    for prompt in ["› warm up", "› stream while I resize"] {
        assert_eq!(all.matches(prompt).count(), 1, "{prompt}: {all}");
    }
    for i in 1..=40 {
        let line = &lines[i - 1];
        assert_eq!(all.matches(line.as_str()).count(), 1, "line {i}: {all}");
    }
    assert_eq!(duplicate_rows(&all), Vec::<String>::new(), "{all}");
}

/// Tool calls are blocks tied to their call: parallel results land under their
/// own header (the slow first call's output under the first header though the
/// second finished first), bash shows the tail with a count of earlier lines,
/// edit a diff with line numbers, a failed call is marked with its reason, and
/// Ctrl+O shows the last call in full.
#[test]
fn tool_calls_show_under_their_own_call() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(s.work.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let server = mock(
        r#"{"name":"t","steps":[
      {"reply":{"toolCalls":[
        {"name":"bash","arguments":{"command":"sleep 1 && echo first-done"}},
        {"name":"bash","arguments":{"command":"echo second-done"}}]}},
      {"reply":{"toolCalls":[{"name":"edit","arguments":{"path":"notes.txt","edits":[{"oldText":"beta","newText":"BETA"}]}}]}},
      {"reply":{"toolCalls":[{"name":"read","arguments":{"path":"missing.txt"}}]}},
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"seq 101 130"}}]}},
      {"reply":{"text":"all tools done"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(
        &s,
        &[
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "accept-edits",
        ],
    );
    let screen = pane.send("use your tools", "all tools done");
    let rows: Vec<&str> = screen.lines().collect();
    let at = |needle: &str| {
        rows.iter()
            .position(|r| r.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{screen}"))
    };
    let first = at("● bash sleep 1 && echo first-done");
    assert!(rows[first + 1].contains("⎿ first-done"), "{screen}");
    let second = at("● bash echo second-done");
    assert!(
        second > first + 1 && rows[second + 1].contains("⎿ second-done"),
        "{screen}"
    );
    // Elapsed time on the header of the slow call.
    assert!(rows[first].contains("s"), "{screen}");
    // The edit: its diff with old and new line numbers.
    at("● edit notes.txt");
    assert!(screen.contains("   2      -beta"), "{screen}");
    assert!(screen.contains("        2 +BETA"), "{screen}");
    assert!(screen.contains("   1    1  alpha"), "{screen}");
    // The failed read: marked, with its reason.
    let read = at("✗ read missing.txt");
    assert!(rows[read + 1].contains("⎿"), "{screen}");
    // bash: the tail, with the count of what is above it.
    assert!(screen.contains("… 25 earlier lines"), "{screen}");
    assert!(screen.contains("130"), "{screen}");
    assert!(!screen.contains("    101"), "{screen}");
    pane.keys(&["C-o"]);
    pane.wait_until("Ctrl+O showing all of bash's output", || {
        let screen = pane.visible_screen();
        screen.contains("  ⎿ 101") && !screen.contains("earlier lines")
    });
    pane.keys(&["C-o"]);
    pane.wait_for("Ctrl+O folding it again", "… 25 earlier lines");
}

/// When the conversation changes under the user, it is shown: a session opened
/// with `-c`, then `/tree N` (moved back: the later turn is gone from the
/// window), `/resume N` and `/fork N`.
#[test]
fn the_conversation_is_shown_when_it_changes() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"h","steps":[
      {"reply":{"text":"answer number one"}},
      {"reply":{"text":"answer number two"}},
      {"reply":{"text":"answer number three"}}]}"#,
    );
    s.write_models(&server.url());
    let models = ["--model", "mock-openai/m1"];
    assert!(s
        .run(&[&models[..], &["-p", "question one"]].concat(), "")
        .status
        .success());
    let pane = Pane::start(&s, &[&models[..], &["-c"]].concat());
    let screen = pane.wait_for("the earlier conversation", "answer number one");
    assert!(screen.contains("› question one"), "{screen}");
    pane.send("question two", "answer number two");
    // Back to the first answer: the window shows the branch up to it.
    pane.type_text("/tree 2");
    pane.keys(&["Enter"]);
    pane.wait_until("the tree move re-rendering the conversation", || {
        let screen = pane.scrollback();
        screen.contains("continuing from that entry")
            && screen.contains("answer number one")
            && !screen.contains("answer number two")
    });
    // A new session, then resuming the first one shows it again.
    pane.type_text("/new");
    pane.keys(&["Enter"]);
    pane.wait_until("a new session with an empty window", || {
        let screen = pane.scrollback();
        screen.contains("new session started") && !screen.contains("answer number one")
    });
    pane.type_text("/resume 1");
    pane.keys(&["Enter"]);
    pane.wait_until("the resumed conversation", || {
        let screen = pane.scrollback();
        screen.contains("resumed") && screen.contains("answer number one")
    });
    // Forking before the first message: an empty conversation, the message back
    // in the editor.
    pane.type_text("/fork 1");
    pane.keys(&["Enter"]);
    pane.wait_until("the fork", || {
        let screen = pane.scrollback();
        screen.contains("forked into a new session")
            && !screen.contains("answer number one")
            && screen.contains("› question one")
    });
}

/// `/compact` runs in the background: a spinner and "Esc cancels" while the
/// summary is written, the editor still takes keys, Esc cancels (the history is
/// kept); a second `/compact` shows the summary as a marked block.
#[test]
fn compaction_runs_in_the_background_and_shows_a_marked_summary() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let server = mock(
        r##"{"name":"c","steps":[
      {"reply":{"text":"a first answer"}},
      {"reply":{"text":"a second answer"}},
      {"reply":{"text":"a slow summary that will be cancelled before it ends, long enough that no loaded machine sees its end before the test presses Esc","chunkDelayMs":400}},
      {"reply":{"text":"Goal: greet\nthe summary of everything so far"}}]}"##,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("hello there", "a first answer");
    pane.send("and again", "a second answer");
    pane.send("/compact", "compacting the history… · Esc cancels");
    pane.type_text("still typing");
    pane.wait_for("keys taken while compacting", "› still typing");
    // Cancel once the summary request reached the model (else the next
    // /compact would get the slow answer).
    pane.wait_until("the summary request", || server.requests().len() >= 3);
    pane.keys(&["Escape"]);
    pane.wait_for(
        "the cancellation",
        "compaction cancelled; the history was kept in full",
    );
    pane.keys(&["C-c"]);
    let screen = pane.send("/compact", "≡ summary of the earlier conversation");
    assert!(
        screen.contains("│ the summary of everything so far"),
        "{screen}"
    );
    pane.wait_for("the report", "compacted: the context went from about");
}

/// The approval dialog: `n` asks for a reason typed apart from the editor's
/// draft (which stays), and Ctrl+C at a second question aborts the run (it was
/// ignored; Esc denied instead of aborting).
#[test]
fn approvals_keep_the_draft_and_ctrl_c_aborts() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"text":"let me make the files for you now","chunkDelayMs":150,
                "toolCalls":[{"name":"bash","arguments":{"command":"touch one.txt"}}]}},
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch two.txt"}}]}},
      {"reply":{"text":"never reached"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("make files", "let me");
    pane.type_text("draft text");
    pane.wait_for_visible(
        "the approval dialog",
        &[
            "[y] allow once",
            "touch one.txt",
            "Esc or Ctrl+C aborts the run",
        ],
    );
    pane.keys(&["n"]);
    pane.wait_for("the reason prompt", "reason›");
    pane.send("not now", "✗ bash: denied (not now)");
    pane.wait_until("the second question", || {
        let screen = pane.visible_screen();
        screen.contains("touch two.txt") && screen.contains("[y] allow once")
    });
    pane.keys(&["C-c"]);
    pane.wait_for("the abort", "✗ bash: not run (you aborted)");
    pane.wait_for("idle", "○ mock-openai/m1");
    // The draft is still in the editor, untouched.
    pane.wait_for("the draft", "› draft text");
    assert!(!s.work.join("one.txt").exists() && !s.work.join("two.txt").exists());
    assert!(server.requests()[1].body_text().contains("not now"));
    assert_eq!(server.requests().len(), 2, "the run stopped at the abort");
}

/// Steering and follow-up messages wait in a visible queue (they overwrote each
/// other in the footer) and Alt+Up takes them back to the editor; a notice has
/// its own line above the editor, whole even in a narrow window.
#[test]
fn the_queue_and_the_notice_line() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(&format!(
        r#"{{"name":"q","steps":[{WAIT_FOR_RELEASE},{{"reply":{{"text":"second"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    pane.send("start", "● bash while");
    pane.type_text("steer me");
    pane.keys(&["Enter"]);
    pane.type_text("follow me");
    pane.keys(&["M-Enter"]);
    pane.wait_until("both queued messages shown", || {
        let screen = pane.visible_screen();
        screen.contains("⧗ steering queued: steer me")
            && screen.contains("⧗ follow-up queued: follow me")
    });
    // Alt+Up takes them back into the editor, unsent.
    pane.keys(&["M-Up"]);
    pane.wait_until("the queue back in the editor", || {
        let screen = pane.visible_screen();
        screen.contains("› steer me")
            && screen.contains("  follow me")
            && !screen.contains("queued:")
    });
    pane.keys(&["C-c"]);
    pane.send("steer again", "⧗ steering queued: steer again");
    std::fs::write(s.work.join("release"), "").unwrap();
    pane.wait_for("the last answer", "second");
    let sent = server.requests()[1].body_text();
    assert!(
        sent.contains("steer again") && !sent.contains("follow me"),
        "{sent}"
    );
    pane.wait_until("the queue emptied", || {
        let screen = pane.visible_screen();
        screen.contains("○ mock-openai/m1") && !screen.contains("queued:")
    });
    pane.resize(30, 40);
    // At 30 columns the model shows as its id, the cost stays.
    pane.wait_until("a redraw at 30 columns", || {
        pane.visible_screen()
            .lines()
            .any(|l| l.starts_with("○ m1 · ") && l.contains('$'))
    });
    pane.keys(&["C-c"]);
    // The notice and the editor below it (one frame, but a capture can fall
    // inside its drawing).
    pane.wait_for_screen("the notice above the editor", |screen| {
        let rows: Vec<&str> = screen.lines().collect();
        rows.iter()
            .rposition(|r| r.contains("press Ctrl+C again to quit"))
            .is_some_and(|notice| rows.get(notice + 1).is_some_and(|r| r.starts_with('›')))
    });
}

/// Thinking is marked without colors (NO_COLOR is set in these tests) and
/// Ctrl+T folds and shows it again, as its hint says; the footer's totals count
/// the whole session (they dropped after /tree) and the context use has a
/// decimal.
#[test]
fn thinking_toggles_and_the_footer_counts_the_session() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"k","steps":[
      {"reply":{"thinking":"a deep thought here","text":"answer one","inputTokens":1000,"outputTokens":10}},
      {"reply":{"text":"answer two","inputTokens":2000,"outputTokens":10}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::create_dir_all(s.work.join(".git")).unwrap();
    std::fs::write(s.work.join(".git/HEAD"), "ref: refs/heads/topic-branch\n").unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    // The branch and the permission mode.
    pane.wait_for_all("the footer", &["⎇ topic-branch", " · default · "]);
    let screen = pane.send("think", "answer one");
    assert!(screen.contains("┊ a deep thought here"), "{screen}");
    pane.keys(&["C-t"]);
    pane.wait_until("thinking folded", || {
        let screen = pane.visible_screen();
        screen.contains("∴ thought for 19 characters (Ctrl+T shows thinking)")
            && !screen.contains("a deep thought")
    });
    pane.keys(&["C-t"]);
    pane.wait_for("thinking shown again", "┊ a deep thought here");
    pane.send("more", "answer two");
    pane.wait_for_visible("the totals", &["↑3.0k ↓20", "ctx 2.0% of 100.0k"]);
    pane.send("/tree 2", "continuing from that entry");
    pane.wait_for("the totals kept", "↑3.0k ↓20");
}

/// The editor: a family emoji is one Left press (it took five), Shift+Enter
/// makes a new line once tmux passes modified keys (`extended-keys on`: focus
/// asks for modifyOtherKeys), Ctrl+W cuts and Ctrl+Y pastes back, Ctrl+_ undoes,
/// Ctrl+Shift+Z and Alt+Z redo.
#[test]
fn the_editor_moves_by_cluster_and_has_a_kill_ring() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let pane = Pane::start(&s, &[]);
    pane.extended_keys();
    pane.type_text("ab👨‍👩‍👧");
    pane.keys(&["Left"]);
    pane.type_text("x");
    pane.wait_for("x before the emoji", "› abx👨‍👩‍👧");
    pane.keys(&["S-Enter"]);
    pane.type_text("second line");
    pane.wait_for("the second line", "  second line👨‍👩‍👧");
    pane.keys(&["C-w"]);
    pane.wait_until("the word cut", || {
        let screen = pane.visible_screen();
        screen.contains("  second 👨‍👩‍👧") || screen.contains("  second👨‍👩‍👧")
    });
    pane.keys(&["End", "C-y"]);
    pane.wait_for("the word pasted at the end", "👨‍👩‍👧line");
    pane.keys(&["C-_"]);
    pane.wait_until("the paste undone", || {
        !pane.visible_screen().contains("👨‍👩‍👧line")
    });
    // Redo: Ctrl+Shift+Z (told from Ctrl+Z by modifyOtherKeys), then Alt+Z.
    pane.keys(&["C-S-z"]);
    pane.wait_for("the paste redone", "👨‍👩‍👧line");
    pane.keys(&["C-_"]);
    pane.wait_until("the paste undone again", || {
        !pane.visible_screen().contains("👨‍👩‍👧line")
    });
    pane.keys(&["M-z"]);
    pane.wait_for("the paste redone with Alt+Z", "👨‍👩‍👧line");
    pane.keys(&["C-c"]);
    pane.wait_until("the editor cleared", || {
        !pane.visible_screen().contains("second")
    });
    pane.send("/quit", "FOCUS-EXITED-0");
}

/// Markdown in the real binary: a table laid out with column widths, a link as
/// `text (url)` (tmux: no OSC 8), a block quote, a rule, a list wrapped on what
/// shows, code cut rather than wrapped.
#[test]
fn markdown_tables_links_quotes_and_rules() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let answer = [
        "# Report",
        "| file | lines |",
        "|---|---:|",
        "| main.rs | 120 |",
        "| **lib.rs** | 8 |",
        "",
        "See [the guide](https://example.com/guide) and *mind* this:",
        "> quoted advice",
        "---",
        "```rust",
        "fn main() {}",
        "```",
        "done-marker",
    ]
    .join("\\n");
    let server = mock(&format!(
        r#"{{"name":"m","steps":[{{"reply":{{"text":"{answer}","chunkDelayMs":5}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("format it", "done-marker");
    // The rows of the finished answer: streamed text may show before its
    // blocks are drawn, so wait for all of them.
    let rows = [
        "file    │ lines",
        "────────┼──────",
        "main.rs │ 120",
        "lib.rs  │ 8",
        "See the guide (https://example.com/guide) and mind this:",
        "│ quoted advice",
        "┌─ rust",
        "│ fn main() {}",
    ];
    let screen = pane.wait_for_screen("the answer's Markdown drawn", |screen| {
        rows.iter()
            .all(|row| screen.lines().any(|l| l.trim_end() == *row))
            && screen.contains("────────────")
    });
    assert!(!screen.contains("|---|"), "{screen}");
}

/// A retry wait shows on the notice line with a spinner and "Esc cancels"; Esc
/// cancels it (the run ends, no second request) and no stale notice stays.
#[test]
fn a_retry_wait_is_shown_and_esc_cancels_it() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"overloaded","steps":[
      {"error":{"status":529,"body":"{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}},
      {"reply":{"text":"made it"}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"retry":{"maxRetries":2,"baseDelayMs":20000}}"#,
    )
    .unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("go", "(attempt 2/3)");
    // The notice, with its hint, right above the editor.
    pane.wait_for_screen("the retry notice above the editor", |screen| {
        let rows: Vec<&str> = screen.lines().collect();
        rows.iter()
            .rposition(|r| r.contains("(attempt 2/3)"))
            .is_some_and(|notice| {
                rows[notice].contains("Esc cancels")
                    && rows.get(notice + 1).is_some_and(|r| r.starts_with('›'))
            })
    });
    pane.keys(&["Escape"]);
    pane.wait_until("the run ended without a stale notice", || {
        let screen = pane.visible_screen();
        screen.contains("○ mock-openai/m1")
            && !screen.contains("retrying")
            && !screen.contains("aborting")
    });
    assert_eq!(server.requests().len(), 1);
}

/// Ctrl+G opens the draft in `$EDITOR` with the terminal to itself (focus
/// reads no key meanwhile: the editor gets every one), and the edited text
/// comes back into the editor.
#[test]
fn ctrl_g_edits_the_draft_in_the_external_editor() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let script = s.root.join("edit.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'EDITOR-READY\\n'\nread line\nprintf '%s + %s' \"$(cat \"$1\")\" \"$line\" > \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let command = format!(
        "unset VISUAL; export EDITOR='{}'; {}; echo FOCUS-EXITED-$?; sleep 30",
        script.display(),
        Pane::focus_command(&s, &[])
    );
    let pane = Pane::launch(&s, "g", &command);
    pane.wait_for("the prompt", "›");
    pane.type_text("draft");
    pane.wait_for("the draft", "› draft");
    pane.keys(&["C-g"]);
    pane.wait_for("the external editor", "EDITOR-READY");
    pane.send("from the editor", "› draft + from the editor");
    pane.keys(&["C-c"]);
    pane.send("/quit", "FOCUS-EXITED-0");
}

/// A command longer than the dialog is printed whole in the conversation
/// before it is approved (nothing to approve is hidden), and the dialog says so.
#[test]
fn a_long_command_to_approve_is_shown_whole() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let lines: Vec<String> = (1..=12).map(|i| format!("touch file-{i:02}.txt")).collect();
    let command = lines.join("\\n");
    let server = mock(&format!(
        r#"{{"name":"l","steps":[
      {{"reply":{{"toolCalls":[{{"name":"bash","arguments":{{"command":"{command}"}}}}]}}}},
      {{"reply":{{"text":"done"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("make twelve");
    pane.keys(&["Enter"]);
    let mut expected: Vec<&str> = lines.iter().map(String::as_str).collect();
    expected.push("more lines: the whole command is printed above");
    pane.wait_for_all("the whole command", &expected);
    // Keys count as answers once the dialog shows them.
    pane.wait_for("the dialog's keys", "[y] allow once");
    pane.keys(&["n"]);
    pane.send("no", "done");
    assert!(!s.work.join("file-01.txt").exists());
}

/// Closing the terminal window (SIGHUP) or SIGTERM while a tool runs: focus
/// aborts the prompt, kills the tool's process group, answers the call in the
/// session and exits with 128 + the signal's number.
#[test]
fn hangup_while_a_tool_runs_leaves_nothing_behind() {
    if !tmux_available() {
        return;
    }
    for (signal, number) in [("HUP", 1), ("TERM", 15)] {
        let s = Sandbox::new();
        let marker = format!("tui-hangup-marker-{}-{signal}", std::process::id());
        let server = mock(&format!(
            r#"{{"name":"h","steps":[
          {{"reply":{{"toolCalls":[{{"name":"bash","arguments":{{"command":"exec -a {marker} sleep 60"}}}}]}}}},
          {{"reply":{{"text":"not reached"}}}}]}}"#
        ));
        s.write_models(&server.url());
        let pane = Pane::start(
            &s,
            &["--model", "mock-openai/m1", "--permission-mode", "auto"],
        );
        let pid = pane.focus_pid();
        pane.type_text("wait for it");
        pane.keys(&["Enter"]);
        pane.wait_until("the tool running", || process_running(&marker));
        assert!(Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .unwrap()
            .success());
        pane.wait_for("focus exiting", &format!("FOCUS-EXITED-{}", 128 + number));
        pane.wait_until("the tool's process ending", || !process_running(&marker));
        let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
        assert!(
            session.contains(r#""role":"toolResult""#),
            "SIG{signal}: the call was answered in the session: {session}"
        );
    }
}

/// The automatic compaction after a run (the context past the threshold) runs in
/// the background too: the screen lives, Esc cancels it, and the history is kept.
#[test]
fn the_automatic_compaction_runs_in_the_background_and_esc_cancels_it() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    // The answer reports 90,000 tokens of the 100,000-token window: past the
    // threshold.
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let server = mock(
        r##"{"name":"a","steps":[
      {"reply":{"text":"the only answer","inputTokens":90000}},
      {"reply":{"text":"a slow summary that will be cancelled before it ends","chunkDelayMs":3000}}]}"##,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("hello there", "the only answer");
    pane.wait_for(
        "the background compaction",
        "compacting the history… · Esc cancels",
    );
    pane.type_text("still typing");
    pane.wait_for("keys taken while compacting", "› still typing");
    pane.wait_until("the summary request", || server.requests().len() >= 2);
    pane.keys(&["Escape"]);
    pane.wait_for(
        "the cancellation",
        "compaction cancelled; the history was kept in full",
    );
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    assert!(!session.contains(r#""type":"compaction""#), "{session}");
}

/// A compaction inside a run shows as it happens: "compacting…" with Esc to
/// cancel while the summary streams, then the marked summary block and the
/// answer the run goes on to.
#[test]
fn a_compaction_inside_a_run_shows_its_notice_and_summary_then_the_answer() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"reserveTokens":1000,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let server = mock_with_summarizer(
        r#"{"name":"c","steps":[
      {"reply":{"text":"an early answer"}},
      {"reply":{"text":"Looking.","inputTokens":99500,"toolCalls":[{"name":"ls","arguments":{"path":"."}}]}},
      {"reply":{"text":"the answer after compacting"}}]}"#,
        r#"{"name":"s","steps":[{"reply":{"text":"Goal: SUMMARY-ON-SCREEN, said slowly, word by word, so that the notice stays on the screen for a good while","chunkDelayMs":200}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-anthropic/m1"]);
    pane.send("first", "an early answer");
    pane.send("go", "compacting the history (the context is nearly full)…");
    pane.wait_for("the summary block", "SUMMARY-ON-SCREEN");
    let screen = pane.wait_for("the answer", "the answer after compacting");
    assert!(screen.contains("compacted: about"), "{screen}");
}
