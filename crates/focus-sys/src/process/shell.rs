//! The shells focus runs scripts with: [`sh`] (`sh -c`: hooks, `!command`
//! keys) and [`bash`] (`bash -c`, or `sh -c` where bash is missing: the bash
//! tool). Only built here; start them with [`super::Job`].

use std::path::Path;
use std::process::Command;

/// `sh -c script`: the POSIX shell.
pub fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// The shell [`bash`] uses: bash where it is installed (`/bin/bash`,
/// `/usr/bin/bash`), else the POSIX `sh`.
pub fn bash_or_sh() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else if Path::new("/usr/bin/bash").exists() {
        "/usr/bin/bash"
    } else {
        "sh"
    }
}

/// `bash -c script`, or `sh -c script` where bash is missing ([`bash_or_sh`]).
pub fn bash(script: &str) -> Command {
    let mut command = Command::new(bash_or_sh());
    command.arg("-c").arg(script);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shells_run_the_script() {
        for mut command in [sh("echo $((1 + 2))"), bash("echo $((1 + 2))")] {
            let out = command.output().expect("the shell starts");
            assert_eq!(out.stdout, b"3\n");
        }
    }
}
