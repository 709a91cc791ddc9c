//! focus beside pi in tmux on the four rows where pi was better (issue 33): a
//! 12-column table with CJK cells at 80x24 keeps every value visible, the
//! footer at 40 columns keeps cost and tokens, `/hotkeys` is aligned, and a
//! command typed during a streaming answer does not split it.
//!
//! focus's half always runs and must hold every row. pi's half runs when pi
//! is installed (`PI_BIN`, else `/tmp/pi/node_modules/.bin/pi`; install it with
//! `npm install --prefix /tmp/pi @mariozechner/pi-coding-agent`) against the
//! same mock model, and its results are printed beside focus's; without pi it
//! says SKIPPED for that half.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use std::process::Command;
use std::time::{Duration, Instant};

/// The table's value in `row`, `col` (every fourth one CJK).
fn value(row: usize, col: usize) -> String {
    if col % 4 == 0 {
        format!("值{row}の{col}")
    } else {
        format!("v{row}x{col}")
    }
}

/// The scenario both programs get: the table, then a slow one-line stream.
fn scenario() -> String {
    let headers: Vec<String> = (1..=12).map(|i| format!("Col{i}")).collect();
    let mut table = vec![
        format!("| {} |", headers.join(" | ")),
        format!("|{}|", ["---"; 12].join("|")),
    ];
    for row in 1..=2 {
        let cells: Vec<String> = (1..=12).map(|c| value(row, c)).collect();
        table.push(format!("| {} |", cells.join(" | ")));
    }
    table.push(String::new());
    table.push("table-done".into());
    let words: Vec<String> = (1..=90).map(|i| format!("w{i:03}")).collect();
    format!(
        r#"{{"name":"vs","steps":[{{"reply":{{"text":"{}"}}}},{{"reply":{{"text":"{} stream-done","chunkDelayMs":150}}}},{{"reply":{{"text":"more"}}}}]}}"#,
        table.join("\\n"),
        words.join(" ")
    )
}

