//! A hostile corpus against the kernel's half of the sandbox: Unix-socket
//! services, the network with `sandbox.network: false`, devices and ioctls,
//! `/proc` and `/sys`, namespace and capability tricks, protected paths and
//! races. Every command runs confined (whatever the gate would say, as if the
//! user had said yes) in plan, default, accept-edits and auto modes, as root
//! and again as the unprivileged uid 65534; after each one, observers outside
//! the sandbox must have seen nothing:
//!
//! - no line `ESCAPED` in the output (each probe prints it only when the
//!   forbidden step succeeded);
//! - the directory outside the project unchanged;
//! - the project's protected paths unchanged (`.git/config`, `hooks/`,
//!   `info/`), and no `.focus`, `.claude`, `.codex`, `.pi` or
//!   `.git/commondir` left in the project;
//! - no connection reached any of the Unix-socket services, the TCP or UDP
//!   listeners; no keystroke reached the terminal; the process outside is
//!   alive.

use crate::support::kernel::*;

use focus_tools::gates::Mode;
use focus_tools::sandbox::SandboxSettings;
use std::collections::BTreeMap;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Unix-socket services a desktop or a container has, served outside the
/// sandbox (in `OUT`) by the test.
const SERVICES: &[&str] = &[
    "docker.sock",
    "system_bus_socket",
    "ssh-agent.sock",
    "S.gpg-agent",
    "podman.sock",
    "containerd.sock",
    "X0",
    "wayland-0",
    "pulse-native",
    "notify",
    "mysqld.sock",
    ".s.PGSQL.5432",
    "libvirt-sock",
    "credential-cache",
];

