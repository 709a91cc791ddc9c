//! Keys out of the process environment, where children and `/proc` cannot see them.
//!
//! A process's environment is readable by every process of the same user
//! through `/proc/PID/environ`, and it is inherited by every child. An API key
//! in focus's environment would be one `cat /proc/$PPID/environ` away from the
//! model. Removing the variable with `std::env::remove_var` is not enough: the
//! kernel shows the environment block the process was *started* with.
//!
//! So [`hide_keys`], called first thing in `main`, moves every key variable into
//! a vault in memory and removes it from the environment, then wipes it from
//! what `/proc` shows:
//!
//! - **in place** (Linux): `/proc/PID/environ` is the memory between the
//!   process's `env_start` and `env_end` (fields 50 and 51 of
//!   `/proc/self/stat`), the strings the kernel copied at `exec`. Each key's
//!   whole `NAME=value` string there is overwritten with zero bytes through
//!   `/proc/self/mem` (writing one's own memory; no `unsafe`, and nothing
//!   points at those bytes any more once the variable is removed), and
//!   `/proc/self/environ` is read again to check that no key is left;
//! - **by a restart**, where that is not possible or the check fails (a
//!   kernel that refuses writes to `/proc/self/mem`, another system): focus
//!   starts again without them; the values go into a pipe, the pipe's read
//!   end is inherited across `exec` (its number in `FOCUS_KEYS_FD`), and the
//!   new process image reads them back and closes the pipe. Its
//!   `/proc/PID/environ` never held a key.
//!
//! Either way the key was visible only between `exec` and the first lines of
//! `main`. The in-place wipe saves a second `exec` of focus (about a
//! millisecond of CPU at each start, which a batch of runs pays every time).
//! Code that needs a key asks [`var`], which looks in the vault before the
//! environment. [`values`] lists every hidden value, so outputs can be
//! scrubbed of them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::raw::c_int;
use std::sync::{Mutex, MutexGuard};

/// The variable that carries the pipe's descriptor number across `exec`.
pub const FD_VARIABLE: &str = "FOCUS_KEYS_FD";

/// The most bytes of keys passed through the pipe (its buffer must hold them
/// all, since nobody reads until after `exec`).
const MAX_PAYLOAD: usize = 32 * 1024;

static VAULT: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
static EXTRA_VALUES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn vault() -> MutexGuard<'static, BTreeMap<String, String>> {
    VAULT.lock().unwrap_or_else(|p| p.into_inner())
}

/// What [`hide_keys`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Hidden {
    /// No key variable was set.
    Nothing,
    /// The keys' strings were wiped from the environment block `/proc`
    /// shows, which was checked afterwards (this many variables).
    Wiped(usize),
    /// The keys were read back from the pipe after the restart: `/proc` never
    /// saw them in this process image.
    Restarted(usize),
    /// Restarting failed; the keys are in the vault and removed from the
    /// environment for children, but this process's `/proc/PID/environ`
    /// still shows them. The text says why.
    InMemoryOnly(String),
}

/// Moves every environment variable for which `is_key(name)` holds into the
/// vault and restarts the program without them (see the module docs). Returns
/// only in the restarted process (or when there was nothing to hide, or the
/// restart failed).
pub fn hide_keys(is_key: &dyn Fn(&str) -> bool) -> Hidden {
    if let Some(fd_text) = std::env::var_os(FD_VARIABLE) {
        std::env::remove_var(FD_VARIABLE);
        return match read_back(&fd_text) {
            Ok(count) => Hidden::Restarted(count),
            Err(e) => Hidden::InMemoryOnly(format!("could not read the keys back: {e}")),
        };
    }
    let keys: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .filter(|(name, value)| is_key(name) && !value.is_empty())
        .collect();
    if keys.is_empty() {
        return Hidden::Nothing;
    }
    {
        let mut vault = vault();
        for (name, value) in &keys {
            vault.insert(name.clone(), value.clone());
            std::env::remove_var(name);
        }
    }
    let names: Vec<&str> = keys.iter().map(|(name, _)| name.as_str()).collect();
    if wipe_in_place(&names).is_ok() {
        return Hidden::Wiped(keys.len());
    }
    let why = restart_without(&keys);
    Hidden::InMemoryOnly(why.to_string())
}

