//! The kernel's half of issue 27, reproduced: each attack of the report runs
//! confined, as root and (re-run with `setpriv`) as the unprivileged uid
//! 65534, and must fail, checked from outside the sandbox: a tmux server that
//! must not run a command, a socket server that must take no connection, a
//! terminal that must receive no keystroke, a process whose environment must
//! stay unread, a fork bomb and a temporary directory filling up that must end
//! with a clear result. Protected paths stay read-only while `git commit` and
//! `cargo build` still work.

use crate::support::kernel::*;

use focus_tools::gates::Mode;
use focus_tools::sandbox::{SandboxSettings, ToolLimits};
use std::process::Command;
use std::time::{Duration, Instant};

/// The last lines of a long output.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

fn network_off() -> SandboxSettings {
    SandboxSettings {
        network: false,
        ..SandboxSettings::default()
    }
}

#[test]
fn a_tmux_server_outside_runs_nothing_for_a_tool() {
    if Command::new("tmux").arg("-V").output().is_err() {
        focus_testkit::skipped("no tmux");
        return;
    }
    for mode in [Mode::Plan, Mode::Default] {
        let Some((tree, sandbox)) = confined("tmux", SandboxSettings::default(), mode, false)
        else {
            return;
        };
        let socket = tree.path("tmux.sock");
        // tmux runs its commands with the user's shell; uid 65534's is
        // nologin, and CI may start without SHELL.
        let started = Command::new("tmux")
            .env("SHELL", "/bin/sh")
            .args(["-S"])
            .arg(&socket)
            .args(["new-session", "-d", "-s", "t", "sleep 600"])
            .status()
            .expect("tmux starts");
        assert!(started.success());
        let pwned = tree.path("outside/pwned");
        let out = bash(
            &sandbox,
            &tree.path("project"),
            &format!(
                "tmux -S {s} run-shell 'touch {p}'; tmux -S {s} send-keys -t t 'touch {p}2' Enter; \
                 tmux -S {s} new-window 'touch {p}3'; sleep 0.3",
                s = socket.display(),
                p = pwned.display()
            ),
            30,
        );
        // The server outside works: the same request from outside runs.
        let outside = Command::new("tmux")
            .env("SHELL", "/bin/sh")
            .arg("-S")
            .arg(&socket)
            .args(["run-shell", &format!("touch {}.control", pwned.display())])
            .status()
            .expect("tmux client");
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .arg("kill-server")
            .status();
        assert!(outside.success() && tree.path("outside/pwned.control").exists());
        for name in ["pwned", "pwned2", "pwned3"] {
            assert!(
                !tree.path("outside").join(name).exists(),
                "{mode:?}: tmux ran a command for the tool: {out}"
            );
        }
    }
    also_as_unprivileged_user("sandbox_kernel::a_tmux_server_outside_runs_nothing_for_a_tool");
}

#[test]
fn unix_sockets_are_refused_unless_settings_allow_them() {
    let Some((tree, sandbox)) = confined("unix", SandboxSettings::default(), Mode::Default, false)
    else {
        return;
    };
    let server = SocketServer::start(tree.path("outside/service.sock"));
    let probe = format!(
        "{PY} -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); print('CONNECTED')\"; \
         {PY} -c \"import socket; a,b=socket.socketpair(); a.send(b'x'); print('PAIR', b.recv(1))\"",
        server.path.display()
    );
    let out = bash(&sandbox, &tree.path("project"), &probe, 30);
    assert!(!out.contains("CONNECTED"), "{out}");
    assert!(
        out.contains("PAIR b'x'"),
        "socketpair must keep working: {out}"
    );
    assert_eq!(server.count(), 0);
    // Listed: the kernel cannot filter by path, so Unix sockets are allowed.
    let allowed = SandboxSettings {
        allow_unix_sockets: vec![server.path.clone()],
        ..SandboxSettings::default()
    };
    let sandbox = std::sync::Arc::new(
        focus_tools::sandbox::Sandbox::with_temp_base(
            &allowed,
            &tree.path("project"),
            &tree.path("tmp"),
        )
        .unwrap(),
    );
    assert!(sandbox
        .start_notice()
        .unwrap_or_default()
        .contains("Unix sockets ALLOWED"));
    let out = bash(&sandbox, &tree.path("project"), &probe, 30);
    assert!(out.contains("CONNECTED"), "{out}");
    assert!(wait_until(Duration::from_secs(5), || server.count() == 1));
    also_as_unprivileged_user(
        "sandbox_kernel::unix_sockets_are_refused_unless_settings_allow_them",
    );
}

