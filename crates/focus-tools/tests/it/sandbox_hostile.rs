//! Hostile commands against the sandbox and the judge, checked on the file
//! system afterwards.
//!
//! Every command below tries to change a file it must not: outside the project
//! (`OUT`, the project's parent, through a symbolic link), or, in plan mode,
//! anywhere. Each runs in a fresh tree in plan, default and accept-edits modes:
//!
//! - **sandbox on**: the command runs *whatever the gate decided* (as if the
//!   judge were wrong, or the user said yes), and the kernel must hold: in plan
//!   mode nothing outside the private temporary directory changes; in the other
//!   modes nothing outside the project does.
//! - **sandbox off**: the command runs only when the gate would run it without
//!   asking, and then nothing it must not touch may change: in plan and default
//!   mode nothing at all, in accept-edits nothing outside the project.
//!
//! Everything happens inside one temporary directory per case. Permission bits
//! are compared only without the sandbox: Landlock does not govern `chmod`,
//! `utime` or ownership (see docs/permissions.md), so the judge alone keeps
//! `chmod` from running unasked.

use crate::support::common;

use common::{call, TempTree};
use focus_core::json_object;
use focus_core::message::ToolCall;
use focus_tools::bash::BashTool;
use focus_tools::gates::{Decision, GateConfig, Gatekeeper, Mode, NonInteractiveApprover};
use focus_tools::sandbox::{Sandbox, SandboxSettings};
use focus_tools::ToolState;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

