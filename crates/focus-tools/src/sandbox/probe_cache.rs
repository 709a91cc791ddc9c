//! The namespace probe, remembered while nothing it depends on changes.
//!
//! Which namespaces a tool's jail may use is found by trying them once in a
//! throw-away child ([`focus_sys::namespaces::probe`]): a few forks, a mount
//! namespace and a `/proc` mount, some 2–4 ms of CPU. A headless run pays it
//! at start (the start-up warning needs the answer) even when it never runs a
//! tool; a batch of a thousand runs pays it a thousand times for the same
//! answer. So a probe that found **everything working** (mounts and a PID
//! namespace) is written to a file in the user's own state folder
//! (`FOCUS_HOME/state/sandbox-probe`), under a key of everything the answer
//! depends on, and later sessions with the same key reuse it:
//!
//! - the boot (`/proc/sys/kernel/random/boot_id`) and the kernel
//!   (`osrelease`): a reboot or another kernel probes again;
//! - who asks: the `Uid`, `Gid`, `CapEff`, `NoNewPrivs` and `Seccomp` lines of
//!   `/proc/self/status`, and the security label (`/proc/self/attr/current`);
//! - where: the user, mount and PID namespaces focus runs in (another
//!   container, another key);
//! - the switches that turn namespaces off: `kernel.unprivileged_userns_clone`,
//!   `kernel.apparmor_restrict_unprivileged_userns`, and `user.max_user_namespaces`,
//!   `max_mnt_namespaces` and `max_pid_namespaces`;
//! - this module's format and focus-tools' version.
//!
//! What is never cached: a probe that found less (no namespaces, or mounts
//! without a PID namespace). That may have been a passing failure (a full
//! process table), and remembering it would weaken every later session's
//! jail; it is probed again each time, and the start-up warning says what is
//! missing each time.
//!
//! The file is the user's, not the project's: it lives under `FOCUS_HOME`,
//! never in a repository, and anything in it but an exact match of the key
//! and a well-formed answer is ignored (probed again, then overwritten). A
//! wrong "everything works" can only make a jailed spawn fail (the jail
//! refuses to run a command with less confinement than planned; see
//! `focus_sys::jail`), never run one with less; a `bash` call that could not
//! start removes the file ([`super::Sandbox::forget_remembered_probe`]), so
//! the next session probes again.

#[cfg(target_os = "linux")]
use focus_sys::namespaces::Support;
use std::path::Path;

/// The file's name in the state folder.
pub const FILE_NAME: &str = "sandbox-probe";

/// The first line of the file: the format.
const FORMAT: &str = "focus sandbox probe, format 1";

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Probed now.
    Probed,
    /// Read from the state folder's file.
    Remembered,
}

/// The namespaces the jail may use: read from `state_dir`'s file when its key
/// matches, else probed (and written there when everything works).
#[cfg(target_os = "linux")]
pub fn namespaces(state_dir: Option<&Path>) -> (Option<Support>, Source) {
    let Some(dir) = state_dir else {
        return (focus_sys::namespaces::probe(), Source::Probed);
    };
    let key = environment_key();
    let file = dir.join(FILE_NAME);
    if let Some(support) = std::fs::read_to_string(&file)
        .ok()
        .and_then(|text| parse(&text, &key))
    {
        return (Some(support), Source::Remembered);
    }
    let found = focus_sys::namespaces::probe();
    if let Some(support) = found.filter(|s| worth_remembering(*s)) {
        remember(dir, &file, &render(&key, support));
    }
    (found, Source::Probed)
}

/// Only an answer with everything working is remembered (see the module docs).
#[cfg(target_os = "linux")]
fn worth_remembering(support: Support) -> bool {
    support.mounts && support.pids
}