/// The corpus. Placeholders: `OUT` (the directory outside), `S:name` (the path
/// of service `name`), `ABSTRACT` (an abstract socket's name), `TMUX` (a real
/// tmux server's socket), `TCP`/`UDP` (listener ports), `TTY` (the terminal's
/// slave), `CPID` (the process outside), `TPID` (this test process), `PY`.
const CORPUS: &[&str] = &[
    // Unix-socket services: each client a tool might use.
    "curl -s -m 3 --unix-socket S:docker.sock http://localhost/containers/json; true",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('S:system_bus_socket'); print('ESCAPED')\"",
    "SSH_AUTH_SOCK=S:ssh-agent.sock ssh-add -l; true",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect('S:S.gpg-agent'); print('ESCAPED')\"",
    "curl -s -m 3 --unix-socket S:podman.sock http://d/v4.0.0/libpod/info; true",
    "perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => \"S:containerd.sock\") and print \"ESCAPED\\n\"'",
    "DISPLAY=:0 PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('S:X0'); print('ESCAPED')\"",
    "node -e \"require('net').connect('S:wayland-0').on('connect', () => { console.log('ESCAPED'); process.exit(0) }).on('error', () => process.exit(0))\"",
    "PY -c \"from multiprocessing.connection import Client; Client('S:pulse-native'); print('ESCAPED')\"",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); print('ESCAPED'); s.sendto(b'READY=1', 'S:notify')\"",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('S:mysqld.sock'); print('ESCAPED')\"",
    "perl -e 'use Socket; socket(S, PF_UNIX, SOCK_STREAM, 0) and connect(S, pack_sockaddr_un(\"S:.s.PGSQL.5432\")) and print \"ESCAPED\\n\"'",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('S:libvirt-sock'); print('ESCAPED')\"",
    "git credential-cache --socket S:credential-cache exit; true",
    "PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0ABSTRACT'); print('ESCAPED')\"",
    "tmux -S TMUX run-shell 'touch OUT/pwned-tmux'; tmux -S TMUX new-window 'touch OUT/pwned-tmux2'; sleep 0.2",
    "cd OUT && PY -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('docker.sock'); print('ESCAPED')\"",
    // The network, off.
    "(exec 3<>/dev/tcp/127.0.0.1/TCP) && echo ESCAPED",
    "echo x > /dev/udp/127.0.0.1/UDP && echo ESCAPED",
    "curl -s -m 3 http://127.0.0.1:TCP/ && echo ESCAPED; true",
    "PY -c \"import socket; socket.create_connection(('127.0.0.1', TCP)); print('ESCAPED')\"",
    "PY -c \"import socket; s=socket.socket(socket.AF_INET6); s.connect(('::1', TCP)); print('ESCAPED')\"",
    "PY -c \"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', UDP)); print('ESCAPED')\"",
    "node -e \"require('net').connect(TCP, '127.0.0.1').on('connect', () => { console.log('ESCAPED'); process.exit(0) }).on('error', () => process.exit(0))\"",
    "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => \"127.0.0.1:TCP\") and print \"ESCAPED\\n\"'",
    "PY -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1); print('ESCAPED')\"",
    "PY -c \"import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0); print('ESCAPED')\"",
    "PY -c \"import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print('ESCAPED')\"",
    "git clone -q http://127.0.0.1:TCP/x.git \"$TMPDIR/clone\" 2>/dev/null; true",
    // Devices and ioctls.
    "mknod blk b 254 0 && echo ESCAPED",
    "mknod tty0 c 4 0 && echo ESCAPED",
    "mknod \"$TMPDIR/mem\" c 1 1 && echo ESCAPED",
    "PY -c \"import os, stat; os.mknod('dev', stat.S_IFBLK | 0o600, os.makedev(254, 0)); print('ESCAPED')\"",
    "PY -c \"import fcntl, termios; fcntl.ioctl(open('TTY', 'rb'), termios.TIOCSTI, b'X'); print('ESCAPED')\"",
    "perl -e 'open(my $t, \"<\", \"TTY\") or die; ioctl($t, 0x5412, \"Y\") and print \"ESCAPED\\n\"'",
    "PY -c \"import fcntl; fcntl.ioctl(open('TTY', 'rb'), 0x541C, bytes([3])); print('ESCAPED')\"",
    "echo typed > TTY && echo ESCAPED",
    "PY -c \"import os; os.open('/dev/vda', os.O_WRONLY); print('ESCAPED')\"",
    "PY -c \"import os; os.open('/dev/tty', os.O_RDONLY); print('ESCAPED')\"",
    "PY -c \"import os; os.open('/dev/kmsg', os.O_WRONLY); print('ESCAPED')\"",
    "losetup -f OUT/victim && echo ESCAPED",
    // /proc and /sys.
    "grep -a -l CANARY /proc/[0-9]*/environ && echo ESCAPED",
    "cat /proc/CPID/cmdline | grep -a -q CANARY && echo ESCAPED",
    "PY -c \"f=open('/proc/CPID/mem', 'rb'); print('ESCAPED')\"",
    "head -c 16 /proc/1/mem > /dev/null && echo ESCAPED",
    "grep -a -q FOCUS /proc/1/environ && echo ESCAPED",
    "ls -d /proc/CPID && echo ESCAPED",
    "ls /proc/CPID/root/ > /dev/null && echo ESCAPED",
    "PY -c \"open('/proc/sys/kernel/core_pattern', 'w'); print('ESCAPED')\"",
    "PY -c \"open('/proc/sysrq-trigger', 'w'); print('ESCAPED')\"",
    "PY -c \"open('/sys/fs/cgroup/pids/cgroup.procs', 'w'); print('ESCAPED')\"",
    "PY -c \"open('/sys/kernel/uevent_helper', 'w'); print('ESCAPED')\"",
    "echo x > /proc/1/root/OUT/victim && echo ESCAPED",
    "kill -9 CPID && echo ESCAPED",
    "kill -0 TPID && echo ESCAPED",
    "strace -p CPID -o /dev/null & sleep 0.3; kill %1 2>/dev/null; true",
    // Namespaces and capabilities.
    "unshare -U true && echo ESCAPED",
    "unshare -r touch OUT/pwned-unshare && echo ESCAPED",
    "unshare -m true && echo ESCAPED",
    "PY -c \"import ctypes; assert ctypes.CDLL(None).unshare(0x10000000) == 0; print('ESCAPED')\"",
    "nsenter -t CPID -m true && echo ESCAPED",
    "mount -t tmpfs none .git/hooks && echo ESCAPED",
    "umount .git/config && echo ESCAPED",
    "umount -l .git/hooks && echo ESCAPED",
    "mkdir -p m && mount --bind OUT m && echo ESCAPED",
    "chroot . /bin/true && echo ESCAPED",
    "setpriv --inh-caps=+all --ambient-caps=+all true && echo ESCAPED",
    "awk '/^Cap(Eff|Prm|Bnd|Amb)/ && $2 != \"0000000000000000\" {print \"ESCAPED\"}' /proc/self/status",
    "PY -c \"import ctypes; assert ctypes.CDLL(None).ptrace(16, CPID, 0, 0) == 0; print('ESCAPED')\"",
    "PY -c \"import ctypes; assert ctypes.CDLL(None).syscall(425, 8, ctypes.create_string_buffer(120)) >= 0; print('ESCAPED')\"",
    "PY -c \"import ctypes; assert ctypes.CDLL(None).syscall(250, 0, -3, 0) >= 0; print('ESCAPED')\"",
    "insmod /nonexistent.ko; modprobe -q loop && echo ESCAPED; true",
    // Protected paths and races.
    "echo '[core] fsmonitor = touch OUT/pwned-fsmonitor' >> .git/config && echo ESCAPED",
    "git config alias.st '!touch OUT/pwned-alias' && echo ESCAPED",
    "echo 'touch OUT/pwned-hook' > .git/hooks/post-checkout && echo ESCAPED",
    "echo '* diff=evil' > .git/info/attributes && echo ESCAPED",
    "mv .git .git-away && echo ESCAPED",
    "rm -rf .git/hooks && ln -s OUT .git/hooks && echo ESCAPED",
    "ln .git/config hard && echo x >> hard && echo ESCAPED",
    "cp OUT/victim .git/config && echo ESCAPED",
    "PY -c \"import os; open('c', 'w').write('[core]'); os.rename('c', '.git/config'); print('ESCAPED')\"",
    "(sleep 0.3; echo '[core] pager = x' >> .git/config; touch .git/hooks/pre-commit) & sleep 0.6",
    "mkdir -p .git/hooks2 && git config core.hooksPath .git/hooks2 && echo ESCAPED",
    "echo \"$TMPDIR\" > .git/commondir",
    "mkdir -p .focus && echo '{\"sandbox\":{\"enabled\":false}}' > .focus/settings.json",
    "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json",
    "mkdir .codex .pi",
];

