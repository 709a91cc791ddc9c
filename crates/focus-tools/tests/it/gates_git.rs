//! A hostile repository's git configuration against "read-only" git commands.
//!
//! Each attack sets up a repository whose configuration (or a file it points
//! to) names a program that creates a marker file, then sends a git command
//! through the gate in plan and default mode. Whatever the gate lets through is
//! run by the real `bash` tool; the marker must never appear. Attacks marked
//! live are first run plainly (`sh -c`, no protection) to show they do create
//! the marker on this machine's git, so a passing test means the defence held,
//! not that the attack was a dud.

use crate::support::common::call as call_tool;
use crate::support::gates::*;
use focus_core::json_object;
use focus_core::tool::{GateDecision, ToolGate};
use focus_tools::bash::BashTool;
use focus_tools::gates::{GateConfig, Gatekeeper, Mode, NonInteractiveApprover};
use focus_tools::sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// One attack: what to set up, the command, and whether it is shown live.
struct Attack {
    name: &'static str,
    /// Lines appended to `.git/config` (`EVIL` is the program's path).
    config: &'static str,
    /// `.gitattributes` of the work tree.
    attributes: &'static str,
    /// Extra setup in the project (run with `sh -c`, `EVIL` substituted).
    setup: &'static str,
    command: &'static str,
    live: bool,
}

