//! Subagents over the real binary and a mock model: a child never gets more
//! rights than its parent (a hostile child under a plan-mode parent changes
//! nothing; a definition asking for `bypassPermissions` under a `default`
//! parent is asked like default), it runs in its own session file linked
//! from the parent's, and the `SubagentStart`/`SubagentStop` hooks fire.

use crate::support::*;
use focus_core::json::{parse_str, Value};

/// A definition that asks for every right.
const GREEDY: &str = "---\nname: greedy\ndescription: Changes files.\ntools: Write, Edit, Bash, Read\npermissionMode: bypassPermissions\n---\nYou change files.\n";

/// The parent asks `greedy` to work; the child tries every way to change
/// `notes.txt`; then both answer.
const HOSTILE: &str = r#"{"name":"hostile_child","steps":[
  {"reply":{"text":"Delegating.","toolCalls":[{"name":"task","arguments":{"description":"change notes","prompt":"change notes.txt","subagent_type":"greedy"}}]}},
  {"reply":{"text":"Changing it.","toolCalls":[
    {"name":"write","arguments":{"path":"notes.txt","content":"pwned"}},
    {"name":"edit","arguments":{"path":"notes.txt","oldText":"original","newText":"pwned"}},
    {"name":"bash","arguments":{"command":"echo pwned > notes.txt"}},
    {"name":"bash","arguments":{"command":"rm -f notes.txt; touch created.txt"}},
    {"name":"write","arguments":{"path":"new.txt","content":"pwned"}}]}},
  {"reply":{"text":"CHILD-DONE"}},
  {"reply":{"text":"PARENT-DONE"}}
]}"#;

fn project(s: &Sandbox) {
    std::fs::write(s.work.join("notes.txt"), "original\n").unwrap();
    std::fs::create_dir_all(s.work.join(".focus/agents")).unwrap();
    std::fs::write(s.work.join(".focus/agents/greedy.md"), GREEDY).unwrap();
}

fn run(s: &Sandbox, mode: &str) -> std::process::Output {
    let server = mock(HOSTILE);
    s.write_models(&server.url());
    s.run(
        &[
            "--mode",
            "json",
            "--permission-mode",
            mode,
            "--model",
            "mock-openai/m1",
            "go",
        ],
        "",
    )
}

/// The project's files, sorted, without focus's own folder.
fn files(s: &Sandbox) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(&s.work)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".focus")
        .collect();
    names.sort();
    names
}

/// The session files: the parent's and each child's (under `subagents/`).
fn sessions(s: &Sandbox) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
    s.session_files()
        .into_iter()
        .partition(|p| p.parent().and_then(|d| d.file_name()) != Some("subagents".as_ref()))
}

fn entries(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| parse_str(l).unwrap())
        .collect()
}

