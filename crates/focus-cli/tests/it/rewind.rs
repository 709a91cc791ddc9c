//! `focus rewind` through the real binary: a run whose model writes a file
//! and runs a command that deletes one and creates a folder; then a dry run
//! prints the exact operations and changes nothing, the rewind restores the
//! files, a file the user changed afterwards is a conflict kept without
//! `--force`, and a rewind forward brings the run's files back.

use crate::support::{mock, stderr, stdout, RpcClient, Sandbox};

const WRITE_THEN_BASH: &str = r#"{"name":"rewind","steps":[
  {"reply":{"text":"Writing.","toolCalls":[{"name":"write","arguments":{"path":"notes.txt","content":"new notes\n"}}]}},
  {"reply":{"text":"Cleaning.","toolCalls":[{"name":"bash","arguments":{"command":"rm old.txt && mkdir out && echo built > out/result"}}]}},
  {"reply":{"text":"Done."}}
]}"#;

#[test]
fn focus_rewind_restores_what_a_run_wrote_and_deleted_and_keeps_conflicts() {
    let s = Sandbox::new();
    std::fs::write(s.work.join("notes.txt"), "old notes\n").unwrap();
    std::fs::write(s.work.join("old.txt"), "keep me\n").unwrap();
    // Enough paths for the project to be watched rather than walked
    // (`tracker::WATCH_FROM`): the bash call's changes below come as events.
    std::fs::create_dir(s.work.join("many")).unwrap();
    for i in 0..focus_harness::checkpoint::tracker::WATCH_FROM {
        std::fs::write(s.work.join(format!("many/f{i}.txt")), "x\n").unwrap();
    }
    let server = mock(WRITE_THEN_BASH);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "auto",
            "go",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        s.work.join("out/result").exists(),
        "the command did not run"
    );
    // The bash call's own checkpoint holds what the sandboxed command changed:
    // the parent's watches see a jailed child's changes (same inodes), and the
    // events are read whole once the child has exited.
    let session = std::fs::read_to_string(s.session_files().pop().unwrap()).unwrap();
    let bash_checkpoint = session
        .lines()
        .find(|l| l.contains("focus.checkpoint") && l.contains("out/result"))
        .unwrap_or_else(|| panic!("no checkpoint names out/result:\n{session}"));
    assert!(
        bash_checkpoint.contains("\"cause\":\"tool\"") && bash_checkpoint.contains("old.txt"),
        "the bash call's checkpoint misses a change: {bash_checkpoint}"
    );
    // The HTML export shows the turn's file changes.
    let page_path = s.root.join("page.html");
    let session_path = s.session_files().pop().unwrap();
    let export = s.run(
        &[
            "--export",
            session_path.to_str().unwrap(),
            page_path.to_str().unwrap(),
        ],
        "",
    );
    assert!(export.status.success(), "{}", stderr(&export));
    let page = std::fs::read_to_string(&page_path).unwrap();
    let block = page
        .split("<section class=\"msg files\">")
        .nth(1)
        .unwrap_or_else(|| panic!("no file changes in the export:\n{page}"));
    for shown in ["files changed: 4", "notes.txt", "old.txt", "out/result"] {
        assert!(block.contains(shown), "{shown:?} missing from {block}");
    }
    let read = |name: &str| std::fs::read_to_string(s.work.join(name)).ok();

    let dry = s.run(&["rewind", "--code", "--dry-run"], "");
    let text = stdout(&dry);
    assert_eq!(dry.status.code(), Some(0), "{text}{}", stderr(&dry));
    for line in [
        "remove file out/result",
        "remove folder out",
        "write notes.txt (10 bytes",
        "write old.txt (8 bytes",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert_eq!(
        read("notes.txt").as_deref(),
        Some("new notes\n"),
        "a dry run changed files"
    );

    let undo = s.run(&["rewind", "--code"], "");
    assert_eq!(
        undo.status.code(),
        Some(0),
        "{}{}",
        stdout(&undo),
        stderr(&undo)
    );
    assert_eq!(read("notes.txt").as_deref(), Some("old notes\n"));
    assert_eq!(read("old.txt").as_deref(), Some("keep me\n"));
    assert!(!s.work.join("out").exists());

    // The user edits a file; a rewind that would overwrite it skips it.
    std::fs::write(s.work.join("notes.txt"), "the user's notes\n").unwrap();
    let session = s.session_files().pop().unwrap();
    let text = std::fs::read_to_string(&session).unwrap();
    let last = text.lines().last().unwrap();
    let leaf = last
        .split("\"id\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let tool_entries: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"focus.checkpoint\"") && l.contains("toolCallId"))
        .collect();
    assert_eq!(tool_entries.len(), 2, "{text}");
    let latest = tool_entries[1]
        .split("\"id\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let forward = s.run(&["rewind", "--code", "--to", latest], "");
    let shown = stdout(&forward);
    assert_eq!(forward.status.code(), Some(1), "{shown}");
    assert!(shown.contains("skip (changed outside focus"), "{shown}");
    assert!(shown.contains("+ the user's notes"), "{shown}");
    assert_eq!(read("notes.txt").as_deref(), Some("the user's notes\n"));
    assert_eq!(read("out/result").as_deref(), Some("built\n"));
    assert!(leaf.len() >= 8);

    let forced = s.run(&["rewind", "--code", "--to", latest, "--force"], "");
    assert_eq!(forced.status.code(), Some(0), "{}", stdout(&forced));
    assert_eq!(read("notes.txt").as_deref(), Some("new notes\n"));
}

#[test]
fn rpc_lists_checkpoints_per_prompt_and_rewinds_code_and_conversation() {
    let s = Sandbox::new();
    std::fs::write(s.work.join("notes.txt"), "old notes\n").unwrap();
    std::fs::write(s.work.join("old.txt"), "keep me\n").unwrap();
    let server = mock(WRITE_THEN_BASH);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"go"}"#);
    rpc.agent_end();
    let listed = rpc.call(2, r#"{"id":2,"type":"get_checkpoints"}"#);
    let data = &listed["data"];
    assert_eq!(
        data["enabled"].as_bool(),
        Some(true),
        "{}",
        listed.to_json_string()
    );
    let prompts = data["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0]["text"].as_str(), Some("go"));
    assert_eq!(
        prompts[0]["files"].as_u64(),
        Some(4),
        "{}",
        listed.to_json_string()
    );
    assert_eq!(data["checkpoints"].as_array().unwrap().len(), 2);

    let dry = rpc.call(3, r#"{"id":3,"type":"rewind","dryRun":true}"#);
    let ops = dry["data"]["operations"].as_array().unwrap();
    assert!(
        ops.iter().any(|o| o.as_str() == Some("remove folder out")),
        "{}",
        dry.to_json_string()
    );
    assert!(s.work.join("out").exists());

    let done = rpc.call(4, r#"{"id":4,"type":"rewind","scope":"both"}"#);
    assert_eq!(
        done["success"].as_bool(),
        Some(true),
        "{}",
        done.to_json_string()
    );
    assert_eq!(done["data"]["messageCount"].as_u64(), Some(0));
    assert!(!s.work.join("out").exists());
    assert_eq!(
        std::fs::read_to_string(s.work.join("old.txt")).unwrap(),
        "keep me\n"
    );
    assert_eq!(
        std::fs::read_to_string(s.work.join("notes.txt")).unwrap(),
        "old notes\n"
    );
}