const ATTACKS: &[Attack] = &[
    Attack {
        name: "core.fsmonitor",
        config: "[core]\n\tfsmonitor = EVIL\n",
        attributes: "",
        setup: "",
        command: "git status",
        live: true,
    },
    Attack {
        name: "core.fsmonitor with -C .",
        config: "[core]\n\tfsmonitor = EVIL\n",
        attributes: "",
        setup: "",
        command: "git -C . status --short",
        live: true,
    },
    Attack {
        name: "diff.external",
        config: "[diff]\n\texternal = EVIL\n",
        attributes: "",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "diff.<driver>.textconv",
        config: "[diff \"x\"]\n\ttextconv = EVIL\n",
        attributes: "*.txt diff=x\n",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "diff.<driver>.textconv in log -p",
        config: "[diff \"x\"]\n\ttextconv = EVIL\n",
        attributes: "*.txt diff=x\n",
        setup: "git add -A && git -c user.name=a -c user.email=a@b commit -qm two",
        command: "git log -p",
        live: true,
    },
    Attack {
        name: "diff.<driver>.command",
        config: "[diff \"x\"]\n\tcommand = EVIL\n",
        attributes: "*.txt diff=x\n",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "filter.<driver>.clean",
        config: "[filter \"x\"]\n\tclean = EVIL\n",
        attributes: "*.txt filter=x\n",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "filter.<driver>.process",
        config: "[filter \"x\"]\n\tprocess = EVIL\n",
        attributes: "*.txt filter=x\n",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "old-style [diff.x] section",
        config: "[diff.x]\n\ttextconv = EVIL\n",
        attributes: "*.txt diff=x\n",
        setup: "",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "include.path bringing core.fsmonitor",
        config: "[include]\n\tpath = ../../inc.cfg\n",
        attributes: "",
        setup: "printf '[core]\\n\\tfsmonitor = EVIL\\n' > ../inc.cfg",
        command: "git status",
        live: true,
    },
    Attack {
        name: "include.path bringing a textconv",
        config: "[include]\n\tpath = ../../inc.cfg\n",
        attributes: "*.txt diff=x\n",
        setup: "printf '[diff \"x\"]\\n\\ttextconv = EVIL\\n' > ../inc.cfg",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "includeIf bringing a filter",
        config: "[includeIf \"gitdir:/\"]\n\tpath = ../../inc.cfg\n",
        attributes: "*.txt filter=y\n",
        setup: "printf '[filter \"y\"]\\n\\tclean = EVIL\\n' > ../inc.cfg",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "textconv in .git/info/attributes",
        config: "[diff \"x\"]\n\ttextconv = EVIL\n",
        attributes: "",
        setup: "echo '* diff=x' > .git/info/attributes",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "config.worktree with extensions.worktreeConfig",
        config: "[extensions]\n\tworktreeConfig = true\n",
        attributes: "",
        setup: "printf '[core]\\n\\tfsmonitor = EVIL\\n' > .git/config.worktree",
        command: "git status",
        live: true,
    },
    Attack {
        name: "alias running a shell command",
        config: "[alias]\n\tst = !EVIL\n",
        attributes: "",
        setup: "",
        command: "git st",
        live: true,
    },
    Attack {
        name: "git -c core.fsmonitor",
        config: "",
        attributes: "",
        setup: "",
        command: "git -c core.fsmonitor=EVIL status",
        live: true,
    },
    Attack {
        name: "env -u GIT_CONFIG_COUNT",
        config: "[core]\n\tfsmonitor = EVIL\n",
        attributes: "",
        setup: "",
        command: "env -u GIT_CONFIG_COUNT git status",
        live: true,
    },
    Attack {
        name: "env -i",
        config: "[core]\n\tfsmonitor = EVIL\n",
        attributes: "",
        setup: "",
        command: "env -i PATH=/usr/bin:/bin git status",
        live: true,
    },
    Attack {
        name: "unset GIT_CONFIG_COUNT",
        config: "[core]\n\tfsmonitor = EVIL\n",
        attributes: "",
        setup: "",
        command: "unset GIT_CONFIG_COUNT; git status",
        live: true,
    },
    Attack {
        name: "cd into a nested repository",
        config: "",
        attributes: "",
        setup: "git init -q nested && git -C nested config core.fsmonitor EVIL",
        command: "cd nested && git status",
        live: true,
    },
    Attack {
        name: "sh -c with cd",
        config: "",
        attributes: "",
        setup: "git init -q nested && git -C nested config core.fsmonitor EVIL",
        command: "sh -c 'cd nested; git status'",
        live: true,
    },
    Attack {
        name: "git -C a nested repository",
        config: "",
        attributes: "",
        setup: "git init -q nested && git -C nested config core.fsmonitor EVIL",
        command: "git -C nested status",
        live: true,
    },
    Attack {
        name: "--git-dir to a shipped git directory",
        config: "",
        attributes: "",
        setup: "cp -r .git shipped && git --git-dir=shipped config core.fsmonitor EVIL",
        command: "git --git-dir=shipped --work-tree=. status",
        live: true,
    },
    Attack {
        name: "GIT_DIR= assignment",
        config: "",
        attributes: "",
        setup: "cp -r .git shipped && git --git-dir=shipped config core.fsmonitor EVIL",
        command: "GIT_DIR=shipped GIT_WORK_TREE=. git status",
        live: true,
    },
    Attack {
        name: "a .git file pointing at a shipped git directory",
        config: "",
        attributes: "",
        setup: "mv .git ../shipped.git && echo 'gitdir: ../shipped.git' > .git \
                && git config core.fsmonitor EVIL",
        command: "git status",
        live: true,
    },
    Attack {
        name: "a bare repository in a subdirectory",
        config: "",
        attributes: "",
        setup:
            "git clone -q --bare . bare.git && git --git-dir=bare.git config diff.x.textconv EVIL \
                && echo '* diff=x' > bare.git/info/attributes && echo '[core]' >> bare.git/config",
        command: "git --git-dir=bare.git log -p",
        live: true,
    },
    Attack {
        name: "the project itself a bare repository",
        config: "",
        attributes: "",
        setup: "git clone -q --bare . ../bare-project.git && rm -rf ./* ./.git* \
                && cp -r ../bare-project.git/. . && git config --file config diff.x.textconv EVIL \
                && echo '* diff=x' > info/attributes",
        command: "git log -p",
        live: true,
    },
    Attack {
        name: "git grep opening a pager",
        config: "",
        attributes: "",
        setup: "",
        command: "git grep --open-files-in-pager=EVIL one",
        live: true,
    },
    Attack {
        name: "a textconv after a byte order mark",
        config: "",
        attributes: "*.txt diff=x\n",
        setup: "printf '\\357\\273\\277[diff \"x\"]\\n\\ttextconv = EVIL\\n' > ../bom.cfg \
                && git config include.path ../../bom.cfg",
        command: "git diff",
        live: true,
    },
    Attack {
        name: "git --config-env",
        config: "",
        attributes: "",
        setup: "",
        command: "FSM=EVIL git --config-env=core.fsmonitor=FSM status",
        live: true,
    },
    Attack {
        name: "credential.<url>.helper",
        config: "[credential \"https://example.com\"]\n\thelper = !EVIL\n",
        attributes: "",
        setup: "",
        command: "git status",
        live: false,
    },
];