#[test]
fn with_the_network_off_no_packet_leaves_tcp_udp_or_a_relay() {
    let Some((tree, sandbox)) = confined("net", network_off(), Mode::Default, false) else {
        return;
    };
    let net = NetListeners::start();
    let relay = SocketServer::start(tree.path("outside/relay.sock"));
    let out = bash(
        &sandbox,
        &tree.path("project"),
        &format!(
            "(exec 3<>/dev/tcp/127.0.0.1/{t}) && echo TCP; echo x > /dev/udp/127.0.0.1/{u} && echo UDP; \
             curl -s -m 5 http://127.0.0.1:{t}/ && echo CURL; \
             curl -s -m 5 --unix-socket {r} http://x/ && echo RELAY; \
             {PY} -c \"import socket; s=socket.socket(socket.AF_INET6); s.connect(('::1', {t})); print('V6')\"; \
             {PY} -c \"import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print('NETLINK')\"",
            t = net.tcp_port,
            u = net.udp_port,
            r = relay.path.display()
        ),
        60,
    );
    for escaped in ["TCP", "UDP", "CURL", "RELAY", "V6", "NETLINK"] {
        assert!(!out.lines().any(|l| l == escaped), "{escaped}: {out}");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(net.count(), 0, "{out}");
    assert_eq!(relay.count(), 0, "{out}");
    also_as_unprivileged_user(
        "sandbox_kernel::with_the_network_off_no_packet_leaves_tcp_udp_or_a_relay",
    );
}

#[test]
fn no_device_node_is_made_and_no_keystroke_reaches_a_terminal() {
    let Some((tree, sandbox)) = confined("dev", SandboxSettings::default(), Mode::Default, false)
    else {
        return;
    };
    let terminal = Terminal::start(&tree.root).expect("a pty");
    let out = bash(
        &sandbox,
        &tree.path("project"),
        &format!(
            "mknod blk b 254 0 && echo MADE-BLOCK; mknod tty c 5 0 && echo MADE-CHAR; \
             mknod \"$TMPDIR/t\" c 4 1 && echo MADE-TMP; mkfifo fifo && echo FIFO-OK; \
             {PY} -c \"import fcntl, termios; f=open('{s}', 'rb'); fcntl.ioctl(f, termios.TIOCSTI, b'X'); print('STI')\"; \
             perl -e 'open(my $t, \"<\", \"{s}\") or die; ioctl($t, 0x5412, \"Y\") and print \"PERL-STI\\n\"'; \
             echo Z > {s} && echo WROTE-TTY; echo W > /dev/tty && echo CTTY",
            s = terminal.slave
        ),
        30,
    );
    for escaped in [
        "MADE-BLOCK",
        "MADE-CHAR",
        "MADE-TMP",
        "STI",
        "PERL-STI",
        "WROTE-TTY",
        "CTTY",
    ] {
        assert!(!out.lines().any(|l| l == escaped), "{escaped}: {out}");
    }
    assert!(
        out.contains("FIFO-OK"),
        "a fifo in the project is fine: {out}"
    );
    assert!(!tree.path("project/blk").exists() && !tree.path("project/tty").exists());
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        terminal.typed(),
        "",
        "keystrokes reached the terminal: {out}"
    );
    also_as_unprivileged_user(
        "sandbox_kernel::no_device_node_is_made_and_no_keystroke_reaches_a_terminal",
    );
}