/// Everything the probe's answer depends on, one `name=value` a line.
pub fn environment_key() -> String {
    let read = |path: &str| {
        std::fs::read_to_string(path).map_or_else(|_| "-".to_string(), |t| t.trim().to_string())
    };
    let link = |path: &str| {
        std::fs::read_link(path).map_or_else(|_| "-".to_string(), |t| t.display().to_string())
    };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mut key = vec![
        format!("version={}", env!("CARGO_PKG_VERSION")),
        format!("boot={}", read("/proc/sys/kernel/random/boot_id")),
        format!("kernel={}", read("/proc/sys/kernel/osrelease")),
    ];
    for name in ["Uid", "Gid", "CapEff", "NoNewPrivs", "Seccomp"] {
        let value = status
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map_or("-".to_string(), |v| {
                v.split_whitespace().collect::<Vec<_>>().join(" ")
            });
        key.push(format!("{name}={value}"));
    }
    key.push(format!("label={}", read("/proc/self/attr/current")));
    for ns in ["user", "mnt", "pid"] {
        key.push(format!("ns.{ns}={}", link(&format!("/proc/self/ns/{ns}"))));
    }
    for sysctl in [
        "kernel/unprivileged_userns_clone",
        "kernel/apparmor_restrict_unprivileged_userns",
        "user/max_user_namespaces",
        "user/max_mnt_namespaces",
        "user/max_pid_namespaces",
    ] {
        key.push(format!("{sysctl}={}", read(&format!("/proc/sys/{sysctl}"))));
    }
    // No line may break the file's format (a label with a newline).
    key.iter()
        .map(|l| l.replace(['\n', '\r'], " "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file's text for `support` under `key`.
#[cfg(target_os = "linux")]
fn render(key: &str, support: Support) -> String {
    format!(
        "{FORMAT}\n{key}\nanswer mounts={} pids={} user={}\n",
        u8::from(support.mounts),
        u8::from(support.pids),
        u8::from(support.user)
    )
}

/// The answer in `text`, if its key is exactly `key` and the answer says
/// everything works; `None` for anything else.
#[cfg(target_os = "linux")]
fn parse(text: &str, key: &str) -> Option<Support> {
    let body = text.strip_prefix(FORMAT)?.strip_prefix('\n')?;
    let rest = body.strip_prefix(key)?.strip_prefix('\n')?;
    let answer = rest.strip_suffix('\n')?.strip_prefix("answer ")?;
    let user = match answer {
        "mounts=1 pids=1 user=0" => false,
        "mounts=1 pids=1 user=1" => true,
        _ => return None,
    };
    Some(Support {
        mounts: true,
        pids: true,
        user,
    })
}

/// Writes `text` to `file` in `dir` (made private if new) through a
/// temporary file and a rename, so a reader sees the old file or the new one;
/// failures are ignored (the next session probes again).
fn remember(dir: &Path, file: &Path, text: &str) {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .is_err()
    {
        return;
    }
    let temp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temp)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if written.is_err() || std::fs::rename(&temp, file).is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn all(user: bool) -> Support {
        Support {
            mounts: true,
            pids: true,
            user,
        }
    }

    #[test]
    fn an_answer_is_read_back_only_under_the_same_key() {
        let key = environment_key();
        for user in [false, true] {
            let text = render(&key, all(user));
            assert_eq!(parse(&text, &key), Some(all(user)));
            assert_eq!(parse(&text, &format!("{key}x")), None, "another key");
        }
        let text = render(&key, all(false));
        assert_eq!(parse(&text.replace("pids=1", "pids=0"), &key), None);
        assert_eq!(parse(&text.replace("format 1", "format 2"), &key), None);
        assert_eq!(parse(&format!("{text}extra\n"), &key), None);
        assert_eq!(parse("", &key), None);
        assert_eq!(parse(&text[..text.len() / 2], &key), None, "a torn file");
    }

    #[test]
    fn less_than_everything_is_never_remembered_nor_read_back() {
        let key = environment_key();
        for (mounts, pids) in [(true, false), (false, false), (false, true)] {
            for user in [false, true] {
                let less = Support { mounts, pids, user };
                assert!(!worth_remembering(less), "{less:?}");
                // Nor would such a file be believed, were one written by hand.
                assert_eq!(parse(&render(&key, less), &key), None, "{less:?}");
            }
        }
        assert!(worth_remembering(all(false)) && worth_remembering(all(true)));
    }

    #[test]
    fn the_key_names_the_boot_the_kernel_and_the_namespaces() {
        let key = environment_key();
        for part in ["boot=", "kernel=", "Uid=", "Seccomp=", "ns.mnt=", "ns.pid="] {
            assert!(
                key.lines().any(|l| l.starts_with(part)),
                "{part} missing: {key}"
            );
        }
        assert_eq!(key, environment_key(), "the same process, the same key");
    }

    #[test]
    fn only_a_full_answer_is_remembered_and_a_stale_file_is_replaced() {
        let dir = std::env::temp_dir().join(format!("focus-probe-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join(FILE_NAME);
        // A file under another key (another boot) is not believed.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&file, render("boot=another", all(true))).unwrap();
        let (probed, source) = namespaces(Some(&dir));
        assert_eq!(source, Source::Probed);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        match probed {
            Some(s) if s.mounts && s.pids => {
                assert_eq!(parse(&text, &environment_key()), Some(s), "rewritten");
                let (again, source) = namespaces(Some(&dir));
                assert_eq!((again, source), (Some(s), Source::Remembered));
            }
            _ => assert!(
                text.contains("boot=another"),
                "less than all is never written"
            ),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_sandbox_that_could_not_start_a_command_forgets_a_remembered_answer() {
        use crate::sandbox::{Sandbox, SandboxSettings};
        let dir = std::env::temp_dir().join(format!("focus-probe-forget-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("project")).unwrap();
        let settings = SandboxSettings {
            state_dir: Some(dir.join("state")),
            ..SandboxSettings::default()
        };
        let first = Sandbox::with_temp_base(&settings, &dir.join("project"), &dir).unwrap();
        assert_eq!(first.kernel_support().remembered_in, None, "probed now");
        assert_eq!(first.forget_remembered_probe(), None, "nothing to forget");
        if !dir.join("state").join(FILE_NAME).exists() {
            eprintln!("SKIPPED: namespaces do not all work here, so nothing is remembered");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        let second = Sandbox::with_temp_base(&settings, &dir.join("project"), &dir).unwrap();
        assert_eq!(
            second.kernel_support().namespaces,
            first.kernel_support().namespaces
        );
        assert_eq!(
            second.kernel_support().remembered_in,
            Some(dir.join("state").join(FILE_NAME))
        );
        let note = second.forget_remembered_probe().expect("a note");
        assert!(note.contains("probes them again"), "{note}");
        assert!(!dir.join("state").join(FILE_NAME).exists());
        assert_eq!(second.forget_remembered_probe(), None, "once");
        drop((first, second));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