/// A fresh project with one commit of `a.txt` and a change to it, and the
/// program (`root/evil.sh`) that creates `root/MARKER`.
fn repository(tag: &str, attack: &Attack) -> (PathBuf, PathBuf, String) {
    let root = temp_dir(tag);
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let marker = root.join("MARKER");
    let evil = root.join("evil.sh");
    std::fs::write(
        &evil,
        format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let evil = evil.display().to_string();
    sh(
        &project,
        "git init -q . && echo one > a.txt && git add a.txt \
         && git -c user.name=a -c user.email=a@b commit -qm one && echo two >> a.txt",
    );
    if !attack.config.is_empty() {
        let config = project.join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str(&attack.config.replace("EVIL", &evil));
        std::fs::write(&config, text).unwrap();
    }
    if !attack.attributes.is_empty() {
        std::fs::write(project.join(".gitattributes"), attack.attributes).unwrap();
    }
    if !attack.setup.is_empty() {
        sh(&project, &attack.setup.replace("EVIL", &evil));
    }
    let _ = std::fs::remove_file(&marker);
    (project, marker, evil)
}

fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "setup `{script}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the command unprotected: the attack must work, or the test proves nothing.
fn run_plainly(project: &Path, command: &str) {
    let _ = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
}

#[test]
fn no_git_configuration_runs_a_program_through_a_read_only_command() {
    if Command::new("git").arg("--version").output().is_err() {
        focus_testkit::skipped("git is not installed");
        return;
    }
    let mut failures = Vec::new();
    for (n, attack) in ATTACKS.iter().enumerate() {
        let (project, marker, evil) = repository(&format!("git-attack-{n}"), attack);
        let command = attack.command.replace("EVIL", &evil);
        if attack.live {
            run_plainly(&project, &command);
            if !marker.exists() {
                failures.push(format!("{}: the attack does not work plainly", attack.name));
            }
            let _ = std::fs::remove_file(&marker);
        }
        for mode in [Mode::Plan, Mode::Default] {
            let mut config = GateConfig::default();
            config.permissions.mode = mode;
            let gk = Gatekeeper::new(config, Arc::new(NonInteractiveApprover), project.clone());
            let sandbox = Arc::new(Sandbox::off());
            sandbox.set_mode(mode);
            let bash_tool = BashTool::new(project.clone(), focus_tools::ToolState::new(sandbox));
            let decision = gk.before_call(&bash(&command), &bash_tool, &message());
            if decision == GateDecision::Allow {
                call_tool(&bash_tool, json_object! { "command" => command.as_str() });
            }
            if marker.exists() {
                failures.push(format!(
                    "{} in {}: `{command}` ran the repository's program ({decision:?} {:?} {:?})",
                    attack.name,
                    mode.as_str(),
                    gk.decide(&bash(&command), &bash_tool),
                    gk.mode()
                ));
                let _ = std::fs::remove_file(&marker);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn plain_git_still_works_under_the_protecting_environment() {
    if Command::new("git").arg("--version").output().is_err() {
        focus_testkit::skipped("git is not installed");
        return;
    }
    let attack = &ATTACKS[0];
    let (project, marker, _) = repository("git-plain", attack);
    let sandbox = Arc::new(Sandbox::off());
    sandbox.set_mode(Mode::Plan);
    let bash_tool = BashTool::new(project.clone(), focus_tools::ToolState::new(sandbox));
    let out = call_tool(
        &bash_tool,
        json_object! { "command" => "git status --short && git diff --stat && git show --stat && git blame a.txt \
        && git grep -c one && git log -p && git log --oneline | wc -l" },
    );
    let text = out.text_content();
    assert!(text.contains(" M a.txt"), "{text}");
    assert!(text.contains("1 file changed, 1 insertion(+)"), "{text}");
    assert!(text.contains("a.txt:1"), "{text}");
    assert!(text.contains("+one"), "{text}");
    assert!(text.trim_end().ends_with('1'), "{text}");
    assert!(!marker.exists());
}

/// The environment is for calls that only read (and everything in plan mode):
/// `git commit` in default mode keeps the user's identity from the global
/// configuration; plan mode's calls do not see that configuration.
#[test]
fn git_commit_in_default_mode_keeps_the_users_global_identity() {
    if Command::new("git").arg("--version").output().is_err() {
        focus_testkit::skipped("git is not installed");
        return;
    }
    let attack = &ATTACKS[0];
    let (project, _marker, _) = repository("git-identity", attack);
    let home = project.parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = Global Tester\n\temail = tester@example.com\n",
    )
    .unwrap();
    let home = home.display().to_string();
    let commit =
        format!("HOME={home} git commit -q --allow-empty -m from-focus && git log -1 --format=%an");
    let sandbox = Arc::new(Sandbox::off());
    sandbox.set_mode(Mode::Default);
    let bash_tool = BashTool::new(
        project.clone(),
        focus_tools::ToolState::new(Arc::clone(&sandbox)),
    );
    let out = call_tool(&bash_tool, json_object! { "command" => commit.as_str() });
    assert!(
        out.text_content().contains("Global Tester"),
        "{}",
        out.text_content()
    );
    sandbox.set_mode(Mode::Plan);
    let read = format!("HOME={home} git config user.name; echo end");
    let out = call_tool(&bash_tool, json_object! { "command" => read.as_str() });
    assert!(
        !out.text_content().contains("Global Tester"),
        "{}",
        out.text_content()
    );
}