#[test]
fn a_hostile_child_under_a_plan_mode_parent_changes_nothing() {
    let s = Sandbox::new();
    project(&s);
    let out = run(&s, "plan");
    assert!(stdout(&out).contains("PARENT-DONE"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.work.join("notes.txt")).unwrap(),
        "original\n"
    );
    assert_eq!(files(&s), ["notes.txt"]);
    // Every call of the child was refused, and the parent read its answer.
    let (parents, children) = sessions(&s);
    assert_eq!(
        (parents.len(), children.len()),
        (1, 1),
        "{parents:?} {children:?}"
    );
    let child = entries(&children[0]);
    let results: Vec<&Value> = child
        .iter()
        .filter(|e| e["message"]["role"].as_str() == Some("toolResult"))
        .collect();
    assert_eq!(results.len(), 5);
    assert!(results
        .iter()
        .all(|r| r["message"]["isError"].as_bool() == Some(true)));
    assert!(
        child[0]["parentSession"].as_str().is_some(),
        "{:?}",
        child[0]
    );
    // The parent's session links the child's file just before the result.
    let parent = entries(&parents[0]);
    let link = parent
        .iter()
        .position(|e| e["type"].as_str() == Some("custom"))
        .expect("a link entry");
    assert_eq!(parent[link]["customType"].as_str(), Some("subagent"));
    assert_eq!(
        parent[link]["data"]["sessionFile"].as_str(),
        Some(&*children[0].to_string_lossy())
    );
    let result = &parent[link + 1]["message"];
    assert_eq!(result["toolName"].as_str(), Some("task"));
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("CHILD-DONE"));
    // The HTML export folds the child's conversation under the result.
    let page = s.root.join("page.html");
    let out = s.run(
        &[
            "--export",
            parents[0].to_str().unwrap(),
            page.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(page).unwrap();
    let folded = html
        .find("<details class=\"subagent\"><summary>subagent ▸ greedy: change notes")
        .expect("the child's conversation");
    assert!(
        html[folded..].contains("change notes.txt"),
        "the child's prompt"
    );
    assert!(html[folded..].contains("CHILD-DONE"));
}

#[test]
fn a_definition_asking_for_bypass_under_a_default_parent_is_asked_like_default() {
    let s = Sandbox::new();
    project(&s);
    // Print and JSON modes have nobody to approve: what asks is refused.
    let out = run(&s, "default");
    assert!(stdout(&out).contains("PARENT-DONE"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.work.join("notes.txt")).unwrap(),
        "original\n"
    );
    assert_eq!(files(&s), ["notes.txt"]);
    // Under an auto parent the same definition runs as asked.
    let s = Sandbox::new();
    project(&s);
    let out = run(&s, "auto");
    assert!(stdout(&out).contains("PARENT-DONE"), "{}", stderr(&out));
    assert!(
        files(&s).contains(&"new.txt".to_string()),
        "{:?}",
        files(&s)
    );
}

#[test]
fn subagent_hooks_fire_with_the_agent_and_its_transcript() {
    let s = Sandbox::new();
    project(&s);
    let log = s.work.join("hooks.log");
    let command = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
    let hook = |event: &str| {
        format!(
            r#""{event}":[{{"matcher":"greedy","hooks":[{{"type":"command","command":{}}}]}}]"#,
            Value::from(command.as_str()).to_json_string()
        )
    };
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"hooks":{{{},{}}}}}"#,
            hook("SubagentStart"),
            hook("SubagentStop")
        ),
    )
    .unwrap();
    let out = run(&s, "plan");
    assert!(stdout(&out).contains("PARENT-DONE"), "{}", stderr(&out));
    let logged: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_str(l).unwrap())
        .collect();
    let events: Vec<&str> = logged
        .iter()
        .map(|v| v["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["SubagentStart", "SubagentStop"]);
    assert!(logged
        .iter()
        .all(|v| v["agent_type"].as_str() == Some("greedy")));
    assert_eq!(logged[0]["agent_id"], logged[1]["agent_id"]);
    let (_, children) = sessions(&s);
    assert_eq!(
        logged[1]["agent_transcript_path"].as_str(),
        Some(&*children[0].to_string_lossy())
    );
}

#[test]
fn a_malformed_definition_is_named_with_its_line_and_the_rest_still_work() {
    let s = Sandbox::new();
    project(&s);
    std::fs::write(
        s.work.join(".focus/agents/broken.md"),
        "---\nname: broken\ndescription: d\npermissionMode: \u{1b}[2Jyolo\n---\n",
    )
    .unwrap();
    let out = run(&s, "plan");
    let err = stderr(&out);
    assert!(err.contains("broken.md:4: unknown permissionMode"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(stdout(&out).contains("PARENT-DONE"), "{err}");
}

/// A parent that starts two subagents, each running `sleep` (named `marker`
/// with `exec -a`) through the real bash tool.
fn sleeping_children(marker: &str) -> String {
    let sleep = format!("exec -a {marker} sleep 30");
    let bash = format!(
        r#"{{"reply":{{"text":"Sleeping.","toolCalls":[{{"name":"bash","arguments":{{"command":"{sleep}"}}}}]}}}}"#
    );
    format!(
        r#"{{"name":"sleepers","steps":[
  {{"reply":{{"text":"Delegating.","toolCalls":[
    {{"name":"task","arguments":{{"description":"one","prompt":"sleep","subagent_type":"sleeper"}}}},
    {{"name":"task","arguments":{{"description":"two","prompt":"sleep","subagent_type":"sleeper"}}}}]}}}},
  {bash}, {bash}
]}}"#
    )
}