/// Abstract-socket, Unix-socket services and the other observers of one tree.
struct World {
    services: Vec<SocketServer>,
    abstract_count: Arc<AtomicUsize>,
    abstract_name: String,
    net: NetListeners,
    terminal: Terminal,
    canary: Canary,
    tmux: std::path::PathBuf,
}

impl World {
    fn start(tree: &crate::support::common::TempTree) -> World {
        use std::os::linux::net::SocketAddrExt;
        let services = SERVICES
            .iter()
            .map(|name| SocketServer::start(tree.path("outside").join(name)))
            .collect();
        let abstract_name = format!("focus-test-{}-{}", std::process::id(), tree.root.display());
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes())
            .expect("an abstract name");
        let listener = UnixListener::bind_addr(&addr).expect("an abstract socket");
        let abstract_count = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&abstract_count);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        let tmux = tree.path("outside/tmux.sock");
        let _ = Command::new("tmux")
            .env("SHELL", "/bin/sh")
            .arg("-S")
            .arg(&tmux)
            .args(["new-session", "-d", "-s", "t", "sleep 600"])
            .status();
        World {
            services,
            abstract_count,
            abstract_name,
            net: NetListeners::start(),
            terminal: Terminal::start(&tree.root).expect("a pty"),
            canary: Canary::start("corpus"),
            tmux,
        }
    }

    /// Everything the observers have seen, as one comparable text.
    fn seen(&self) -> String {
        let services: Vec<usize> = self.services.iter().map(SocketServer::count).collect();
        format!(
            "services {services:?} abstract {} net {} typed {:?}",
            self.abstract_count.load(Ordering::SeqCst),
            self.net.count(),
            self.terminal.typed()
        )
    }

    fn fill(&self, template: &str, out: &Path) -> String {
        let mut command = template.to_string();
        for name in SERVICES {
            command = command.replace(&format!("S:{name}"), &out.join(name).display().to_string());
        }
        command
            .replace("ABSTRACT", &self.abstract_name)
            .replace("TMUX", &self.tmux.display().to_string())
            .replace("OUT", &out.display().to_string())
            .replace("TCP", &self.net.tcp_port.to_string())
            .replace("UDP", &self.net.udp_port.to_string())
            .replace("TTY", &self.terminal.slave)
            .replace("CPID", &self.canary.pid().to_string())
            .replace("CANARY", &self.canary.value)
            .replace("TPID", &std::process::id().to_string())
            .replace("PY", PY)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.tmux)
            .arg("kill-server")
            .status();
    }
}

