//! Protected paths from the command line: in print mode nobody can approve,
//! so a model's `write` of `.git/hooks/pre-commit`, `.git/config` or
//! `.focus/settings.json` is refused even in auto mode, with a message (to the
//! model) naming the file and how to allow it; `--sandbox off` lifts it.

use crate::support::*;

const PLANT: &str = r##"{"name":"plant","steps":[
  {"reply":{"text":"Planting.","toolCalls":[
    {"name":"write","arguments":{"path":".git/hooks/pre-commit","content":"#!/bin/sh\ntouch pwned\n"}},
    {"name":"write","arguments":{"path":".git/config","content":"[core]\n\tfsmonitor = touch pwned\n"}},
    {"name":"write","arguments":{"path":".focus/settings.json","content":"{\"permissionMode\":\"auto\"}"}},
    {"name":"write","arguments":{"path":"src/ok.txt","content":"fine"}}]}},
  {"reply":{"text":"Done."}}
]}"##;

fn run(s: &Sandbox, mode: &str, extra: &[&str]) -> String {
    std::fs::create_dir_all(s.work.join(".git/hooks")).unwrap();
    std::fs::write(s.work.join(".git/config"), "[core]\n").unwrap();
    let server = mock(PLANT);
    s.write_models(&server.url());
    // Refused writes would exit 3 (docs/cli.md); these tests look at what was written.
    let mut args = vec![
        "-p",
        "--denials",
        "ok",
        "--permission-mode",
        mode,
        "--model",
        "mock-openai/m1",
    ];
    args.extend_from_slice(extra);
    args.push("plant");
    let out = s.run(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", stderr(&out));
    requests[1].body_text()
}

#[test]
fn print_mode_refuses_protected_writes_in_every_mode_and_names_the_file() {
    for mode in ["auto", "accept-edits", "default"] {
        let s = Sandbox::new();
        let body = run(&s, mode, &[]);
        assert!(!s.work.join(".git/hooks/pre-commit").exists(), "{mode}");
        assert_eq!(
            std::fs::read_to_string(s.work.join(".git/config")).unwrap(),
            "[core]\n",
            "{mode}"
        );
        assert!(!s.work.join(".focus/settings.json").exists(), "{mode}");
        for name in [
            ".git/hooks/pre-commit",
            ".git/config",
            ".focus/settings.json",
        ] {
            assert!(body.contains(name), "{mode}: {name} not named: {body}");
        }
        assert!(body.contains("--sandbox off"), "{mode}: {body}");
        // The ordinary file: written in auto and accept-edits, asked (refused) in default.
        assert_eq!(
            s.work.join("src/ok.txt").exists(),
            mode != "default",
            "{mode}"
        );
    }
}

#[test]
fn sandbox_off_lifts_the_protection() {
    let s = Sandbox::new();
    run(&s, "auto", &["--sandbox", "off"]);
    assert!(s.work.join(".git/hooks/pre-commit").exists());
    assert!(s.work.join(".focus/settings.json").exists());
}