#[test]
fn another_process_environment_and_memory_stay_unread() {
    let mut canary = Canary::start("environ");
    let Some((tree, sandbox)) = confined("proc", SandboxSettings::default(), Mode::Plan, false)
    else {
        return;
    };
    let pid = canary.pid();
    let out = bash(
        &sandbox,
        &tree.path("project"),
        &format!(
            "grep -a -o 'FOCUS_TEST_CANARY=[^[:cntrl:]]*' /proc/[0-9]*/environ | rev; \
             cat /proc/{pid}/cmdline | rev; cat /proc/1/environ /proc/1/cmdline | rev; \
             head -c 64 /proc/1/mem > /dev/null && echo MEM; ls /proc | grep -c '^[0-9]'; \
             kill -9 {pid} && echo KILLED; grep ^Cap /proc/self/status"
        ),
        30,
    );
    let reversed: String = canary.value.chars().rev().collect();
    assert!(
        !out.contains(&reversed) && !out.contains(&canary.value),
        "{out}"
    );
    assert!(!out.lines().any(|l| l == "MEM" || l == "KILLED"), "{out}");
    assert!(canary.alive(), "the tool killed a process outside");
    for line in out.lines().filter(|l| l.starts_with("Cap")) {
        assert!(
            line.ends_with("0000000000000000"),
            "a capability kept: {line}"
        );
    }
    also_as_unprivileged_user("sandbox_kernel::another_process_environment_and_memory_stay_unread");
}

#[test]
fn a_fork_bomb_ends_with_a_clear_result() {
    let settings = SandboxSettings {
        limits: ToolLimits {
            processes: Some(64),
            ..ToolLimits::default()
        },
        ..SandboxSettings::default()
    };
    let Some((tree, sandbox)) = confined("bomb", settings, Mode::Default, false) else {
        return;
    };
    let marker = format!("focusbomb{}", std::process::id());
    let started = Instant::now();
    // In the foreground: the shell itself keeps forking.
    let out = bash(
        &sandbox,
        &tree.path("project"),
        &format!("sh -c 'f() {{ f & f; }}; f' {marker}"),
        120,
    );
    assert!(started.elapsed() < Duration::from_secs(100), "{out}");
    assert!(out.contains("limit of 64 processes"), "{}", tail(&out));
    // The classic: the shell returns at once, the bomb goes on behind it.
    let out = bash(
        &sandbox,
        &tree.path("project"),
        &format!("sh -c ':() {{ : | : & }}; :' {marker}-bg"),
        120,
    );
    assert!(!out.is_empty());
    assert!(
        wait_until(Duration::from_secs(60), || processes_with(&marker)
            .is_empty()),
        "bomb processes remain: {:?}",
        processes_with(&marker)
    );
    // focus goes on: the next call runs.
    let out = bash(&sandbox, &tree.path("project"), "echo still-here", 30);
    assert!(out.contains("still-here"), "{out}");
    also_as_unprivileged_user("sandbox_kernel::a_fork_bomb_ends_with_a_clear_result");
}

#[test]
fn a_temporary_directory_filling_up_is_stopped_and_emptied() {
    let settings = SandboxSettings {
        limits: ToolLimits {
            temp_dir: Some(8 * 1024 * 1024),
            ..ToolLimits::default()
        },
        ..SandboxSettings::default()
    };
    let Some((tree, sandbox)) = confined("fill", settings, Mode::Plan, false) else {
        return;
    };
    let started = Instant::now();
    let out = bash(
        &sandbox,
        &tree.path("project"),
        "head -c 200000000 /dev/zero | sort > \"$TMPDIR/fill\"; sleep 60",
        120,
    );
    assert!(started.elapsed() < Duration::from_secs(50), "{out}");
    assert!(out.contains("past its cap of 8 MB"), "{out}");
    let temp = sandbox.temp_dir().unwrap();
    assert_eq!(std::fs::read_dir(temp).unwrap().count(), 0);
    also_as_unprivileged_user(
        "sandbox_kernel::a_temporary_directory_filling_up_is_stopped_and_emptied",
    );
}

#[test]
fn a_huge_timeout_is_lowered_to_the_maximum() {
    let Some((tree, sandbox)) = confined("timeout", SandboxSettings::default(), Mode::Plan, false)
    else {
        return;
    };
    let tool = focus_tools::bash::BashTool::new(
        tree.path("project"),
        focus_tools::ToolState::new(sandbox),
    );
    let out = crate::support::common::call(
        &tool,
        focus_core::json_object! {"command" => "echo ok", "timeout" => 1e9},
    )
    .text_content();
    assert!(out.contains("timeout lowered to 7200 seconds"), "{out}");
}

