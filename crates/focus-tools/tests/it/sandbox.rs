//! The kernel sandbox around the bash tool: what each mode lets a command
//! write, checked on the file system afterwards. Skipped (visibly) where the
//! kernel has no Landlock.

use crate::support::common;

use common::{call, TempTree};
use focus_core::json_object;
use focus_tools::bash::BashTool;
use focus_tools::gates::Mode;
use focus_tools::sandbox::{Sandbox, SandboxSettings, Status};
use focus_tools::ToolState;
use std::path::Path;
use std::sync::Arc;

/// A project, a directory beside it, and a sandbox whose temporary directory
/// lives in the tree too.
fn setup(name: &str, settings: SandboxSettings) -> Option<(TempTree, Arc<Sandbox>)> {
    let tree = TempTree::new(name);
    tree.mkdir("project");
    tree.mkdir("outside");
    tree.mkdir("tmp");
    std::os::unix::fs::symlink(tree.path("outside"), tree.path("project/link")).unwrap();
    let sandbox =
        Sandbox::with_temp_base(&settings, &tree.path("project"), &tree.path("tmp")).unwrap();
    if !sandbox.is_enforcing() {
        focus_testkit::skipped(&sandbox.describe());
        return None;
    }
    Some((tree, Arc::new(sandbox)))
}

fn bash(sandbox: &Arc<Sandbox>, cwd: &Path, command: &str) -> String {
    let tool = BashTool::new(cwd.to_path_buf(), ToolState::new(Arc::clone(sandbox)));
    call(&tool, json_object! {"command" => command}).text_content()
}

#[test]
fn plan_mode_writes_only_the_private_temp_dir() {
    let Some((tree, sandbox)) = setup("plan", SandboxSettings::default()) else {
        return;
    };
    sandbox.set_mode(Mode::Plan);
    let project = tree.path("project");
    let out = bash(
        &sandbox,
        &project,
        "echo a > inside.txt; echo b > ../outside/b; echo c > link/c; \
         echo d > \"$TMPDIR/d\" && echo tmp-ok; echo e > /dev/null && echo null-ok",
    );
    assert!(!project.join("inside.txt").exists(), "{out}");
    assert!(!tree.path("outside/b").exists());
    assert!(!tree.path("outside/c").exists());
    assert!(out.contains("tmp-ok") && out.contains("null-ok"), "{out}");
    assert!(sandbox.temp_dir().unwrap().join("d").exists());
    assert!(sandbox.describe().contains("plan mode"));
}

#[test]
fn default_mode_writes_the_project_but_not_through_a_link_out_of_it() {
    let Some((tree, sandbox)) = setup("default", SandboxSettings::default()) else {
        return;
    };
    sandbox.set_mode(Mode::Default);
    let project = tree.path("project");
    let out = bash(
        &sandbox,
        &project,
        "echo a > inside.txt; mkdir -p src/x && touch src/x/y; echo b > ../outside/b; \
         echo c > link/c; cp inside.txt link/; cp -t .. inside.txt; mv inside.txt ../moved; \
         ln -s /etc/passwd pw; echo ok",
    );
    assert!(out.contains("ok"), "{out}");
    assert!(project.join("src/x/y").exists());
    assert!(project.join("pw").is_symlink());
    for escaped in [
        "outside/b",
        "outside/c",
        "outside/inside.txt",
        "inside.txt",
        "moved",
    ] {
        assert!(!tree.path(escaped).exists(), "{escaped} was written: {out}");
    }
    // The move out of the project failed, so the file is still there.
    assert!(project.join("inside.txt").exists());
}

#[test]
fn writable_paths_from_settings_are_writable() {
    let settings = SandboxSettings {
        writable_paths: vec![std::env::temp_dir().join("focus-never-created-for-this-test")],
        ..SandboxSettings::default()
    };
    let Some((tree, _)) = setup("writable", settings) else {
        return;
    };
    let extra = SandboxSettings {
        writable_paths: vec![tree.path("outside")],
        ..SandboxSettings::default()
    };
    let sandbox = Arc::new(
        Sandbox::with_temp_base(&extra, &tree.path("project"), &tree.path("tmp")).unwrap(),
    );
    bash(&sandbox, &tree.path("project"), "echo b > ../outside/b");
    assert!(tree.path("outside/b").exists());
    sandbox.set_mode(Mode::Plan);
    bash(&sandbox, &tree.path("project"), "echo c > ../outside/c");
    assert!(!tree.path("outside/c").exists());
}