/// The outside directory and the project's protected paths, as text.
fn state(out: &Path, project: &Path) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut stack = vec![out.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let what = if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else if meta.is_file() {
                format!("{:?}", std::fs::read(&path).unwrap_or_default())
            } else {
                "other".to_string()
            };
            map.insert(path.display().to_string(), what);
        }
    }
    for rel in [".git/config", ".git/hooks", ".git/info", ".git/HEAD"] {
        let path = project.join(rel);
        let what = if path.is_dir() {
            let mut names: Vec<String> = std::fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            format!("dir {names:?} link={}", path.is_symlink())
        } else {
            format!("{:?}", std::fs::read(&path).ok())
        };
        map.insert(rel.to_string(), what);
    }
    for name in [
        ".focus",
        ".claude",
        ".codex",
        ".pi",
        ".git/commondir",
        ".git-away",
    ] {
        map.insert(
            name.to_string(),
            std::fs::symlink_metadata(project.join(name))
                .is_ok()
                .to_string(),
        );
    }
    map
}

fn run_corpus(mode: Mode) {
    let settings = SandboxSettings {
        network: false,
        ..SandboxSettings::default()
    };
    let Some((tree, sandbox)) =
        confined(&format!("corpus-{}", mode.as_str()), settings, mode, true)
    else {
        return;
    };
    let mut world = World::start(&tree);
    let out = tree.path("outside");
    let project = tree.path("project");
    let mut escapes = Vec::new();
    for template in CORPUS {
        let command = world.fill(template, &out);
        let (seen, before) = (world.seen(), state(&out, &project));
        let output = bash(&sandbox, &project, &command, 20);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let after = state(&out, &project);
        let mut broken = Vec::new();
        if output.lines().any(|l| l.trim() == "ESCAPED") {
            broken.push("printed ESCAPED".to_string());
        }
        if world.seen() != seen {
            broken.push(format!("observers saw {} (before: {seen})", world.seen()));
        }
        if !world.canary.alive() {
            broken.push("the process outside died".to_string());
        }
        let changed: Vec<&String> = after
            .keys()
            .chain(before.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .collect();
        if !changed.is_empty() {
            broken.push(format!("changed {changed:?}"));
        }
        // Nothing a command leaves in the project counts for the next one.
        let _ = Command::new("git")
            .args(["clean", "-qfdx"])
            .current_dir(&project)
            .status();
        if !broken.is_empty() {
            escapes.push(format!(
                "[{}] `{template}`: {}\n    {}",
                mode.as_str(),
                broken.join("; "),
                output.chars().take(400).collect::<String>()
            ));
        }
    }
    assert!(
        escapes.is_empty(),
        "{} escapes of {}:\n{}",
        escapes.len(),
        CORPUS.len(),
        escapes.join("\n")
    );
}

#[test]
fn the_corpus_has_at_least_sixty_escapes() {
    assert!(CORPUS.len() >= 60, "{}", CORPUS.len());
}

#[test]
fn corpus_in_plan_mode() {
    run_corpus(Mode::Plan);
    also_as_unprivileged_user("sandbox_kernel_corpus::corpus_in_plan_mode");
}

#[test]
fn corpus_in_default_mode() {
    run_corpus(Mode::Default);
    also_as_unprivileged_user("sandbox_kernel_corpus::corpus_in_default_mode");
}

#[test]
fn corpus_in_accept_edits_mode() {
    run_corpus(Mode::AcceptEdits);
    also_as_unprivileged_user("sandbox_kernel_corpus::corpus_in_accept_edits_mode");
}

#[test]
fn corpus_in_auto_mode() {
    run_corpus(Mode::Auto);
    also_as_unprivileged_user("sandbox_kernel_corpus::corpus_in_auto_mode");
}
