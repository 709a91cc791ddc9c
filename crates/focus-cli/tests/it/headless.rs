//! Headless runs end to end (issue 30): exit codes by outcome, the result
//! record (`--output-format json`, JSON mode's last line), `--denials ok`,
//! `--allow`, `--max-turns` and `--output-last-message`, against the mock model.

use crate::support::*;

/// The model asks to run a command that needs approval, then answers anyway.
const REFUSED_THEN_ANSWER: &str = r#"{"name":"refused","steps":[
  {"reply":{"text":"Creating the file.","toolCalls":[{"name":"bash","arguments":{"command":"touch made-by-model"}}]}},
  {"reply":{"text":"I could not create it."}}
]}"#;

/// The one JSON line print mode writes with `--output-format json`.
fn record(out: &std::process::Output) -> focus_core::json::Value {
    let lines = json_lines(&stdout(out));
    assert_eq!(lines.len(), 1, "{}", stdout(out));
    lines.into_iter().next().unwrap()
}

#[test]
fn a_refused_call_in_print_mode_exits_3_and_the_record_names_it() {
    let s = Sandbox::new();
    let server = mock(REFUSED_THEN_ANSWER);
    s.write_models(&server.url());
    let args = [
        "-p",
        "--model",
        "mock-openai/m1",
        "--output-format",
        "json",
        "make it",
    ];
    let out = s.run(&args, "");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let record = record(&out);
    assert_eq!(record["type"].as_str(), Some("result"));
    assert_eq!(record["subtype"].as_str(), Some("refused"));
    assert_eq!(record["is_error"].as_bool(), Some(true));
    assert_eq!(record["exit_code"].as_i64(), Some(3));
    assert_eq!(record["result"].as_str(), Some("I could not create it."));
    assert_eq!(record["num_turns"].as_i64(), Some(2));
    let denied = &record["denied"][0];
    assert_eq!(denied["tool_name"].as_str(), Some("bash"));
    assert_eq!(
        denied["tool_input"]["command"].as_str(),
        Some("touch made-by-model")
    );
    assert!(
        denied["reason"].as_str().unwrap_or("").contains("approval"),
        "{record:?}"
    );
    assert!(!s.work.join("made-by-model").exists());
    // The session file exists and the record names it.
    let id = record["session_id"].as_str().unwrap_or("");
    assert!(!id.is_empty());
    assert!(
        s.session_files()
            .iter()
            .any(|f| f.to_string_lossy().contains(id)),
        "{id}"
    );
}

