//! `/tree`, the navigator of the session tree, in a real terminal (tmux, as in
//! [`crate::interactive`]): connectors at branch points, the current path,
//! search, filters, labels, folds, moving with and without a branch summary,
//! a model's escape codes shown harmless, a big session within a small window
//! that is resized.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use focus_testkit::mock_llm::MockLlm;

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
    pane.wait_until(what, || {
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

/// Sends `prompt` and waits for `answer`.
fn ask(pane: &Pane, prompt: &str, answer: &str) {
    pane.send(prompt, answer);
}

/// focus on a mock model, after two turns: "alpha question" answered "first
/// reply", "beta question" answered `second` (a JSON string; `seen` is what
/// the screen shows of it), the model's `later` steps (JSON) still to come.
fn two_turns(s: &Sandbox, second: &str, seen: &str, later: &str) -> (MockLlm, Pane) {
    let server = mock(&format!(
        r#"{{"name":"c","steps":[{{"reply":{{"text":"first reply"}}}},{{"reply":{{"text":{second}}}}},{later}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(s, &["--model", "mock-openai/m1"]);
    ask(&pane, "alpha question", "first reply");
    ask(&pane, "beta question", seen);
    (server, pane)
}

/// The session file's lines of entry type `kind`.
fn entries_of(s: &Sandbox, kind: &str) -> Vec<String> {
    let file = s.session_files().into_iter().next().unwrap();
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.contains(&format!("\"type\":\"{kind}\"")))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_tree_navigator_branches_labels_filters_folds_and_summarizes() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let (server, pane) = two_turns(
        &s,
        r#""second \u001b[31mRED\u001b[0m reply""#,
        "RED reply",
        r#"{"reply":{"text":"third reply"}},{"reply":{"text":"SUMMARY-OF-THE-BRANCH"}}"#,
    );

    // The navigator: the whole window, the current entry selected and marked.
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the navigator", &["session tree · default · 4 of"]);
    let leaf = wait_for_row(&pane, "the leaf selected", &["❯●", "ai: second RED reply"]);
    assert!(!leaf.contains('\u{1b}'), "{leaf:?}");
    assert!(
        !pane.styled_screen().contains("31m"),
        "the model's escape reached the terminal"
    );
    wait_for_row(&pane, "the current path", &[" • you: alpha question"]);

    // Up to the first answer; Enter leaves the branch: asked, `n` only moves.
    pane.keys(&["Up", "Up"]);
    wait_for_row(
        &pane,
        "the first answer selected",
        &["❯•", "ai: first reply"],
    );
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the question", &["Summarize branch? [y/n]"]);
    pane.keys(&["n"]);
    pane.wait_for("the move", "continuing from that entry");
    assert!(entries_of(&s, "branch_summary").is_empty());
    ask(&pane, "gamma question", "third reply");

    // The branch point: connectors, the new branch on the current path.
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the first branch", &["├─ you: beta question"]);
    wait_for_row(&pane, "its gutter", &["│  ai: second RED reply"]);
    wait_for_row(&pane, "the current branch", &["• └─ you: gamma question"]);
    wait_for_row(&pane, "the current entry", &["❯●    ai: third reply"]);

    // Search as you type: only the matches (and the count) stay.
    pane.type_text("/bet");
    wait_for_row(&pane, "the search line", &["search› bet"]);
    wait_for_row(&pane, "the match", &["you: beta question"]);
    wait_for_row(&pane, "the count", &["session tree · default · 1 of"]);
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the search kept", &["tree›"]);

    // A label, set with `l`, shown inline and written to the session.
    pane.type_text("l");
    wait_for_row(&pane, "the label prompt", &["label›"]);
    pane.type_text("tried-beta");
    pane.keys(&["Enter"]);
    wait_for_row(
        &pane,
        "the label inline",
        &["[tried-beta] you: beta question"],
    );
    let labels = entries_of(&s, "label");
    assert!(
        labels.iter().any(|l| l.contains("tried-beta")),
        "{labels:?}"
    );
    // Esc drops the search: everything is back.
    pane.keys(&["Escape"]);
    wait_for_row(&pane, "all entries", &["session tree · default · 6 of"]);

    // Filters: no tools, user only (three questions), labelled only (one).
    pane.type_text("ff");
    wait_for_row(&pane, "user only", &["session tree · user only · 3 of"]);
    pane.keys(&["C-o"]);
    wait_for_row(
        &pane,
        "labelled only",
        &["session tree · labelled only · 1 of"],
    );
    // The label cleared with an empty one: nothing is labelled any more.
    pane.type_text("l");
    wait_for_row(&pane, "the label prompt", &["label› tried-beta"]);
    pane.keys(&["C-u", "Enter"]);
    wait_for_row(
        &pane,
        "nothing labelled",
        &["session tree · labelled only · 0 of"],
    );
    pane.type_text("ff");
    wait_for_row(
        &pane,
        "the default filter",
        &["session tree · default · 6 of"],
    );

    // Fold the first answer's subtree, unfold it again.
    pane.keys(&["Home", "Down"]);
    wait_for_row(&pane, "the first answer", &["❯•", "ai: first reply"]);
    pane.keys(&["Left"]);
    wait_for_row(&pane, "the fold", &["▸[+4] ai: first reply"]);
    // Folded away (a capture may still hold part of the frame before).
    pane.wait_until("the folded entries hidden", || {
        !pane.visible_screen().contains("gamma question")
    });
    pane.keys(&["Right"]);
    wait_for_row(&pane, "the unfold", &["└─ you: gamma question"]);

    // Back to the other branch's answer, summarizing the one left.
    pane.keys(&["Down", "Down"]);
    wait_for_row(&pane, "the other answer", &["❯", "ai: second RED reply"]);
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the question", &["Summarize branch? [y/n]"]);
    pane.keys(&["y"]);
    pane.wait_for("the summary", "the branch left behind is summarized here");
    let summaries = entries_of(&s, "branch_summary");
    assert_eq!(summaries.len(), 1, "{summaries:?}");
    assert!(
        summaries[0].contains("SUMMARY-OF-THE-BRANCH"),
        "{summaries:?}"
    );
    let request = server.requests()[3].body_text();
    assert!(request.contains("gamma question"), "{request}");

    // Esc closes the navigator.
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the navigator", &["session tree · default"]);
    pane.keys(&["Escape"]);
    pane.wait_until("the navigator closing", || {
        !pane.visible_screen().contains("session tree ·")
    });
}

/// A session file of `count` user messages in a chain, with a second branch
/// of three under the tenth; returns its path.
fn big_session(s: &Sandbox, count: usize) -> std::path::PathBuf {
    let mut text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"big-tree\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":{:?}}}\n",
        s.work.display().to_string()
    );
    let mut line = |id: String, parent: Option<String>, words: String| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{words}\"}}],\"timestamp\":0}}}}\n"
        ));
    };
    for i in 0..count {
        line(
            format!("m{i:07}"),
            i.checked_sub(1).map(|p| format!("m{p:07}")),
            format!("message number {i} of a long session"),
        );
    }
    for i in 0..3 {
        let parent = if i == 0 {
            "m0000009".to_string()
        } else {
            format!("b{:07}", i - 1)
        };
        line(format!("b{i:07}"), Some(parent), format!("side branch {i}"));
    }
    let path = s.root.join("big.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// Whether every row of the window fits `columns` and the selected row shows.
fn fits_with_selection(pane: &Pane, columns: usize) -> bool {
    let rows = visible_rows(pane);
    rows.iter().all(|r| r.chars().count() <= columns) && rows.iter().any(|r| r.starts_with('❯'))
}

#[test]
fn a_big_tree_stays_within_a_small_window_that_is_resized() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"c","steps":[]}"#);
    s.write_models(&server.url());
    let file = big_session(&s, 3000);
    let pane = Pane::start_sized(
        &s,
        &[
            "--model",
            "mock-openai/m1",
            "--session",
            file.to_str().unwrap(),
        ],
        (60, 15),
    );
    // The transcript shows `›` before the editor is up: wait for the footer.
    wait_for_row(&pane, "the footer", &["○ mock-openai/m1 ·"]);
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    // The current entry (the side branch's end: focus's own bookkeeping
    // entries after it are not shown) is selected and in view.
    wait_for_row(
        &pane,
        "the navigator",
        &["session tree · default · 3003 of 300"],
    );
    wait_for_row(&pane, "the leaf", &["❯●    you: side branch 2"]);
    wait_for_row(&pane, "the branch point", &[" • └─ you: side branch 0"]);
    wait_for_row(
        &pane,
        "the other branch",
        &["   │  you: message number 2999 of"],
    );
    assert!(visible_rows(&pane).len() <= 15);
    assert!(fits_with_selection(&pane, 60));
    // Far moves keep the selection in view (a page: the 11 rows shown).
    pane.keys(&["Home"]);
    wait_for_row(&pane, "the first entry", &["❯", "message number 0 of"]);
    pane.keys(&["End", "PageUp", "PageUp"]);
    wait_for_row(&pane, "two pages up", &["❯", "message number 2980 of"]);
    assert!(fits_with_selection(&pane, 60));
    // Narrower and shorter, then back: still the window, still the selection.
    pane.resize(40, 10);
    pane.wait_until("the tree at 40×10", || {
        visible_rows(&pane).len() <= 10 && fits_with_selection(&pane, 40)
    });
    pane.keys(&["End"]);
    wait_for_row(
        &pane,
        "the last entry at 40 columns",
        &["❯●", "side branch 2"],
    );
    pane.resize(60, 15);
    pane.wait_until("the tree at 60×15", || {
        visible_rows(&pane)
            .iter()
            .any(|r| r.contains("message number 2999 of"))
            && fits_with_selection(&pane, 60)
    });
    // Search over the 3003 entries.
    pane.type_text("/2345");
    wait_for_row(&pane, "the match", &["session tree · default · 1 of 300"]);
    wait_for_row(&pane, "the matched entry", &["message number 2345 of"]);
}

