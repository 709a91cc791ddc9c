//! Interactive mode at small windows: what must stay readable when room runs
//! out (wide Markdown tables, the footer's numbers).

use crate::interactive::{tmux_available, Pane};
use crate::support::*;

/// A 12-column table with CJK cells at 80x24: too wide for a grid, it shows as
/// `header: value` blocks, and every value is on the screen whole (none cut to
/// `val…`); Ctrl+O shows its Markdown.
#[test]
fn a_wide_table_keeps_every_value_at_80_columns() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let headers: Vec<String> = (1..=12).map(|i| format!("Col{i}")).collect();
    let value = |row: usize, col: usize| {
        if col % 4 == 0 {
            format!("值{row}の{col}")
        } else {
            format!("v{row}x{col}")
        }
    };
    let mut answer = vec![
        format!("| {} |", headers.join(" | ")),
        format!("|{}|", ["---"; 12].join("|")),
    ];
    for row in 1..=2 {
        let cells: Vec<String> = (1..=12).map(|c| value(row, c)).collect();
        answer.push(format!("| {} |", cells.join(" | ")));
    }
    answer.push(String::new());
    answer.push("done-marker".into());
    let answer = answer.join("\\n");
    let server = mock(&format!(
        r#"{{"name":"m","steps":[{{"reply":{{"text":"{answer}","chunkDelayMs":1}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (80, 24));
    pane.send("a table please", "done-marker");
    let screen = pane.visible_screen();
    let table_rows = screen.lines().filter(|l| l.contains("Col"));
    assert!(
        table_rows.clone().all(|l| !l.contains('…')),
        "a value was cut:\n{screen}"
    );
    assert!(table_rows.count() >= 2, "{screen}");
    for row in 1..=2 {
        for col in 1..=12 {
            let pair = format!("Col{col}: {}", value(row, col));
            assert!(screen.contains(&pair), "no {pair:?} on:\n{screen}");
        }
    }
    // Ctrl+O shows the table's Markdown source.
    pane.keys(&["C-o"]);
    pane.wait_for("the table's Markdown", "| Col1 | Col2 | Col3 |");
}

/// At 40 columns the footer keeps the tokens and the cost (items are shortened
/// before any is dropped; the window size is not an item).
#[test]
fn a_40_column_footer_keeps_cost_and_tokens() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[{"reply":{"text":"answered"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (40, 12));
    pane.send("hello", "answered");
    pane.wait_until("a footer with tokens and cost", || {
        pane.visible_screen()
            .lines()
            .any(|l| l.starts_with('○') && l.contains('↑') && l.contains('↓') && l.contains('$'))
    });
    assert!(!pane.visible_screen().contains("40×12"));
}

/// `/hotkeys` at 80 columns is an aligned table: a description too long for
/// its row goes on under itself, not back at column 0.
#[test]
fn hotkeys_wrap_within_their_column() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[]}"#);
    s.write_models(&server.url());
    let pane = Pane::start_sized(&s, &["--model", "mock-openai/m1"], (80, 30));
    let screen = pane.send("/hotkeys", "quit (on an empty input)");
    let rows: Vec<&str> = screen.lines().collect();
    let esc = rows
        .iter()
        .position(|r| r.starts_with("  Esc ") && r.contains("abort the run"))
        .unwrap_or_else(|| panic!("no Esc row:\n{screen}"));
    let column = rows[esc].find("abort the run").unwrap();
    let next = rows[esc + 1];
    let indent = next.len() - next.trim_start().len();
    assert!(
        column > 10 && indent == column && !next.trim().is_empty(),
        "the description goes on at column {indent}, not {column}:\n{screen}"
    );
}

/// A notice (Shift+Tab's `thinking: minimal`) expires at the next command.
#[test]
fn a_notice_expires_at_the_next_command() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.keys(&["BTab"]);
    pane.wait_for("the notice", "thinking: minimal");
    pane.send("/hotkeys", "quit (on an empty input)");
    pane.wait_until("the notice gone", || {
        !pane.visible_screen().contains("thinking: minimal")
    });
}

/// `/settings` lists every setting docs/settings.md names (46, against 8
/// before), each with its value and its source (user, project or default), and
/// checks a typed value before writing anything.
#[test]
fn settings_lists_every_setting_with_its_source_and_checks_values() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[]}"#);
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"retry":{"maxRetries":5}}"#,
    )
    .unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("/settings");
    pane.keys(&["Enter"]);
    pane.wait_for_visible(
        "the settings picker",
        &["defaultProvider = (none)", "default · the model's provider"],
    );
    // Each wait names the whole query too: a row can match a query half
    // typed, and a key sent then would reach a picker still redrawing.
    pane.type_text("maxretries");
    pane.wait_for_visible(
        "a key the user's file sets",
        &["“maxretries”", "retry.maxRetries = 5", "user ·"],
    );
    pane.keys(&["C-u"]);
    pane.type_text("memorymb");
    pane.wait_for_visible(
        "a sandbox limit",
        &["“memorymb”", "sandbox.limits.memoryMb = 8192"],
    );
    pane.keys(&["Escape"]);
    // Typing goes on once the picker is closed (an Esc right before `/` would
    // read as Alt+/).
    pane.wait_until("the picker closed", || {
        let screen = pane.visible_screen();
        !screen.contains("sandbox.limits.memoryMb") && !screen.contains("settings (Enter")
    });
    // A bad value is refused and nothing is written.
    pane.keys(&["C-u"]);
    let before = std::fs::read_to_string(s.home.join("settings.json")).unwrap();
    pane.send(
        "/settings maxTurns lots",
        "maxTurns: expected a whole number above 0, not \"lots\"; nothing saved",
    );
    pane.send("/settings maxCostUsd -2", "maxCostUsd: expected an amount");
    pane.send("/settings hooks [1]", "hooks: expected a JSON object");
    assert_eq!(
        std::fs::read_to_string(s.home.join("settings.json")).unwrap(),
        before
    );
    // A good one is written to the user's file, kept beside the other keys.
    pane.send("/settings maxTurns 7", "maxTurns = 7 written to the user");
    let after = std::fs::read_to_string(s.home.join("settings.json")).unwrap();
    assert!(
        after.contains("\"maxTurns\": 7") && after.contains("\"maxRetries\": 5"),
        "{after}"
    );
    // A key without a list of values waits in the editor for one.
    pane.type_text("/settings");
    pane.keys(&["Enter"]);
    pane.wait_for_visible("the settings picker again", &["settings (Enter"]);
    pane.type_text("shellpath");
    pane.wait_for_visible(
        "shellPath",
        &["“shellpath”", "shellPath = (the user's shell)"],
    );
    pane.keys(&["Enter"]);
    pane.wait_for_visible(
        "the typed value's prompt",
        &["› /settings shellPath", "type some text"],
    );
}