/// The name of an environment entry (`NAME=value`).
fn entry_name(entry: &[u8]) -> &[u8] {
    entry.split(|b| *b == b'=').next().unwrap_or(entry)
}

/// Overwrites every `NAME=value` string of the environment block the kernel
/// shows in `/proc/self/environ` whose name is one of `names` with zero
/// bytes, then checks that none is left (see the module docs). Only sound
/// while no other thread reads the environment: called first thing in `main`,
/// after the variables were removed (nothing points at those bytes then).
#[cfg(target_os = "linux")]
fn wipe_in_place(names: &[&str]) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let hidden = |entry: &[u8]| names.iter().any(|n| n.as_bytes() == entry_name(entry));
    let block = std::fs::read("/proc/self/environ")?;
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name (which may hold spaces and parentheses)
    // start at field 3; env_start and env_end are fields 50 and 51.
    let after_name = stat
        .rfind(')')
        .map(|i| &stat[i + 1..])
        .ok_or_else(|| io::Error::other("/proc/self/stat has no command name"))?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |n: usize| -> io::Result<u64> {
        fields
            .get(n - 3)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| io::Error::other(format!("/proc/self/stat has no field {n}")))
    };
    let (start, end) = (field(50)?, field(51)?);
    if end.checked_sub(start) != Some(block.len() as u64) {
        return Err(io::Error::other(
            "the environment block is not where /proc/self/stat says",
        ));
    }
    let mut memory = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/self/mem")?;
    let mut offset = 0u64;
    for entry in block.split(|b| *b == 0) {
        if !entry.is_empty() && hidden(entry) {
            memory.seek(SeekFrom::Start(start + offset))?;
            memory.write_all(&vec![0u8; entry.len()])?;
        }
        offset += entry.len() as u64 + 1;
    }
    let now = std::fs::read("/proc/self/environ")?;
    if now.split(|b| *b == 0).any(|e| !e.is_empty() && hidden(e)) {
        return Err(io::Error::other("a key is still in /proc/self/environ"));
    }
    Ok(())
}

/// No in-place wipe outside Linux: the caller restarts instead.
#[cfg(not(target_os = "linux"))]
fn wipe_in_place(_names: &[&str]) -> io::Result<()> {
    Err(io::Error::other("no /proc/self/mem here"))
}

/// Writes the keys into a pipe and replaces this process image with a fresh
/// copy of the program; returns only on failure.
fn restart_without(keys: &[(String, String)]) -> io::Error {
    let mut payload = Vec::new();
    for (name, value) in keys {
        if name.contains(['=', '\0']) || value.contains('\0') {
            continue;
        }
        payload.extend_from_slice(name.as_bytes());
        payload.push(b'=');
        payload.extend_from_slice(value.as_bytes());
        payload.push(0);
    }
    if payload.len() > MAX_PAYLOAD {
        return io::Error::other("the keys are too large to pass through a pipe");
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return e,
    };
    let (reader, writer) = match inheritable_pipe() {
        Ok(pair) => pair,
        Err(e) => return e,
    };
    let mut writer = std::fs::File::from(writer);
    if let Err(e) = writer.write_all(&payload) {
        return e;
    }
    drop(writer);
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| OsString::from("focus"));
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(exe)
        .arg0(arg0)
        .args(args)
        .env(FD_VARIABLE, reader.as_raw_fd().to_string())
        .exec();
    drop(reader);
    error
}

/// Reads `NAME=VALUE\0…` from the inherited descriptor named by `fd_text`.
fn read_back(fd_text: &std::ffi::OsStr) -> io::Result<usize> {
    let fd: c_int = fd_text
        .to_str()
        .and_then(|t| t.parse().ok())
        .filter(|fd| *fd > 2)
        .ok_or_else(|| io::Error::other(format!("{FD_VARIABLE} is not a descriptor number")))?;
    let owned = take_inherited(fd)?;
    let mut payload = Vec::new();
    std::fs::File::from(owned).read_to_end(&mut payload)?;
    let mut vault = vault();
    let mut count = 0;
    for entry in payload.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let text = String::from_utf8_lossy(entry);
        if let Some((name, value)) = text.split_once('=') {
            vault.insert(name.to_string(), value.to_string());
            count += 1;
        }
    }
    Ok(count)
}