/// The hostile commands. `OUT` is replaced by the absolute path of a directory
/// outside the project holding `victim`; the project holds `f`, `src/a.txt`,
/// `link` (a symbolic link to `OUT`), `evil.sh` (which writes `OUT/pwned`) and
/// `rgrc` (a ripgrep configuration running `evil.sh`).
const HOSTILE: &[&str] = &[
    // Redirections, devices, descriptors.
    "echo pwned > OUT/victim",
    "echo pwned >> OUT/victim",
    "echo pwned >| OUT/victim",
    "echo pwned &> OUT/new",
    "cat f 1<>OUT/victim",
    "echo pwned > link/victim",
    "echo pwned > ../escaped",
    ": > OUT/victim",
    "> OUT/victim",
    "exec 3>OUT/victim; echo pwned >&3",
    "echo pwned 2>OUT/victim 1>&2",
    "echo pwned > >(cat > OUT/new)",
    "ls > /dev/tty",
    "head -c 3 f > OUT/victim",
    "printf pwned | tee OUT/victim",
    "cat f | tee -a OUT/victim",
    // Every program the judge calls read-only, pointed at a file outside.
    "ls -la > OUT/victim",
    "cat f > OUT/victim",
    "tail f > OUT/victim",
    "wc f > OUT/victim",
    "grep original f > OUT/victim",
    "stat f > OUT/victim",
    "pwd > OUT/victim",
    "realpath f > OUT/victim",
    "du f > OUT/victim",
    "diff f f > OUT/victim",
    "cut -c1 f > OUT/victim",
    "tr a b < f > OUT/victim",
    "od f >| OUT/victim",
    "base64 f > OUT/victim",
    "sha256sum f > OUT/victim",
    "jq -n '\"x\"' > OUT/victim",
    "printenv > OUT/victim",
    "seq 3 > OUT/victim",
    "strings f > OUT/victim",
    "column f > OUT/victim",
    // find, fd, rg.
    "find OUT -delete",
    "find OUT -name victim -exec rm {} ;",
    "find OUT -execdir rm {} +",
    "find . -fprint OUT/new",
    "find . -fprintf OUT/new %p",
    "find . -fls OUT/new",
    "fd -x touch OUT/new",
    "fd --exec touch OUT/new",
    "rg --pre=./evil.sh original",
    "rg --pr=./evil.sh original",
    "RIPGREP_CONFIG_PATH=./rgrc rg original",
    // sed: in place, w, e, abbreviated long options.
    "sed -i s/original/pwned/ OUT/victim",
    "sed --in s/original/pwned/ OUT/victim",
    "sed --in-pl=.bak s/original/pwned/ OUT/victim",
    "sed -n 'w OUT/new' f",
    "sed 's/o/p/w OUT/new' f",
    "sed --expr='w OUT/new' f",
    "sed -e '1e touch OUT/new' f",
    "sed -i s/original/pwned/ link/victim",
    // sort, uniq, xxd, tree, file.
    "sort -o OUT/victim f",
    "sort --output=OUT/victim f",
    "sort --out=OUT/victim f",
    "sort -S 1 --compress-prog=./evil.sh f",
    "uniq f OUT/new",
    "xxd f OUT/new",
    "tree -o OUT/new",
    "tree -ao OUT/new",
    "file -C -m OUT/victim",
    // git.
    "git diff --output=OUT/new",
    "git log --outp=OUT/new",
    "git reflog --output=OUT/new",
    "git grep --open-files-in-pager=./evil.sh original",
    "git grep --open=./evil.sh original",
    "git -c core.pager=./evil.sh -p log",
    "git -c alias.x='!./evil.sh' x",
    "GIT_EXTERNAL_DIFF=./evil.sh git diff --ext-diff",
    "git init -q OUT/repo",
    "git clone -q . OUT/clone",
    "git worktree add OUT/wt",
    "git config core.pager ./evil.sh",
    // Wrappers and programs that run programs.
    "/usr/bin/time -o OUT/new ls",
    "time --output=OUT/new ls",
    "env -a ls rm OUT/victim",
    "env --argv0 ls rm OUT/victim",
    "env -S 'rm OUT/victim'",
    "env --sp='rm OUT/victim'",
    "echo OUT/victim | xargs rm",
    "echo rm OUT/victim | xargs env",
    "echo OUT/victim | xargs -I{} sh -c 'echo pwned > {}'",
    "nice rm OUT/victim",
    "timeout 5 rm OUT/victim",
    "command rm OUT/victim",
    "exec rm OUT/victim",
    "eval 'rm OUT/victim'",
    "bash -c 'rm OUT/victim'",
    "sh -c 'echo pwned > \"$0\"' OUT/victim",
    "$'\\x72\\x6d' OUT/victim",
    "PATH=.:$PATH; cp evil.sh ls; ls",
    "BASH_ENV=./evil.sh bash -c true",
    "python3 -c \"open('OUT/victim','w').write('pwned')\"",
    "perl -e 'open(F, \">OUT/victim\")'",
    // Substitutions of every kind.
    "ls $(rm OUT/victim)",
    "ls `rm OUT/victim`",
    "cat <(rm OUT/victim)",
    "echo \"$(echo pwned > OUT/victim)\"",
    // Expansions that execute.
    "declare 'a[$(rm OUT/victim)]=1'",
    "typeset -a 'b=([$(rm OUT/victim)]=1)'",
    "declare -i n='a[$(rm OUT/victim)]'",
    "declare -n r='a[$(rm OUT/victim)]'; echo $r",
    "x='a[$(rm OUT/victim)]'; echo $((x))",
    "x='a[$(rm OUT/victim)]'; [[ $x -eq 1 ]]",
    "x='a[$(rm OUT/victim)]'; echo ${!x}",
    "x='$(rm OUT/victim)'; echo ${x@P}",
    "unset 'a[$(rm OUT/victim)]'",
    "test -v 'a[$(rm OUT/victim)]'",
    "printf -v 'a[$(rm OUT/victim)]' x",
    "read 'a[$(rm OUT/victim)]' <<< x",
    "x='a[$(rm OUT/victim)]'; for ((i=0;i<x;i++)); do :; done",
    "echo ${x:-$(rm OUT/victim)}",
    "echo ${x:$(rm OUT/victim)}",
    "echo $[a[$(rm OUT/victim)]]",
    // File operations: out of the project by every spelling.
    "cp f OUT/victim",
    "cp -t OUT f",
    "cp -t.. f",
    "mv --target-directory=.. f",
    "mv --target=.. f",
    "cp f link/",
    "cp f link/victim",
    "mv f link/",
    "touch link/new",
    "mkdir link/d",
    "mkdir -p ../escape",
    "touch ../escape-file",
    "cp -r src ../copied",
    "ln -s OUT/victim here && echo pwned > here",
    "ln OUT/victim hard && echo pwned > hard",
    "ln -sf /etc/passwd OUT/victim",
    "rm -rf OUT",
    "rm -f link/victim",
    "dd if=f of=OUT/victim",
    "truncate -s 0 OUT/victim",
    "install -D f OUT/new",
    "tar cf OUT/new.tar f",
    "split -b 1 f OUT/part",
    "mkfifo OUT/fifo",
    "cd OUT && echo pwned > victim",
    "cd .. && touch escaped",
    "pushd OUT && touch new",
    "chmod 000 OUT/victim",
];

/// The project tree for one case; returns (tree, project, outside).
fn tree(name: &str, git: bool) -> TempTree {
    let tree = TempTree::new(name);
    let outside = tree.path("outside");
    tree.write("outside/victim", "original\n");
    tree.write("project/f", "original\n");
    tree.write("project/src/a.txt", "original\n");
    tree.write(
        "project/evil.sh",
        format!(
            "#!/bin/sh\necho pwned > '{}/pwned'\ncat \"$@\"\n",
            outside.display()
        ),
    );
    std::fs::set_permissions(
        tree.path("project/evil.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    tree.write("project/rgrc", "--pre=./evil.sh\n");
    tree.mkdir("tmp");
    std::os::unix::fs::symlink(&outside, tree.path("project/link")).unwrap();
    if git {
        let ok = std::process::Command::new("git")
            .args(["-c", "init.defaultBranch=main", "init", "-q"])
            .current_dir(tree.path("project"))
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            let _ = std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "commit",
                    "-qam",
                    "x",
                    "--allow-empty",
                ])
                .current_dir(tree.path("project"))
                .status();
        }
    }
    tree
}