#[test]
fn network_off_refuses_tcp_connections() {
    let settings = SandboxSettings {
        network: false,
        ..SandboxSettings::default()
    };
    let Some((tree, sandbox)) = setup("network", settings) else {
        return;
    };
    let Status::Enforcing { abi } = sandbox.status().clone() else {
        unreachable!("setup returns enforcing sandboxes only")
    };
    if abi < 4 {
        focus_testkit::skipped(&format!("Landlock ABI {abi} has no network rules"));
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        "(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo CONNECTED || echo REFUSED"
    );
    let out = bash(&sandbox, &tree.path("project"), &probe);
    assert!(out.contains("REFUSED"), "{out}");
    let open = Arc::new(
        Sandbox::with_temp_base(
            &SandboxSettings::default(),
            &tree.path("project"),
            &tree.path("tmp"),
        )
        .unwrap(),
    );
    let out = bash(&open, &tree.path("project"), &probe);
    assert!(out.contains("CONNECTED"), "{out}");
}

#[test]
fn the_file_tools_policy_resolves_links() {
    let Some((tree, sandbox)) = setup("check", SandboxSettings::default()) else {
        return;
    };
    let project = tree.path("project");
    assert!(sandbox
        .check_write(&project.join("src/new/file.rs"))
        .is_ok());
    assert!(sandbox.check_write(&project.join("link/x")).is_err());
    assert!(sandbox.check_write(&tree.path("outside/x")).is_err());
    assert!(sandbox
        .check_write(&sandbox.temp_dir().unwrap().join("x"))
        .is_ok());
    sandbox.set_mode(Mode::Plan);
    let err = sandbox.check_write(&project.join("a")).unwrap_err();
    assert!(err.contains("plan mode"), "{err}");
    assert!(sandbox.check_read(&project.join("link/x")).is_ok());
    assert!(sandbox
        .check_read(Path::new(&format!("/proc/{}/environ", std::process::id())))
        .is_err());
    assert!(sandbox.check_read(Path::new("/proc/self/environ")).is_err());
}

#[test]
fn off_confines_nothing() {
    let tree = TempTree::new("off");
    tree.mkdir("project");
    let settings = SandboxSettings {
        enabled: false,
        ..SandboxSettings::default()
    };
    let sandbox =
        Arc::new(Sandbox::with_temp_base(&settings, &tree.path("project"), &tree.root).unwrap());
    assert_eq!(sandbox.status(), &Status::Off);
    sandbox.set_mode(Mode::Plan);
    bash(&sandbox, &tree.path("project"), "echo b > ../b");
    assert!(tree.path("b").exists());
    assert!(sandbox.check_write(&tree.path("b")).is_ok());
    let temp = sandbox.temp_dir().unwrap().to_path_buf();
    assert!(temp.is_dir());
    sandbox.remove_temp_dir();
    assert!(!temp.exists());
}

#[test]
fn mcp_servers_are_confined_only_when_settings_say_so_with_the_writing_policy() {
    let settings = SandboxSettings {
        mcp_servers: true,
        ..SandboxSettings::default()
    };
    let Some((tree, sandbox)) = setup("mcp", settings) else {
        return;
    };
    // Even in plan mode a server may write the project (it outlives the mode),
    // never outside it.
    sandbox.set_mode(Mode::Plan);
    let run = |sandbox: &Sandbox, name: &str| {
        let mut command = std::process::Command::new("sh");
        command
            .arg("-c")
            .arg(format!("echo x > {name}; echo x > ../outside/{name}"))
            .current_dir(tree.path("project"));
        sandbox.confine_mcp_server(&mut command).unwrap();
        command.status().unwrap();
    };
    run(&sandbox, "confined");
    assert!(tree.path("project/confined").exists());
    assert!(!tree.path("outside/confined").exists());
    let unconfined = Sandbox::with_temp_base(
        &SandboxSettings::default(),
        &tree.path("project"),
        &tree.path("tmp"),
    )
    .unwrap();
    run(&unconfined, "free");
    assert!(tree.path("outside/free").exists());
}