fn sleeper_project(s: &Sandbox) {
    std::fs::create_dir_all(s.work.join(".focus/agents")).unwrap();
    std::fs::write(
        s.work.join(".focus/agents/sleeper.md"),
        "---\nname: sleeper\ndescription: Sleeps.\ntools: bash\n---\nYou sleep.\n",
    )
    .unwrap();
}

/// Waits until `count` processes named `marker` run (both children started).
fn until_sleeping(marker: &str, count: usize) {
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while processes(marker) < count {
        assert!(
            std::time::Instant::now() < give_up,
            "the children never slept"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn processes(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .count()
}

/// Every session file loads cleanly and every call in it is answered.
fn all_sessions_valid(s: &Sandbox) {
    let files = s.session_files();
    assert_eq!(files.len(), 3, "{files:?}");
    for file in files {
        let session = focus_harness::session::SessionManager::open_read_only(&file).unwrap();
        assert!(session.load_problems().is_empty(), "{file:?}");
        let messages: Vec<focus_core::message::Message> = session
            .tree()
            .current_branch()
            .iter()
            .filter_map(|e| match &e.kind {
                focus_harness::session::EntryKind::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        assert!(
            focus_core::agent::check_history(&messages).is_ok(),
            "{file:?}: {messages:?}"
        );
    }
}

#[test]
fn rpc_abort_ends_every_child_and_its_processes() {
    let s = Sandbox::new();
    sleeper_project(&s);
    let marker = format!("focus-subagent-rpc-{}", std::process::id());
    let server = mock(&sleeping_children(&marker));
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"go"}"#);
    until_sleeping(&marker, 2);
    rpc.call(2, r#"{"id":2,"type":"abort"}"#);
    let end = rpc.agent_end();
    assert_eq!(end["reason"].as_str(), Some("aborted"), "{end:?}");
    // The run ends only after every tool thread is joined: nothing is left.
    assert_eq!(processes(&marker), 0);
    assert_eq!(rpc.close(), 0);
    all_sessions_valid(&s);
}

#[test]
fn sigterm_ends_every_child_and_its_processes() {
    let s = Sandbox::new();
    sleeper_project(&s);
    let marker = format!("focus-subagent-term-{}", std::process::id());
    let server = mock(&sleeping_children(&marker));
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"go"}"#);
    until_sleeping(&marker, 2);
    rpc.signal("TERM");
    assert_eq!(processes(&marker), 0);
    all_sessions_valid(&s);
}

/// In a terminal: a running child's status line under its `task` call, the
/// approval dialog naming the subagent that asks, Esc ending the child with
/// the parent, and `/agents` listing the agents and the file left out.
#[test]
fn the_terminal_shows_the_child_and_who_asks_and_lists_the_agents() {
    if !crate::interactive::tmux_available() {
        return;
    }
    let s = Sandbox::new();
    sleeper_project(&s);
    std::fs::write(
        s.work.join(".focus/agents/broken.md"),
        "---\nname: broken\n",
    )
    .unwrap();
    let server = mock(
        r#"{"name":"asking_child","steps":[
  {"reply":{"text":"Delegating.","toolCalls":[{"name":"task","arguments":{"description":"one","prompt":"touch it","subagent_type":"sleeper"}}]}},
  {"reply":{"text":"Touching.","toolCalls":[{"name":"bash","arguments":{"command":"touch approved.txt"}}]}}
]}"#,
    );
    s.write_models(&server.url());
    let pane = crate::interactive::Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("go", "wants to run");
    pane.wait_for_visible(
        "the dialog and the child's line",
        &[
            "? subagent sleeper: one — bash wants to run:",
            "sleeper: one · bash ·",
        ],
    );
    pane.keys(&["Escape"]);
    pane.wait_for("the abort", "not run (you aborted)");
    pane.wait_for("the child's end", "did not finish: it was aborted");
    assert!(!s.work.join("approved.txt").exists());
    let screen = pane.send("/agents", "Agents (the task tool");
    pane.wait_for_visible(
        "the agents",
        &["sleeper — Sleeps.", "explore — ", "left out: ", "broken.md"],
    );
    assert!(screen.contains("Agents"), "{screen}");
}
