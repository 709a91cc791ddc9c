//! Helpers for the kernel sandbox's hostile tests: a confined bash in a fresh
//! tree, observers outside the sandbox (a Unix-socket server, TCP and UDP
//! listeners, a terminal, a process holding a canary in its environment), and
//! running a test again as an unprivileged user.

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use focus_core::json_object;
use focus_tools::bash::BashTool;
use focus_tools::gates::Mode;
use focus_tools::sandbox::{Sandbox, SandboxSettings};

use super::common::{call, TempTree};

/// The Python used by the probes (the system's, not a per-user shim).
pub const PY: &str = "/usr/bin/python3";

/// A project (`project/`, a git repository with one commit when `git`), a
/// directory outside it (`outside/victim`), and a sandbox for `mode`; `None`
/// (with a visible SKIPPED line) where the kernel cannot confine.
pub fn confined(
    name: &str,
    settings: SandboxSettings,
    mode: Mode,
    git: bool,
) -> Option<(TempTree, Arc<Sandbox>)> {
    let tree = TempTree::new(name);
    tree.write("outside/victim", "original\n");
    tree.write("project/f", "original\n");
    tree.mkdir("tmp");
    if git {
        git_init(&tree.path("project"));
    }
    let sandbox = Sandbox::with_temp_base(&settings, &tree.path("project"), &tree.path("tmp"))
        .expect("sandbox");
    if !sandbox.is_enforcing() || !sandbox.kernel_support().protects_paths() {
        focus_testkit::skipped(&sandbox.describe());
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true: the kernel sandbox must be testable here");
        }
        return None;
    }
    sandbox.set_mode(mode);
    Some((tree, Arc::new(sandbox)))
}

/// `git init` with one commit, as a user would have it.
pub fn git_init(dir: &Path) {
    for args in [
        &["-c", "init.defaultBranch=main", "init", "-q"][..],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ][..],
    ] {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?} failed");
    }
}

/// Runs `command` with the bash tool in `cwd`, confined by `sandbox`; the
/// result's text (output, exit code, notes).
pub fn bash(sandbox: &Arc<Sandbox>, cwd: &Path, command: &str, timeout: u64) -> String {
    let tool = BashTool::new(
        cwd.to_path_buf(),
        focus_tools::ToolState::new(Arc::clone(sandbox)),
    );
    call(
        &tool,
        json_object! {"command" => command, "timeout" => timeout},
    )
    .text_content()
}

/// A Unix-socket server outside the sandbox counting the connections it took.
pub struct SocketServer {
    pub path: PathBuf,
    pub accepted: Arc<AtomicUsize>,
}

impl SocketServer {
    /// Listens on `path` (made world-writable, as a user's service socket is
    /// for the user) on a thread of its own.
    pub fn start(path: PathBuf) -> SocketServer {
        use std::os::unix::fs::PermissionsExt;
        let listener = UnixListener::bind(&path).expect("bind a Unix socket");
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777));
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        SocketServer { path, accepted }
    }

    /// Connections taken so far.
    pub fn count(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// TCP and UDP listeners on 127.0.0.1 counting what reached them.
pub struct NetListeners {
    pub tcp_port: u16,
    pub udp_port: u16,
    pub reached: Arc<AtomicUsize>,
}

impl NetListeners {
    pub fn start() -> NetListeners {
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").expect("tcp");
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").expect("udp");
        let (tcp_port, udp_port) = (
            tcp.local_addr().unwrap().port(),
            udp.local_addr().unwrap().port(),
        );
        let reached = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&reached);
        std::thread::spawn(move || {
            for stream in tcp.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        let count = Arc::clone(&reached);
        std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            while udp.recv(&mut buf).is_ok() {
                count.fetch_add(1, Ordering::SeqCst);
            }
        });
        NetListeners {
            tcp_port,
            udp_port,
            reached,
        }
    }

    pub fn count(&self) -> usize {
        self.reached.load(Ordering::SeqCst)
    }
}

/// A terminal outside the sandbox: a Python process holding a pty's master
/// and writing everything typed into it to `log` (the slave's path is in
/// `slave`). Killed on drop.
pub struct Terminal {
    child: Child,
    pub slave: String,
    pub log: PathBuf,
}

impl Terminal {
    pub fn start(dir: &Path) -> Option<Terminal> {
        let log = dir.join("typed.log");
        let script = format!(
            "import os, select, sys\n\
             m, s = os.openpty()\n\
             os.chmod(os.ttyname(s), 0o666)\n\
             print(os.ttyname(s), flush=True)\n\
             log = open({log:?}, 'ab', buffering=0)\n\
             while True:\n\
             \x20   r, _, _ = select.select([m], [], [], 600)\n\
             \x20   if not r: break\n\
             \x20   log.write(os.read(m, 1024))\n",
            log = log.display().to_string()
        );
        let mut child = Command::new(PY)
            .args(["-c", &script])
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let mut name = Vec::new();
        let mut out = child.stdout.take()?;
        let mut byte = [0u8; 1];
        while out.read(&mut byte).ok()? == 1 && byte[0] != b'\n' {
            name.push(byte[0]);
        }
        Some(Terminal {
            child,
            slave: String::from_utf8(name).ok()?,
            log,
        })
    }

    /// What reached the terminal's input so far.
    pub fn typed(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A process outside the sandbox with `canary` in its environment and its
/// arguments (as a shell started by the user with a key would have).
pub struct Canary {
    child: Child,
    pub value: String,
}

impl Canary {
    pub fn start(tag: &str) -> Canary {
        let value = format!("canary-{tag}-{}", std::process::id());
        // `sleep 600` named VALUE: in its environment and its command line.
        let child = Command::new("bash")
            .args(["-c", "exec -a \"$0\" sleep 600", &value])
            .env("FOCUS_TEST_CANARY", &value)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("a process outside");
        Canary { child, value }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still alive.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether this test process runs as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

/// When running as root, runs the test `name` (its full path in this binary)
/// again as the unprivileged uid 65534 (`setpriv`) and asserts that it passed
/// there too. Does nothing when already unprivileged.
pub fn also_as_unprivileged_user(name: &str) {
    if !is_root() || std::env::var_os("FOCUS_TEST_AS_USER").is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&exe)
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("FOCUS_TEST_AS_USER", "1")
        .env("HOME", "/tmp")
        .env("TMPDIR", "/tmp")
        // uid 65534's login shell is nologin; a real user has a shell.
        .env("SHELL", "/bin/sh")
        .output();
    let Ok(out) = out else {
        focus_testkit::skipped("as an unprivileged user: no setpriv");
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} as uid 65534 failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stdout.contains("SKIPPED") && !stderr.contains("SKIPPED"),
        "{name} was skipped as uid 65534:\n{stdout}\n{stderr}"
    );
}

/// Waits up to `within` for `done` to hold.
pub fn wait_until(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// Pids of processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            out.push(pid);
        }
    }
    out
}