/// One row of the comparison: its name and how to read it from [`Rows`].
type Row = (&'static str, fn(&Rows) -> bool);

/// What one program showed on the four rows.
#[derive(Debug, Default)]
struct Rows {
    table_values_visible: bool,
    footer_keeps_cost_and_tokens: bool,
    hotkeys_aligned: bool,
    stream_not_split: bool,
}

/// Polls `pane`'s whole screen until `check` holds or `limit` passes (pi's
/// half must not fail the test: it is compared, not required).
fn settle(pane: &Pane, limit: Duration, check: impl Fn(&str) -> bool) -> Option<String> {
    let deadline = Instant::now() + limit;
    loop {
        let screen = pane.screen();
        if check(&screen) {
            return Some(screen);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Drives one program in `pane` (80x24) through the four rows.
fn four_rows(pane: &Pane, prompt: &str) -> Rows {
    let limit = Duration::from_secs(60);
    let mut rows = Rows::default();
    let ready = settle(pane, limit, |s| s.contains(prompt));
    if ready.is_none() {
        return rows;
    }
    // 1. The wide table: every value somewhere on the screen, none cut.
    pane.type_text("a table please");
    pane.keys(&["Enter"]);
    if let Some(screen) = settle(pane, limit, |s| s.contains("table-done")) {
        let screen = screen.replace(' ', "");
        rows.table_values_visible =
            (1..=2).all(|r| (1..=12).all(|c| screen.contains(&value(r, c))));
    }
    // 2. /hotkeys: a description that wraps goes on under itself.
    pane.type_text("/hotkeys");
    pane.keys(&["Enter"]);
    if let Some(screen) = settle(pane, Duration::from_secs(20), |s| {
        s.contains("abort") && s.lines().any(|l| l.trim_start().starts_with("Esc"))
    }) {
        let lines: Vec<&str> = screen.lines().collect();
        let esc = lines
            .iter()
            .rposition(|l| l.trim_start().starts_with("Esc") && l.contains("abort"));
        rows.hotkeys_aligned = esc.is_some_and(|at| {
            let row = lines[at];
            let column = row.find("abort").unwrap_or(0);
            let key_indent = row.len() - row.trim_start().len();
            let next = lines.get(at + 1).copied().unwrap_or("");
            let indent = next.len() - next.trim_start().len();
            // The next row goes on under the description, or is the next key.
            column > key_indent + 3 && (indent == column || indent == key_indent)
        });
    }
    // 3. /session typed while an answer streams.
    pane.type_text("stream please");
    pane.keys(&["Enter"]);
    if settle(pane, limit, |s| s.contains("w006")).is_some() {
        pane.type_text("/session");
        pane.keys(&["Enter"]);
        if let Some(screen) = settle(pane, limit, |s| s.contains("stream-done")) {
            let lines: Vec<&str> = screen.lines().collect();
            let first = lines.iter().rposition(|l| l.contains("w001"));
            let last = lines.iter().rposition(|l| l.contains("stream-done"));
            rows.stream_not_split = match (first, last) {
                (Some(first), Some(last)) if first <= last => {
                    let words: Vec<&str> = lines[first..=last]
                        .iter()
                        .flat_map(|l| l.split_whitespace())
                        .collect();
                    words.len() == 91
                        && words
                            .iter()
                            .all(|w| w.starts_with('w') || *w == "stream-done")
                }
                _ => false,
            };
        }
    }
    // 4. The footer at 40 columns keeps the cost and the tokens.
    let _ = Command::new("tmux")
        .args(["resize-window", "-t", pane.name(), "-x", "40", "-y", "24"])
        .status();
    rows.footer_keeps_cost_and_tokens = settle(pane, Duration::from_secs(20), |_| {
        let visible = pane.visible_screen();
        visible.lines().all(|l| l.chars().count() <= 40)
            && visible
                .lines()
                .any(|l| l.contains('$') && (l.contains('↑') || l.contains("tok")))
    })
    .is_some();
    rows
}

#[test]
fn the_four_rows_pi_was_better_at_beside_pi() {
    if !tmux_available() {
        return;
    }
    // focus's half.
    let s = Sandbox::new();
    let server = mock(&scenario());
    s.write_models(&server.url());
    let command = format!(
        "{}; echo FOCUS-EXITED-$?; sleep 30",
        Pane::focus_command(&s, &["--model", "mock-openai/m1"])
    );
    let pane = Pane::launch_sized(&s, "vsf", &command, (80, 24));
    let focus = four_rows(&pane, "›");
    drop(pane);

    // pi's half, when pi is there.
    let pi = std::env::var("PI_BIN").unwrap_or_else(|_| "/tmp/pi/node_modules/.bin/pi".into());
    let pi_rows = if std::path::Path::new(&pi).exists() {
        let p = Sandbox::new();
        let server = mock(&scenario());
        p.write_models(&server.url());
        let agent = p.root.join("pi-agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::copy(p.home.join("models.json"), agent.join("models.json")).unwrap();
        let command = format!(
            "cd '{}' && env TERM=xterm-256color SHELL=/bin/sh HOME='{}' PI_CODING_AGENT_DIR='{}' NO_COLOR=1 '{pi}' --model mock-openai/m1 --no-extensions; sleep 30",
            p.work.display(),
            p.root.display(),
            agent.display()
        );
        let pane = Pane::launch_sized(&p, "vsp", &command, (80, 24));
        Some(four_rows(&pane, "mock-openai"))
    } else {
        focus_testkit::skipped(&format!(
            "pi not found at {pi}: focus's half only (npm install --prefix /tmp/pi @mariozechner/pi-coding-agent)"
        ));
        None
    };
    let show = |yes: bool| if yes { "yes" } else { "no" };
    let pi_show = |f: fn(&Rows) -> bool| pi_rows.as_ref().map_or("(not run)", |r| show(f(r)));
    eprintln!("| row (80x24; footer at 40 columns) | focus | pi |");
    eprintln!("|---|---|---|");
    let table: [Row; 4] = [
        ("12-column table with CJK: every value visible", |r| {
            r.table_values_visible
        }),
        ("footer at 40 columns keeps cost and tokens", |r| {
            r.footer_keeps_cost_and_tokens
        }),
        ("/hotkeys aligned", |r| r.hotkeys_aligned),
        ("/session during a stream does not split it", |r| {
            r.stream_not_split
        }),
    ];
    for (name, f) in table {
        eprintln!("| {name} | {} | {} |", show(f(&focus)), pi_show(f));
    }
    assert!(
        focus.table_values_visible
            && focus.footer_keeps_cost_and_tokens
            && focus.hotkeys_aligned
            && focus.stream_not_split,
        "focus lost a row: {focus:?}"
    );
}