/// A key variable's value: from the vault if [`hide_keys`] moved it there, else
/// from the environment.
pub fn var(name: &str) -> Option<String> {
    if let Some(value) = vault().get(name) {
        return Some(value.clone());
    }
    std::env::var(name).ok()
}

/// Puts a key into the vault (for tests, and for keys that come from a file
/// rather than the environment: they are then scrubbed like the others).
pub fn remember(name: &str, value: &str) {
    vault().insert(name.to_string(), value.to_string());
}

/// Records a key value that has no variable (a literal `apiKey` from
/// models.json, the output of a key command), so [`values`] lists it.
pub fn remember_value(value: &str) {
    let mut extra = EXTRA_VALUES.lock().unwrap_or_else(|p| p.into_inner());
    if !extra.iter().any(|v| v == value) {
        extra.push(value.to_string());
    }
}

/// Every key value known: hidden variables and remembered values.
pub fn values() -> Vec<String> {
    let mut all: Vec<String> = vault().values().cloned().collect();
    all.extend(
        EXTRA_VALUES
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned(),
    );
    all
}

/// The names of the variables in the vault.
pub fn hidden_names() -> Vec<String> {
    vault().keys().cloned().collect()
}

extern "C" {
    fn pipe(fds: *mut c_int) -> c_int;
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
}

/// `F_GETFD`: the same number on Linux, macOS and the BSDs.
const F_GETFD: c_int = 1;
/// `F_SETFD`: the same number on Linux, macOS and the BSDs.
const F_SETFD: c_int = 2;
/// `FD_CLOEXEC`: the same bit on Linux, macOS and the BSDs.
const FD_CLOEXEC: c_int = 1;

/// A pipe whose read end survives `exec` and whose write end does not.
fn inheritable_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [c_int; 2] = [-1, -1];
    // SAFETY: `fds` is a writable array of two ints, as pipe(2) requires.
    if unsafe { pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe(2) just returned these two descriptors; nothing else owns them.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // pipe(2) sets no close-on-exec flag; set it on the write end only.
    // SAFETY: fcntl with integer arguments on a descriptor we own.
    if unsafe { fcntl(writer.as_raw_fd(), F_SETFD, FD_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((reader, writer))
}

/// Takes ownership of descriptor `fd`, inherited across `exec`, after checking
/// that it is open, and marks it close-on-exec so no child inherits it.
fn take_inherited(fd: c_int) -> io::Result<OwnedFd> {
    // SAFETY: F_GETFD only reads the flags of a descriptor number; an unused
    // number yields an error, not undefined behaviour.
    if unsafe { fcntl(fd, F_GETFD) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: F_SETFD sets a flag on an open descriptor.
    if unsafe { fcntl(fd, F_SETFD, FD_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor is open (checked above) and was created for this
    // hand-over by our previous process image; nothing else in this process
    // knows its number, so taking ownership cannot double-close.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vault_answers_before_the_environment() {
        remember("FOCUS_SYS_TEST_KEY", "vaulted-value-1234");
        assert_eq!(
            var("FOCUS_SYS_TEST_KEY").as_deref(),
            Some("vaulted-value-1234")
        );
        remember_value("literal-key-5678");
        let all = values();
        assert!(all.iter().any(|v| v == "vaulted-value-1234"));
        assert!(all.iter().any(|v| v == "literal-key-5678"));
        assert!(hidden_names().iter().any(|n| n == "FOCUS_SYS_TEST_KEY"));
    }

    #[test]
    fn a_pipe_carries_keys_through_an_inherited_descriptor() {
        let (reader, writer) = inheritable_pipe().unwrap();
        let mut writer = std::fs::File::from(writer);
        writer.write_all(b"FOCUS_SYS_PIPE_KEY=v=1\0").unwrap();
        drop(writer);
        let fd = reader.as_raw_fd();
        std::mem::forget(reader); // read_back takes ownership, as after exec
        let count = read_back(std::ffi::OsStr::new(&fd.to_string())).unwrap();
        assert_eq!(count, 1);
        assert_eq!(var("FOCUS_SYS_PIPE_KEY").as_deref(), Some("v=1"));
        assert!(read_back(std::ffi::OsStr::new("2")).is_err());
        assert!(read_back(std::ffi::OsStr::new("x")).is_err());
    }
}