#[test]
fn in_text_print_mode_the_refusal_is_named_on_stderr() {
    let s = Sandbox::new();
    let server = mock(REFUSED_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-openai/m1", "make it"], "");
    assert_eq!(out.status.code(), Some(3));
    assert!(stdout(&out).contains("I could not create it."));
    assert!(
        stderr(&out).contains("1 tool call(s) refused (first: bash touch made-by-model)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn denials_ok_forgives_the_refusal() {
    let s = Sandbox::new();
    let server = mock(REFUSED_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--denials",
            "ok",
            "make it",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_allow_rule_on_the_command_line_lets_the_call_run() {
    let s = Sandbox::new();
    let server = mock(REFUSED_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--allow",
            "bash(touch:*)",
            "--output-format",
            "json",
            "make it",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.work.join("made-by-model").exists());
    let record = record(&out);
    assert_eq!(record["subtype"].as_str(), Some("success"));
    // The file bash made is in the record, though no `write` named it.
    assert_eq!(
        record["files_changed"].to_json_string(),
        r#"["made-by-model"]"#
    );
    assert_eq!(record["denied"].as_array().map(|a| a.len()), Some(0));
    // A deny rule wins over the allow.
    let s = Sandbox::new();
    let server = mock(REFUSED_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "auto",
            "--deny",
            "bash(touch:*)",
            "make it",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!s.work.join("made-by-model").exists());
}

#[test]
fn json_mode_ends_with_the_record_and_the_turn_limit_has_its_code() {
    let s = Sandbox::new();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let answer = s.work.join("answer.txt");
    let out = s.run(
        &[
            "--mode",
            "json",
            "--model",
            "mock-anthropic/m1",
            "--output-last-message",
            answer.to_str().unwrap(),
            "Run echo",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let header_id = lines[0]["id"].as_str().unwrap_or("").to_string();
    let last = lines.last().unwrap();
    assert_eq!(last["type"].as_str(), Some("result"));
    assert_eq!(last["subtype"].as_str(), Some("success"));
    assert_eq!(last["num_turns"].as_i64(), Some(2));
    assert_eq!(last["session_id"].as_str(), Some(header_id.as_str()));
    assert!(last["usage"]["input"].as_i64().is_some(), "{last:?}");
    assert_eq!(
        std::fs::read_to_string(&answer).unwrap(),
        "The command printed hi-from-tool. Done."
    );

    let s = Sandbox::new();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "--mode",
            "json",
            "--model",
            "mock-anthropic/m1",
            "--max-turns",
            "1",
            "Run echo",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let last = lines.last().unwrap();
    assert_eq!(last["subtype"].as_str(), Some("error_max_turns"));
    assert_eq!(last["num_turns"].as_i64(), Some(1));
}

#[test]
fn the_deadline_stops_a_trickling_provider_and_the_record_says_why() {
    use focus_testkit::server::{ScriptedResponse, TestServer};
    use std::time::{Duration, Instant};
    let s = Sandbox::new();
    let mut response = ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunked()
        .chunk("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n");
    // A keepalive every 200 ms for a minute, and never an answer.
    for _ in 0..300 {
        response = response.chunk_after(Duration::from_millis(200), ": keepalive\n\n");
    }
    let server = TestServer::repeating(response);
    s.write_models(&server.url());
    let started = Instant::now();
    let args = [
        "-p",
        "--model",
        "mock-anthropic/m1",
        "--deadline",
        "1s",
        "--output-format",
        "json",
        "hello",
    ];
    let out = s.run(&args, "");
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        stderr(&out)
            .contains("the deadline (--deadline, deadlineSeconds) passed; the run was stopped"),
        "{}",
        stderr(&out)
    );
    let record = record(&out);
    assert_eq!(record["subtype"].as_str(), Some("error_deadline"));
    assert_eq!(record["exit_code"].as_i64(), Some(6));
    // The session stays valid: every line of it is JSON.
    for file in s.session_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        json_lines(&text);
    }
    // JSON mode holds it too: a warning, then the record last.
    let args = [
        "--mode",
        "json",
        "--model",
        "mock-anthropic/m1",
        "--deadline",
        "500ms",
        "hello",
    ];
    let out = s.run(&args, "");
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert!(lines.iter().any(|l| l["type"].as_str() == Some("warning")
        && l["message"].as_str().unwrap_or("").contains("deadline")));
    let last = lines.last().unwrap();
    assert_eq!(last["subtype"].as_str(), Some("error_deadline"));
}

#[test]
fn the_bounds_are_also_settings_and_the_flags_win() {
    let s = Sandbox::new();
    std::fs::write(s.home.join("settings.json"), r#"{"maxTurns":1}"#).unwrap();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-openai/m1", "Run echo"], "");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--max-turns",
            "5",
            "Run echo",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A scenario whose one answer streams as `deltas` text deltas (the mock
/// model sends three words per delta), with quotes and a tab to escape; and
/// the answer's text.
fn many_deltas(deltas: usize) -> (String, String) {
    let text: String = (0..deltas * 3).map(|i| format!("w\"{i}\t ")).collect();
    let scenario = format!(
        r#"{{"name":"many_deltas","steps":[{{"reply":{{"text":{}}}}}]}}"#,
        focus_core::json::Value::from(text.as_str()).to_json_string()
    );
    (scenario, text)
}

#[test]
fn deltas_events_grow_with_the_answer_within_the_byte_bound() {
    let s = Sandbox::new();
    let (scenario, text) = many_deltas(2_000);
    let server = mock(&scenario);
    s.write_models(&server.url());
    let run = |extra: &[&str]| {
        let mut args = vec!["--mode", "json", "--model", "mock-openai/m1"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-p", "go"]);
        let out = s.run(&args, "");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    };
    let out = run(&["--events", "deltas"]);
    let written = out.stdout.len();
    let lines = json_lines(&stdout(&out));
    // The answer's JSON-escaped size (without the quotes).
    let escaped = focus_core::json::Value::from(text.as_str())
        .to_json_string()
        .len()
        - 2;
    let bound = 2 * escaped + 200 * lines.len();
    assert!(
        written <= bound,
        "{written} bytes for a {escaped}-byte answer in {} events (bound {bound})",
        lines.len()
    );
    // Each delta once, and together they are the answer.
    let deltas: Vec<&str> = lines
        .iter()
        .filter(|l| l["assistantMessageEvent"]["type"].as_str() == Some("text_delta"))
        .map(|l| l["assistantMessageEvent"]["delta"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(deltas.len(), 2_000);
    assert_eq!(deltas.concat(), text);
    assert!(
        lines
            .iter()
            .all(|l| l.get("partial").is_none()
                && l["assistantMessageEvent"].get("partial").is_none())
    );
    // The whole message once, at its end; the record last.
    let ends: Vec<_> = lines
        .iter()
        .filter(|l| l["type"].as_str() == Some("message_end"))
        .filter(|l| l["message"]["role"].as_str() == Some("assistant"))
        .collect();
    assert_eq!(ends.len(), 1);
    assert_eq!(
        ends[0]["message"]["content"][0]["text"].as_str(),
        Some(text.as_str())
    );
    let last = lines.last().unwrap();
    assert_eq!(last["type"].as_str(), Some("result"));
    assert_eq!(last["result"].as_str(), Some(text.as_str()));
    // The bound means something: pi's shape, the default, is far above it.
    let pi = run(&[]);
    assert!(pi.stdout.len() > 10 * bound, "{} bytes", pi.stdout.len());
}

/// A tool call, then an answer.
const CALL_THEN_ANSWER: &str = r#"{"name":"call_then_answer","steps":[
  {"reply":{"text":"Looking.","toolCalls":[{"name":"ls","arguments":{"path":"."}}]}},
  {"reply":{"text":"All done."}}
]}"#;

/// models.json with one model priced at a dollar per input or output token.
fn write_priced_models(s: &Sandbox, url: &str) {
    std::fs::write(
        s.home.join("models.json"),
        format!(
            r#"{{"providers":{{"priced":{{"baseUrl":"{url}/v1","api":"openai-completions","apiKey":"test-key","models":[{{"id":"dear","contextWindow":100000,"maxTokens":4096,"cost":{{"input":1000000,"output":1000000,"cacheRead":0,"cacheWrite":0}}}}]}}}}}}"#
        ),
    )
    .unwrap();
}

#[test]
fn the_cost_budget_stops_before_the_next_model_call_with_exit_5() {
    let s = Sandbox::new();
    // A fresh mock model per run (its steps answer requests in order).
    let run = |extra: &[&str]| {
        let server = mock(CALL_THEN_ANSWER);
        write_priced_models(&s, &server.url());
        let base = ["-p", "--model", "priced/dear", "--output-format", "json"];
        s.run(&[&base[..], extra, &["list"]].concat(), "")
    };
    // Without a budget the run finishes.
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(record(&out)["total_cost_usd"].as_f64().unwrap_or(0.0) >= 1.0);
    // With one, the first answer spends it: the tool call is answered and no
    // second model call starts.
    let out = run(&["--max-cost", "1"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let record = record(&out);
    assert_eq!(record["subtype"].as_str(), Some("error_max_budget_usd"));
    assert_eq!(record["exit_code"].as_i64(), Some(5));
    assert_eq!(record["num_turns"].as_i64(), Some(1));
    // The setting does the same.
    std::fs::write(s.home.join("settings.json"), r#"{"maxCostUsd":1}"#).unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
}

/// The output schema of the tests below: an object with a whole number `n`.
const N_SCHEMA: &str =
    r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#;

/// Runs `-p --output-format json --output-schema` against `scenario`.
fn run_with_schema(scenario: &str) -> (std::process::Output, focus_core::json::Value) {
    let s = Sandbox::new();
    let server = mock(scenario);
    s.write_models(&server.url());
    let schema = s.work.join("schema.json");
    std::fs::write(&schema, N_SCHEMA).unwrap();
    let schema = schema.to_string_lossy().into_owned();
    let args = [
        "-p",
        "--model",
        "mock-openai/m1",
        "--output-format",
        "json",
        "--output-schema",
        &schema,
        "count",
    ];
    let out = s.run(&args, "");
    let record = record(&out);
    (out, record)
}

#[test]
fn an_output_schema_is_asked_for_again_until_the_answer_validates() {
    let (out, record) = run_with_schema(
        r#"{"name":"schema_third_time","steps":[
          {"reply":{"text":"three, I think"}},
          {"reply":{"text":"{\"n\":\"three\"}"}},
          {"reply":{"text":"{\"n\":3}"}}
        ]}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(record["subtype"].as_str(), Some("success"));
    assert_eq!(record["structured_output"]["n"].as_i64(), Some(3));
    assert_eq!(record["result"].as_str(), Some("{\"n\":3}"));
    assert_eq!(record["num_turns"].as_i64(), Some(3));
}

#[test]
fn three_invalid_answers_end_with_the_schema_exit_code() {
    let (out, record) =
        run_with_schema(r#"{"name":"schema_never","steps":[{"reply":{"text":"{\"n\":1.5}"}}]}"#);
    assert_eq!(out.status.code(), Some(8), "{}", stderr(&out));
    assert_eq!(record["subtype"].as_str(), Some("error_output_schema"));
    assert!(record.get("structured_output").is_none());
    // The first answer and the default two retries.
    assert_eq!(record["num_turns"].as_i64(), Some(3));
}

/// A file written, a tracked file changed by bash, then an answer.
const WRITE_AND_APPEND: &str = r#"{"name":"write_and_append","steps":[
  {"reply":{"text":"Writing.","toolCalls":[{"name":"write","arguments":{"path":"src/new.txt","content":"fresh\n"}}]}},
  {"reply":{"text":"Appending.","toolCalls":[{"name":"bash","arguments":{"command":"printf 'by the run\\n' >> tracked.txt"}}]}},
  {"reply":{"text":"Done."}}
]}"#;

/// Runs `script` with sh in `dir` (git with no global or system configuration).
fn sh_in(dir: &std::path::Path, script: &str) {
    let ok = std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "{script}");
}

#[test]
fn output_diff_writes_the_runs_changes_against_the_starting_tree() {
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_err()
    {
        focus_testkit::skipped("output_diff: git is not installed");
        return;
    }
    let s = Sandbox::new();
    sh_in(
        &s.work,
        "git init -q && printf 'start\\n' > tracked.txt && mkdir src \
         && git add -A && git -c user.email=t@t -c user.name=t commit -qm start \
         && printf 'before the run\\n' > untracked.txt && printf 'staged\\n' >> tracked.txt && git add tracked.txt",
    );
    let index_before = std::fs::read(s.work.join(".git/index")).unwrap();
    let server = mock(WRITE_AND_APPEND);
    s.write_models(&server.url());
    let diff = s.root.join("run.diff");
    let args = [
        "-p",
        "--model",
        "mock-openai/m1",
        "--permission-mode",
        "auto",
        "--output-format",
        "json",
        "--output-diff",
        diff.to_str().unwrap(),
        "change things",
    ];
    let out = s.run(&args, "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let patch = std::fs::read_to_string(&diff).unwrap();
    assert!(
        patch.contains("diff --git a/src/new.txt b/src/new.txt"),
        "{patch}"
    );
    assert!(patch.contains("+fresh"), "{patch}");
    assert!(patch.contains("+by the run"), "{patch}");
    // What was there before the run (staged or untracked) is the start, not the run's.
    assert!(
        !patch.contains("+staged") && !patch.contains("untracked.txt"),
        "{patch}"
    );
    assert_eq!(
        std::fs::read(s.work.join(".git/index")).unwrap(),
        index_before
    );
    // The record lists both files: the one `write` named and the one bash changed.
    let files = record(&out)["files_changed"].to_json_string();
    assert_eq!(files, r#"["src/new.txt","tracked.txt"]"#);

    // Outside a repository nothing runs: a configuration error.
    let s = Sandbox::new();
    let out = s.run(&["-p", "--output-diff", "x.diff", "hi"], "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--output-diff: ")
            && stderr(&out).contains("not in a git repository"),
        "{}",
        stderr(&out)
    );
}