#[test]
fn protected_paths_stay_read_only_while_git_commit_works() {
    for mode in [Mode::Default, Mode::AcceptEdits, Mode::Auto] {
        let Some((tree, sandbox)) = confined("git", SandboxSettings::default(), mode, true) else {
            return;
        };
        let project = tree.path("project");
        let config_before = std::fs::read(project.join(".git/config")).unwrap();
        let out = bash(
            &sandbox,
            &project,
            "echo '[core] fsmonitor = touch ../outside/pwned' >> .git/config; \
             git config core.pager 'touch ../outside/pwned'; \
             echo 'touch ../outside/pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; \
             echo '* filter=evil' > .git/info/attributes; \
             mv .git .git-away; rm -rf .git/hooks; ln cfg .git/config; \
             mkdir .focus && echo '{}' > .focus/settings.json; mkdir -p .claude; \
             echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -qm change && echo COMMITTED; \
             git log --oneline | wc -l",
            60,
        );
        assert!(out.contains("COMMITTED"), "{mode:?}: {out}");
        assert_eq!(
            std::fs::read(project.join(".git/config")).unwrap(),
            config_before
        );
        assert!(!project.join(".git/hooks/pre-commit").exists(), "{out}");
        assert!(!project.join(".git/info/attributes").exists(), "{out}");
        assert!(project.join(".git/HEAD").exists() && !project.join(".git-away").exists());
        assert!(!project.join(".focus").exists() && !project.join(".claude").exists());
        assert!(out.contains("Moved aside"), "{out}");
        assert!(!tree.path("outside/pwned").exists());
        let log = Command::new("git")
            .args(["log", "--oneline"])
            .current_dir(&project)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&log.stdout).lines().count(), 2);
    }
    also_as_unprivileged_user(
        "sandbox_kernel::protected_paths_stay_read_only_while_git_commit_works",
    );
}

#[test]
fn cargo_builds_a_small_crate_in_default_mode() {
    let Ok(cargo) = Command::new("cargo").arg("--version").output() else {
        focus_testkit::skipped("no cargo");
        return;
    };
    if !cargo.status.success() {
        focus_testkit::skipped("no cargo");
        return;
    }
    let Some((tree, sandbox)) = confined("cargo", SandboxSettings::default(), Mode::Default, true)
    else {
        return;
    };
    tree.write(
        "project/Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    tree.write(
        "project/src/main.rs",
        "fn main() { println!(\"tiny-ran\"); }\n",
    );
    // The crate's own target directory, not the one of the cargo running this
    // test (scripts/vendor-check sets CARGO_TARGET_DIR outside the sandbox).
    let out = bash(
        &sandbox,
        &tree.path("project"),
        "unset CARGO_TARGET_DIR; CARGO_HOME=\"$TMPDIR/cargo-home\" cargo run -q --offline",
        600,
    );
    assert!(out.contains("tiny-ran"), "{out}");
    assert!(tree.path("project/target").is_dir());
}

#[test]
fn npm_installs_a_local_package_in_default_mode() {
    if !Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        focus_testkit::skipped("no npm");
        return;
    }
    let Some((tree, sandbox)) = confined("npm", SandboxSettings::default(), Mode::Default, true)
    else {
        return;
    };
    tree.write(
        "project/dep/package.json",
        r#"{"name": "dep", "version": "1.0.0", "main": "index.js"}"#,
    );
    tree.write("project/dep/index.js", "module.exports = 'dep-loaded';\n");
    tree.write(
        "project/package.json",
        r#"{"name": "app", "version": "1.0.0", "dependencies": {"dep": "file:./dep"}}"#,
    );
    let out = bash(
        &sandbox,
        &tree.path("project"),
        "npm install --offline --no-audit --no-fund --cache \"$TMPDIR/npm-cache\" && \
         node -e \"console.log(require('dep'))\"",
        600,
    );
    assert!(out.contains("dep-loaded"), "{out}");
    assert!(tree.path("project/node_modules").is_dir());
    assert!(tree.path("project/package-lock.json").is_file());
}
