//! The environment that keeps git from running programs its configuration
//! names, for commands that are supposed to only read.
//!
//! git ≥ 2.31 reads `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>` and
//! `GIT_CONFIG_VALUE_<n>` as configuration of the "command" scope, which is
//! read last and so overrides the repository's own `config` (git-config(1),
//! ENVIRONMENT). [`apply`] sets them for every key git documents as naming a
//! program it may run while inspecting (fsmonitor, pager, editor, hooks,
//! credential helper, ssh command, gpg…), ignores the system
//! and global configuration (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`,
//! `GIT_ATTR_NOSYSTEM`), refuses bare repositories found by discovery
//! (`safe.bareRepository=explicit`), and removes the variables that point git
//! elsewhere (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_CONFIG_PARAMETERS`, which is what
//! `git -c` passes on…). Child git processes (submodules) inherit all of it.
//!
//! Keys named by the repository (`diff.<driver>.textconv`, `filter.<driver>.*`)
//! cannot be listed here, and `diff.external` cannot be unset (an empty value
//! makes every `git diff` fail): [`crate::gates::git_guard`] looks for them in
//! the repository's files before a command is judged read-only.
//!
//! Where it applies (`bash::run_command`): every bash call in plan mode, and
//! in the other modes every call the judge finds read-only. A command that needs
//! the user's own configuration (`git commit` with the identity from
//! `~/.gitconfig`) is not read-only, so in default mode it keeps it.

use std::process::Command;

/// `(key, value)` overrides given to git through `GIT_CONFIG_COUNT`.
pub const OVERRIDES: [(&str, &str); 20] = [
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("core.attributesFile", "/dev/null"),
    ("core.alternateRefsCommand", ""),
    // An empty helper resets the list of helpers read so far.
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.ssh.defaultKeyCommand", "false"),
    ("log.showSignature", "false"),
    ("safe.bareRepository", "explicit"),
    ("protocol.allow", "never"),
    ("status.submoduleSummary", "false"),
];

/// Variables removed: they point git at another repository, configuration or
/// program, or are `git -c` in disguise.
pub const REMOVED: [&str; 14] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_SYSTEM",
    "GIT_EXTERNAL_DIFF",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_TEMPLATE_DIR",
];

/// Variables set to fixed, harmless values.
pub const SET: [(&str, &str); 9] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_ATTR_NOSYSTEM", "1"),
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_EDITOR", ":"),
    ("GIT_SEQUENCE_EDITOR", ":"),
    ("GIT_TERMINAL_PROMPT", "0"),
    // No optional lock: `git status` leaves the index as it is.
    ("GIT_OPTIONAL_LOCKS", "0"),
];

/// Gives `command` the environment described in the module docs.
pub fn apply(command: &mut Command) {
    for name in REMOVED {
        command.env_remove(name);
    }
    command.env_remove("GIT_ASKPASS").env_remove("SSH_ASKPASS");
    for (name, value) in SET {
        command.env(name, value);
    }
    command.env("GIT_CONFIG_COUNT", OVERRIDES.len().to_string());
    for (i, (key, value)) in OVERRIDES.iter().enumerate() {
        command.env(format!("GIT_CONFIG_KEY_{i}"), key);
        command.env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
}
