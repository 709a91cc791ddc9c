//! Hostile input from outside the process: a damaged or unwritable FOCUS_HOME,
//! attachments and session paths that are not files, RPC commands whose fields
//! have every wrong type. The user is told what was wrong and where, and can
//! still work.

use crate::support::{json_lines, mock, stderr, stdout, Sandbox};
use focus_core::json::Value;
use focus_core::json_object;

#[test]
fn damaged_session_lines_are_named_on_stderr() {
    // The loader's notes (corrupt line skipped, torn tail) were collected and
    // never shown, so a user could not tell their session had lost entries.
    let s = Sandbox::new();
    let file = s.root.join("broken.jsonl");
    std::fs::write(&file, "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}\nnot json \u{1b}[2J at all\n{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"mess").unwrap();
    let out = s.run(
        &[
            "-p",
            "--no-tools",
            "--session",
            file.to_str().unwrap(),
            "next",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{}: 1 damaged line skipped (line 2); the session file was left untouched",
            file.display()
        )),
        "{err}"
    );
    assert!(err.contains("line 2: skipped corrupt line"), "{err}");
    assert!(err.contains("line 4: incomplete last line"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn an_unwritable_session_directory_warns_and_still_answers() {
    // Creating the session file failed and focus exited 1 before doing anything.
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("sessions"),
        "a file where the directory should be",
    )
    .unwrap();
    let out = s.run(&["-p", "--no-tools", "hello"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("this conversation will not be saved"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("demo"), "{}", stdout(&out));
    assert!(s.home.join("sessions").is_file());
}

#[test]
fn attaching_a_device_or_fifo_is_refused_at_once() {
    // `@/dev/zero` was read until memory ran out; a FIFO blocked forever.
    let s = Sandbox::new();
    let fifo = s.work.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|st| st.success());
    let mut targets = vec!["@/dev/zero".to_string()];
    if made {
        targets.push("@pipe".to_string());
    }
    for target in targets {
        let out = s.run(&["-p", "--no-tools", "--no-session", &target, "hi"], "");
        assert!(!out.status.success(), "{target}");
        assert!(
            stderr(&out).contains("not a regular file"),
            "{target}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_session_path_that_is_not_a_file_is_refused_at_once() {
    // `--session /dev/zero` was read until memory ran out.
    let s = Sandbox::new();
    for target in ["/dev/zero", s.work.to_str().unwrap()] {
        let out = s.run(&["-p", "--no-tools", "--session", target, "hi"], "");
        assert_eq!(out.status.code(), Some(1), "{target}");
        assert!(
            stderr(&out).contains("is not a session file"),
            "{target}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn rpc_commands_with_wrongly_typed_fields_each_get_an_answer() {
    // Well-formed JSON, known commands, every field of the wrong type or absurd.
    // Every command the server knows, and one it does not.
    let mut commands = focus_cli::modes::rpc::COMMANDS.to_vec();
    commands.push("no_such_command");
    let values = [
        Value::Null,
        Value::from(true),
        Value::from(-1i64),
        Value::from(u64::MAX),
        Value::from(1e308),
        Value::from(""),
        Value::from("x".repeat(3000)),
        Value::from("\u{1b}[2J\u{0}"),
        Value::from("/dev/zero"),
        Value::Array(vec![]),
        json_object! { "a" => Value::Array(vec![Value::Null]) },
    ];
    let keys = [
        "message",
        "images",
        "provider",
        "modelId",
        "level",
        "sessionPath",
        "entryId",
        "name",
        "callId",
        "answer",
        "id",
    ];
    let mut seed = 0x5eed_0006u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut input = String::new();
    for _ in 0..300 {
        let mut command = json_object! { "type" => commands[next(commands.len())] };
        for _ in 0..next(4) {
            if let Value::Object(o) = &mut command {
                o.insert(keys[next(keys.len())], values[next(values.len())].clone());
            }
        }
        input.push_str(&command.to_json_string());
        input.push('\n');
    }
    input.push_str("{\"id\":\"last\",\"type\":\"get_state\"}\n");
    let s = Sandbox::new();
    let out = s.run(&["--mode", "rpc", "--no-tools"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let responses: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"].as_str() == Some("response"))
        .collect();
    assert_eq!(responses.len(), 301);
    // Commands that start work answer when it is done, so the answers may
    // come in another order than the commands (RPC clients match them by
    // id): the last command's answer is among them, not necessarily last.
    let last = responses
        .iter()
        .position(|r| r["id"].as_str() == Some("last"));
    assert!(last.is_some(), "no answer to the last command");
    let after: Vec<String> = responses[last.unwrap_or(0) + 1..]
        .iter()
        .map(|r| r.to_json_string())
        .collect();
    assert!(after.is_empty(), "answered after the last: {after:?}");
    assert!(!stdout(&out).contains('\u{1b}'));
}

#[test]
fn random_terminal_bytes_and_model_text_never_panic_the_ui_pieces() {
    // Keystrokes are bytes from outside (a paste, a terminal's odd escape
    // sequences); answers are model text. The decoder, the line editor, the
    // Markdown renderer and the word wrapper must take anything.
    use focus_cli::terminal::style::Style;
    use focus_tui::editor::Editor;
    use focus_tui::keys::KeyDecoder;
    use focus_tui::markdown::{inline, Markdown};
    use focus_tui::rows::wrap_words;
    let pieces: [&[u8]; 20] = [
        b"\x1b",
        b"[",
        b"O",
        b"1;5",
        b"~",
        b"A",
        b"D",
        b"\x1b[200~",
        b"\x1b[201~",
        b"\r",
        b"\n",
        b"\x7f",
        b"\x08",
        b"\x03",
        b"\t",
        b"a",
        "é".as_bytes(),
        b"\xff",
        b"\xe6\x97",
        b"**`",
    ];
    let mut seed = 0x5eed_0007u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..2000 {
        let bytes: Vec<u8> = (0..next(30))
            .flat_map(|_| pieces[next(pieces.len())].iter().copied())
            .collect();
        let mut decoder = KeyDecoder::new();
        let mut editor = Editor::new(vec!["old".into(), String::new()]);
        for chunk in bytes.chunks(1 + next(5)) {
            for key in decoder.feed(chunk) {
                let _ = editor.handle(&key);
                assert!(editor.cursor() <= editor.text().chars().count());
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut markdown = Markdown::new();
        for line in text.split('\n') {
            for style in [Style::PLAIN, Style::COLOR] {
                let _ = markdown.line(line, style);
                let _ = inline(line, style);
            }
            for width in [0, 1, 2, 7, 80] {
                let pieces = wrap_words(line, width);
                let words: String = line.split_whitespace().collect();
                let kept: String = pieces.iter().flat_map(|p| p.split_whitespace()).collect();
                assert_eq!(kept, words, "wrapping lost text of {line:?}");
            }
        }
    }
}

#[test]
fn absurd_token_counts_in_a_session_file_do_not_overflow_the_stats() {
    // The sums overflowed: a panic in a debug build, nonsense in a release one.
    let s = Sandbox::new();
    let file = s.root.join("big.jsonl");
    let max = u64::MAX;
    let assistant = format!(
        r#"{{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:01Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"api":"openai-completions","provider":"x","model":"y","usage":{{"input":{max},"output":{max},"cacheRead":{max},"cacheWrite":{max},"totalTokens":{max},"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":1}}}}"#
    );
    std::fs::write(
        &file,
        format!("{{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}}\n{{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n{assistant}\n"),
    )
    .unwrap();
    let out = s.run(
        &[
            "--mode",
            "rpc",
            "--no-tools",
            "--session",
            file.to_str().unwrap(),
        ],
        "{\"id\":\"s\",\"type\":\"get_session_stats\"}\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let stats = lines
        .iter()
        .find(|l| l["id"].as_str() == Some("s"))
        .expect("a response to get_session_stats");
    assert_eq!(
        stats["success"].as_bool(),
        Some(true),
        "{}",
        stats.to_json_string()
    );
    assert_eq!(stats["data"]["tokens"]["total"].as_u64(), Some(u64::MAX));
}

#[test]
fn random_command_lines_parse_or_give_one_line_errors() {
    // In process, so thousands of command lines cost little: every flag, flag
    // spellings with `=`, near-misses, odd values and Unicode, in any order.
    let words = [
        "-p",
        "--print",
        "--mode",
        "--mode=json",
        "text",
        "json",
        "rpc",
        "--provider",
        "--model",
        "--model=a/b:high",
        "--thinking",
        "--thinking=",
        "xhigh",
        "-c",
        "--continue",
        "-r",
        "--resume",
        "--session",
        "--no-session",
        "--session-dir",
        "--tools",
        "read,,bash",
        "--no-tools",
        "--system-prompt",
        "--append-system-prompt",
        "--list-models",
        "--export",
        "--permission-mode",
        "plan",
        "--offline",
        "--version",
        "-v",
        "--help",
        "-h",
        "--",
        "-",
        "-pc",
        "--modle",
        "---",
        "--=",
        "@",
        "@x",
        "mcp",
        "add",
        "list",
        "remove",
        "é",
        "\u{1b}[2J",
        "",
        " ",
        "-x",
        "--x=y",
    ];
    let mut seed = 0x5eed_000au64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..5000 {
        let line: Vec<&str> = (0..next(7)).map(|_| words[next(words.len())]).collect();
        if let Err(error) = focus_cli::args::parse(line.iter().copied()) {
            let text = error.to_string();
            assert!(!text.contains('\n'), "{line:?}: {text:?}");
            assert!(!error.0.is_empty(), "{line:?}");
        }
    }
}

#[test]
fn a_hostile_tool_name_is_never_shown_stored_or_sent_back() {
    // Issue 19, item 8: a tool name carrying terminal escapes was printed raw
    // (clearing the screen, setting the title); an invented 100 KB name was
    // echoed back in every later request.
    let long = "n".repeat(100_000);
    let scenario = format!(
        r#"{{"name":"hostile-name","steps":[
  {{"reply":{{"text":"Calling.","toolCalls":[
    {{"name":"\u001b]0;pwned\u0007\u001b[2Jread","arguments":{{"path":"a"}}}},
    {{"name":"{long}","arguments":{{}}}}]}}}},
  {{"reply":{{"text":"Done."}}}}
]}}"#
    );
    let s = Sandbox::new();
    let server = mock(&scenario);
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-anthropic/m1", "go"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let (text, err) = (stdout(&out), stderr(&out));
    // Bounded: on failure the output holds the 100 KB name.
    let shown: String = err.chars().take(400).collect();
    assert!(
        !text.contains('\u{1b}') && !err.contains('\u{1b}'),
        "{shown:?}"
    );
    assert!(
        !err.contains("pwned") && !err.contains(&long[..200]),
        "{shown:?}"
    );
    assert!(err.contains("invalid_tool_name"), "{shown:?}");

    // The call was answered with an error naming only the placeholder, and
    // nothing of either name went back to the model.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let body = requests[1].body_text();
    let shown: String = body.chars().take(400).collect();
    assert!(
        !body.contains("pwned") && !body.contains("\\u001b"),
        "{shown}"
    );
    assert!(
        !body.contains(&long[..200]),
        "the long name is not echoed back"
    );
    assert!(
        body.contains("Tool \\\"invalid_tool_name\\\" not found"),
        "{shown}"
    );

    // And nothing of them was stored.
    for file in s.session_files() {
        let stored = std::fs::read_to_string(&file).unwrap();
        assert!(!stored.contains("pwned") && !stored.contains(&long[..200]));
        assert!(stored.contains("invalid_tool_name"));
    }
}