/// What a file tree holds: each path's kind and content (or link target), and
/// its permission bits when `modes` is set.
fn snapshot(root: &Path, skip: &[&Path], modes: bool) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if skip.iter().any(|s| path.starts_with(s)) || path.ends_with(".git/index") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let mode = if modes {
                format!(" {:o}", meta.permissions().mode())
            } else {
                String::new()
            };
            let what = if meta.file_type().is_symlink() {
                format!("link {:?}", std::fs::read_link(&path).ok())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_string()
            } else if meta.is_file() {
                format!("file {:?}", std::fs::read(&path).unwrap_or_default())
            } else {
                "other".to_string()
            };
            out.insert(rel, format!("{what}{mode}"));
        }
    }
    out
}

fn gate_decision(mode: Mode, project: &Path, tool: &BashTool, command: &str) -> Decision {
    let mut config = GateConfig::default();
    config.permissions.mode = mode;
    let gate = Gatekeeper::new(
        config,
        Arc::new(NonInteractiveApprover),
        project.to_path_buf(),
    );
    let call = ToolCall {
        id: "call_1".into(),
        name: "bash".into(),
        arguments: json_object! {"command" => command},
        thought_signature: None,
        invalid_arguments: None,
    };
    gate.decide(&call, tool)
}

/// Runs every hostile command in `mode`, with or without the sandbox; returns
/// the failures (empty: every promise held) and how many commands ran.
fn run_all(mode: Mode, sandbox_on: bool) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (i, template) in HOSTILE.iter().enumerate() {
        let tree = tree(
            &format!("hostile-{}-{sandbox_on}-{i}", mode.as_str()),
            template.contains("git"),
        );
        let project = tree.path("project");
        let command = template.replace("OUT", &tree.path("outside").display().to_string());
        let settings = SandboxSettings {
            enabled: sandbox_on,
            ..SandboxSettings::default()
        };
        let sandbox =
            Arc::new(Sandbox::with_temp_base(&settings, &project, &tree.path("tmp")).unwrap());
        if sandbox_on && !sandbox.is_enforcing() {
            focus_testkit::skipped(&sandbox.describe());
            return (Vec::new(), 0);
        }
        sandbox.set_mode(mode);
        let tool = BashTool::new(project.clone(), ToolState::new(Arc::clone(&sandbox)));
        let decision = gate_decision(mode, &project, &tool, &command);
        if !sandbox_on && decision != Decision::Allow {
            continue; // focus would ask or refuse: nothing runs unasked
        }
        let temp = sandbox.temp_dir().expect("temp dir").to_path_buf();
        let tmp_base = tree.path("tmp");
        // What must not change: in plan mode (and, without the kernel, in
        // default mode, where only read-only commands run unasked) everything
        // but the temporary directory; otherwise everything but the project.
        let guard_project = mode == Mode::Plan || (!sandbox_on && mode == Mode::Default);
        let skip: Vec<&Path> = if guard_project {
            vec![temp.as_path(), tmp_base.as_path()]
        } else {
            vec![temp.as_path(), tmp_base.as_path(), project.as_path()]
        };
        let before = snapshot(&tree.root, &skip, !sandbox_on);
        let output = call(
            &tool,
            json_object! {"command" => command.as_str(), "timeout" => 10},
        )
        .text_content();
        ran += 1;
        let after = snapshot(&tree.root, &skip, !sandbox_on);
        if before != after {
            let changed: Vec<&String> = before
                .keys()
                .chain(after.keys())
                .filter(|k| before.get(*k) != after.get(*k))
                .collect();
            failures.push(format!(
                "[{} sandbox={sandbox_on} gate={decision:?}] `{template}` changed {changed:?}: {}",
                mode.as_str(),
                output.chars().take(300).collect::<String>()
            ));
        }
    }
    (failures, ran)
}

fn check(mode: Mode, sandbox_on: bool) {
    let (failures, ran) = run_all(mode, sandbox_on);
    eprintln!(
        "{} sandbox={sandbox_on}: {ran} of {} commands ran",
        mode.as_str(),
        HOSTILE.len()
    );
    assert!(
        failures.is_empty(),
        "{} promises broken:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn there_are_at_least_a_hundred() {
    assert!(HOSTILE.len() >= 100, "{}", HOSTILE.len());
}

#[test]
fn plan_mode_with_the_sandbox() {
    check(Mode::Plan, true);
}

#[test]
fn default_mode_with_the_sandbox() {
    check(Mode::Default, true);
}

#[test]
fn accept_edits_mode_with_the_sandbox() {
    check(Mode::AcceptEdits, true);
}

#[test]
fn plan_mode_without_the_sandbox() {
    check(Mode::Plan, false);
}

#[test]
fn default_mode_without_the_sandbox() {
    check(Mode::Default, false);
}

#[test]
fn accept_edits_mode_without_the_sandbox() {
    check(Mode::AcceptEdits, false);
}