/// `branchSummary.skipPrompt` (pi's setting): a move leaves the branch without
/// asking; without it, `y` starts the summary and Esc cancels it (nothing
/// moves, nothing is recorded).
#[test]
fn the_summary_question_follows_the_setting_and_esc_cancels_the_summary() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let (_server, pane) = two_turns(
        &s,
        r#""second reply""#,
        "second reply",
        // The summary's words come ten minutes apart: it is still running when
        // Esc arrives however slow the machine is (with 400 ms apart it could
        // finish first under load, and the move happened). Dropping the server
        // cuts the wait short.
        r#"{"reply":{"text":"a summary that never comes in time","chunkDelayMs":600000}}"#,
    );

    // Asked: `y`, then Esc while the model summarizes.
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the leaf", &["❯●", "ai: second reply"]);
    pane.keys(&["Up", "Up", "Enter"]);
    wait_for_row(&pane, "the question", &["Summarize branch? [y/n]"]);
    pane.keys(&["y"]);
    wait_for_row(
        &pane,
        "the summary running",
        &["summarizing the branch… · Esc cancels"],
    );
    pane.keys(&["Escape"]);
    pane.wait_for("the cancelled summary", "not moved:");
    assert!(entries_of(&s, "branch_summary").is_empty());
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the leaf still there", &["❯●", "ai: second reply"]);
    pane.keys(&["Escape"]);
    // Typing goes on once the navigator is closed: an Esc read together with
    // the `/` typed next is Alt+/, and the old navigator would pass for the
    // new one below.
    pane.wait_until("the navigator closing", || {
        !pane.visible_screen().contains("session tree ·")
    });

    // The setting: no question, a plain move.
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"branchSummary":{"skipPrompt":true}}"#,
    )
    .unwrap();
    pane.type_text("/tree");
    pane.keys(&["Enter"]);
    wait_for_row(&pane, "the leaf", &["❯●", "ai: second reply"]);
    pane.keys(&["Up", "Up", "Enter"]);
    pane.wait_for("the move", "continuing from that entry");
    assert!(!pane.screen().contains("Summarize branch?"));
    assert!(entries_of(&s, "branch_summary").is_empty());
}
