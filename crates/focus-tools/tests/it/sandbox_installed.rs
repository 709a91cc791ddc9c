//! The session's sandbox as the file tools and hooks meet it: the tools built
//! with a [`ToolState`] follow its sandbox, and tools built with another state
//! (here, one without a sandbox) are not touched by it: nothing is process-wide.

use crate::support::common;

use common::{call, tool, tool_in, TempTree};
use focus_core::json::parse_str;
use focus_core::json_object;
use focus_tools::gates::hooks::{run_pre_tool_use, HookConfig};
use focus_tools::gates::Mode;
use focus_tools::sandbox::{Sandbox, SandboxSettings};
use focus_tools::ToolState;
use std::sync::Arc;

#[test]
fn file_tools_and_hooks_follow_their_states_policy() {
    let tree = TempTree::new("installed");
    tree.write("project/a.txt", "original\n");
    tree.write("outside/victim", "original\n");
    tree.mkdir("tmp");
    std::os::unix::fs::symlink(tree.path("outside"), tree.path("project/link")).unwrap();
    let project = tree.path("project");
    let sandbox = Arc::new(
        Sandbox::with_temp_base(&SandboxSettings::default(), &project, &tree.path("tmp")).unwrap(),
    );
    let state = ToolState::new(Arc::clone(&sandbox));

    // write and edit: inside yes, outside and through the link no.
    let write = tool_in("write", &project, &state);
    let out = call(
        &*write,
        json_object! {"path" => "new.txt", "content" => "x"},
    );
    assert!(!out.is_error, "{}", out.text_content());
    for path in ["../outside/victim", "link/victim", "link/new.txt"] {
        let out = call(&*write, json_object! {"path" => path, "content" => "pwned"});
        assert!(out.is_error, "{path}: {}", out.text_content());
        assert!(
            out.text_content().contains("sandbox"),
            "{}",
            out.text_content()
        );
    }
    let edit = tool_in("edit", &project, &state);
    let out = call(
        &*edit,
        json_object! {"path" => "link/victim", "edits" => focus_core::json_array![
            json_object! {"oldText" => "original", "newText" => "pwned"}
        ]},
    );
    assert!(
        out.is_error && out.text_content().contains("sandbox"),
        "{}",
        out.text_content()
    );
    assert_eq!(tree.read("outside/victim"), "original\n");

    // read: everything but a process's environment.
    let read = tool_in("read", &project, &state);
    assert!(!call(&*read, json_object! {"path" => "link/victim"}).is_error);
    let out = call(&*read, json_object! {"path" => "/proc/self/environ"});
    assert!(
        out.is_error && out.text_content().contains("environment"),
        "{}",
        out.text_content()
    );

    // A hook of the project's settings is confined like a tool (when Landlock
    // is there); one of the user's own settings is the user's code and runs
    // unconfined (an audit log outside the project works).
    if sandbox.is_enforcing() {
        let settings = parse_str(&format!(
            r#"{{"hooks":{{"PreToolUse":[{{"matcher":"bash","hooks":[{{"type":"command","command":"echo pwned > {}/victim; echo ok > hook-ran"}}]}}]}}}}"#,
            tree.path("outside").display()
        ))
        .unwrap();
        let hooks = HookConfig::from_layers(&focus_core::json::Value::Null, &settings).unwrap();
        let _ = run_pre_tool_use(&hooks, "bash", &json_object! {}, &project, &sandbox);
        assert!(project.join("hook-ran").exists());
        assert_eq!(tree.read("outside/victim"), "original\n");
        let audit = tree.path("outside").join("audit.log");
        let users = parse_str(&format!(
            r#"{{"hooks":{{"PreToolUse":[{{"hooks":[{{"command":"echo call >> {}"}}]}}]}}}}"#,
            audit.display()
        ))
        .unwrap();
        let hooks = HookConfig::from_layers(&users, &focus_core::json::Value::Null).unwrap();
        let outcome = run_pre_tool_use(&hooks, "bash", &json_object! {}, &project, &sandbox);
        assert_eq!(outcome, Ok(()), "the user's audit hook lets the call run");
        assert_eq!(std::fs::read_to_string(&audit).unwrap(), "call\n");
    } else {
        focus_testkit::skipped(&format!("hooks: {}", sandbox.describe()));
    }

    // Plan mode: even the project is read-only for the file tools.
    sandbox.set_mode(Mode::Plan);
    let out = call(
        &*write,
        json_object! {"path" => "plan.txt", "content" => "x"},
    );
    assert!(
        out.is_error && out.text_content().contains("plan mode"),
        "{}",
        out.text_content()
    );

    // Tools built without this state are not confined by it.
    let free = tool("write", &project);
    let out = call(
        &*free,
        json_object! {"path" => "link/new.txt", "content" => "x"},
    );
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(tree.read("outside/new.txt"), "x");

    // The private temporary directory goes with the last holder of the sandbox.
    let temp = sandbox
        .temp_dir()
        .expect("a temporary directory")
        .to_path_buf();
    assert!(temp.is_dir());
    drop((write, edit, read, state));
    assert!(temp.is_dir(), "the test still holds the sandbox");
    drop(sandbox);
    assert!(!temp.exists(), "dropped with the sandbox");
}
