//! The read-only judge on a table of shell commands, tricky quoting included.
//!
//! `R` rows must be judged read-only; `W` rows must not (they write, run something
//! unknown, or cannot be parsed). A wrong `W` is a security bug; a wrong `R` only
//! costs an approval prompt, so when in doubt the table expects `W`.

use focus_tools::gates::judge::{is_workspace_edit_command, judge, Verdict};

const R: bool = true;
const W: bool = false;

const TABLE: &[(bool, &str)] = &[
    // Plain reading programs.
    (R, "ls"),
    (R, "ls -la"),
    (R, "ls -la /tmp"),
    (R, "cat README.md"),
    (R, "head -n 20 src/main.rs"),
    (R, "tail -f log.txt"),
    (R, "wc -l *.rs"),
    (R, "grep -rn 'fn main' src"),
    (R, "rg --type rust 'impl Tool'"),
    (R, "stat Cargo.toml"),
    (R, "file target/debug/focus"),
    (R, "pwd"),
    (R, "echo hello"),
    (R, "which cargo"),
    (R, "du -sh ."),
    (R, "diff a.txt b.txt"),
    (R, "jq '.name' package.json"),
    (R, "printf '%s\\n' a b"),
    (R, "/bin/ls -l"),
    (R, "/usr/bin/env"),
    (R, "env"),
    (R, "true"),
    (R, "test -f Cargo.toml"),
    (R, "[ -d src ]"),
    // git inspection.
    (R, "git status"),
    (R, "git status --short"),
    (R, "git log --oneline -n 10"),
    (R, "git diff HEAD~1 -- src/"),
    (R, "git show HEAD:Cargo.toml"),
    (R, "git branch"),
    (R, "git branch -a -v"),
    (R, "git branch --list 'feat/*'"),
    (R, "git rev-parse --abbrev-ref HEAD"),
    (W, "git -C sub status"),
    (R, "git -C . status"),
    (W, "git --git-dir=evil.git log"),
    (W, "git --work-tree=.. status"),
    (W, "git --bare log"),
    (W, "cd sub && git status"),
    (W, "sudo git status"),
    (W, "env -u GIT_CONFIG_COUNT git status"),
    (W, "unset GIT_CONFIG_COUNT; git log"),
    (R, "git --no-pager log -p"),
    (R, "git tag"),
    (R, "git tag -l 'v1.*'"),
    (R, "git remote -v"),
    (R, "git stash list"),
    (R, "git config --get user.name"),
    (R, "git config user.email"),
    (R, "git blame src/lib.rs"),
    (R, "git ls-files | wc -l"),
    // find, sed, sort and friends without their writing flags.
    (R, "find . -name '*.rs'"),
    (R, "find . -type f -newer Cargo.toml -print"),
    (R, "sed -n '1,20p' file.txt"),
    (R, "sed -n -e '/start/,/end/p' log"),
    (R, "sed 's/foo/bar/g' input.txt"),
    (R, "sed -E 's#a/b#c#2;10q' x"),
    (R, "sort -u names.txt"),
    (R, "sort -k2,2n data"),
    (R, "uniq -c sorted.txt"),
    (R, "tree -L 2"),
    (R, "date +%Y-%m-%d"),
    (R, "hostname"),
    (R, "fd -e rs"),
    // Pipes, lists and harmless redirections.
    (R, "cat a | grep b | sort | uniq -c"),
    (R, "ls && pwd || echo none; date"),
    (R, "grep -r TODO src 2>/dev/null"),
    (R, "cargo_output=1 ls >/dev/null 2>&1"),
    (R, "ls &>/dev/null"),
    (R, "ls 2>&1 | head"),
    (R, "wc -l < input.txt"),
    (R, "grep x <<< 'a x b'"),
    (R, "cat <<EOF\nhello $USER (it's me\nEOF"),
    (R, "grep -c x <<-'END' | wc -l\n\tx ) ' \"\n\tEND\nls"),
    (R, "(cd src && ls)"),
    (R, "{ ls; pwd; }"),
    (R, "if test -f a; then cat a; else echo no; fi"),
    (R, "for f in *.rs; do wc -l \"$f\"; done"),
    (R, "while read -r line; do echo \"$line\"; done < file"),
    (R, "ls # rm -rf / is only a comment"),
    (R, "ls\npwd"),
    (R, "ls \\\n -la"),
    // Substitutions judged recursively.
    (R, "echo $(pwd)"),
    (R, "echo \"today is $(date)\""),
    (R, "cat `git ls-files | head -1`"),
    (R, "diff <(ls a) <(ls b)"),
    (R, "echo \"$HOME\" $PATH"),
    (R, "echo $((1 + 2))"),
    // Quotes hiding operators.
    (R, "echo 'a > b'"),
    (R, "echo \"a && rm -rf /\""),
    (R, "grep -e ';' -e '|' file"),
    (R, "echo 'it''s' \"a\\\"b\""),
    (R, "echo \\> notafile"),
    (R, "grep '$(rm -rf /)' notes.txt"),
    // Wrappers.
    (R, "sudo cat /etc/shadow"),
    (R, "env LANG=C ls"),
    (R, "nice -n 10 grep x y"),
    (R, "timeout 5 cat file"),
    (R, "time ls"),
    (R, "command -v rm"),
    (R, "LC_ALL=C sort file"),
    (R, "git ls-files | xargs wc -l"),
    (R, "find . -name '*.rs' | xargs grep -l TODO"),
    (R, "bash -c 'ls -la'"),
    (R, "set -euo pipefail; ls"),
    (R, "export RUST_LOG=debug && cat log"),
    (R, "local x=1"),
    (R, "sh -c \"git status && git diff\""),
    // --- Not read-only: writing programs. ---
    (W, "rm file"),
    (W, "rm -rf /"),
    (W, "mv a b"),
    (W, "cp a b"),
    (W, "touch x"),
    (W, "mkdir build"),
    (W, "chmod +x script.sh"),
    (W, "ln -s a b"),
    (W, "tee out.txt"),
    (W, "dd if=/dev/zero of=disk.img"),
    (W, "truncate -s 0 log"),
    (W, "cargo build"),
    (W, "npm install"),
    (W, "make"),
    (W, "curl -o page.html https://example.com"),
    (W, "python -c 'open(\"x\",\"w\").write(\"y\")'"),
    (W, "python3 script.py"),
    (W, "node -e 'require(\"fs\").writeFileSync(\"x\",\"\")'"),
    (W, "perl -pi -e 's/a/b/' file"),
    (W, "awk '{print > \"out\"}' in"),
    (W, "./configure"),
    (W, "unknown-tool --flag"),
    // Redirections to files.
    (W, "echo x > f"),
    (W, "echo x >> f"),
    (W, "ls > listing.txt"),
    (W, "cat a 2> errors.log"),
    (W, "ls &> all.log"),
    (W, "ls >| forced"),
    (W, "ls >&out.txt"),
    (W, "cat <> rw.txt"),
    (W, "echo x >\"/dev/null\"x"),
    (W, "ls > $OUT"),
    (W, "(ls) > f"),
    (W, "{ ls; } > f"),
    (W, "echo x>f"),
    (W, "ls 1>f"),
    // Writing flags of reading programs.
    (W, "find . -delete"),
    (W, "find . -name '*.tmp' -exec rm {} \\;"),
    (W, "find . -execdir touch x \\;"),
    (W, "find . -fprint out"),
    (W, "find . $ACTION"),
    (W, "find . -{delete,}"),
    (W, "find . *"),
    (W, "sed -i 's/a/b/' file"),
    (W, "sed -i.bak 's/a/b/' file"),
    (W, "sed --in-place 's/a/b/' file"),
    (W, "sed -ni 'p' file"),
    (W, "sed 'w out.txt' file"),
    (W, "sed 's/a/b/w out.txt' file"),
    (W, "sed '1e rm -rf /' file"),
    (W, "sed -f script.sed file"),
    (W, "sort -o sorted.txt names"),
    (W, "sort --output=sorted names"),
    (W, "sort -uo sorted names"),
    (W, "uniq in.txt out.txt"),
    (W, "tree -o tree.txt"),
    (W, "date -s '2020-01-01'"),
    (W, "hostname evil"),
    (W, "rg --pre ./script pattern"),
    (W, "fd -x rm"),
    (W, "file -C -m magic"),
    // git that changes things.
    (W, "git commit -m 'x'"),
    (W, "git push"),
    (W, "git checkout -- ."),
    (W, "git reset --hard"),
    (W, "git branch -D main"),
    (W, "git branch new-feature"),
    (W, "git branch -m old new"),
    (W, "git tag v1.0"),
    (W, "git tag -d v1.0"),
    (W, "git stash"),
    (W, "git stash drop"),
    (W, "git remote add origin url"),
    (W, "git config user.name evil"),
    (W, "git -c core.pager='rm -rf /' log"),
    (W, "git diff --output=patch.diff"),
    (W, "git grep -O'rm -rf' x"),
    (W, "git clean -fdx"),
    // Hidden inside substitutions, subshells and nested shells.
    (W, "echo $(rm x)"),
    (W, "echo \"$(rm x)\""),
    (W, "echo `rm x`"),
    (W, "ls $(touch y)"),
    (W, "cat <(rm x)"),
    (W, "ls | tee >(cat > f)"),
    (W, "(rm x)"),
    (W, "ls; rm x"),
    (W, "ls && rm x"),
    (W, "ls || rm x"),
    (W, "ls & rm x"),
    (W, "ls | sh"),
    (W, "ls\nrm x"),
    (W, "bash -c 'rm -rf /'"),
    (W, "sh -c \"echo x > f\""),
    (W, "bash -c \"$CMD\""),
    (W, "bash script.sh"),
    (W, "eval 'rm x'"),
    (W, "exec rm x"),
    (W, "source ./env.sh"),
    (W, ". ./env.sh"),
    (W, "xargs rm < list"),
    (W, "echo -delete | xargs find ."),
    (W, "sudo rm -rf /"),
    (W, "env rm x"),
    (W, "timeout 5 rm x"),
    (W, "nice rm x"),
    (W, "command rm x"),
    // Obfuscated program names and risky variables.
    (W, "$CMD x"),
    (W, "\"$(echo rm)\" x"),
    (W, "$'\\x72\\x6d' x"),
    (W, "r\"m\" x"),
    (W, "PATH=/tmp ls"),
    (W, "LD_PRELOAD=evil.so ls"),
    (W, "GIT_EXTERNAL_DIFF=evil git diff"),
    (W, "PAGER='rm -rf /' git log"),
    (W, "export PATH=/tmp:$PATH; ls"),
    (W, "declare -x LD_PRELOAD=evil.so"),
    (W, "export $NAME=x"),
    (W, "alias ls='rm -rf'"),
    // Cannot parse → not read-only.
    (W, "echo 'unterminated"),
    (W, "echo \"unterminated"),
    (W, "cat <<EOF\nhello\n"),
    (W, "cat <<EOF\n$(rm x)\nEOF"),
    (W, "cat > out.txt <<'EOF'\nhello\nEOF"),
    (W, "python3 - <<'EOF'\nprint(1)\nEOF"),
    (W, "echo $(ls"),
    (W, "case x in x) rm y;; esac"),
    (W, "(( i++ ))"),
    (W, "ls >"),
    (W, "f() { rm x; }; f"),
    (W, "echo ${x:-$(rm y)}"),
];

#[test]
fn judge_table() {
    assert!(TABLE.len() >= 100, "the table should have 100+ rows");
    let mut failures = Vec::new();
    for (expected, cmd) in TABLE {
        let verdict = judge(cmd);
        if verdict.is_read_only() != *expected {
            failures.push(format!(
                "{cmd:?}: expected {}, got {verdict:?}",
                if *expected { "R" } else { "W" }
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} wrong verdicts:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn reasons_name_the_culprit() {
    let reason = |cmd: &str| match judge(cmd) {
        Verdict::NotReadOnly(reason) => reason,
        Verdict::ReadOnly => panic!("{cmd} judged read-only"),
    };
    assert!(reason("ls > out.txt").contains("out.txt"));
    assert!(reason("find . -delete").contains("-delete"));
    assert!(reason("python3 x.py").contains("python3"));
    assert!(reason("echo $(rm x)").contains("rm"));
    assert!(reason("echo 'x").contains("parse"));
}

#[test]
fn workspace_edits_are_a_separate_allowance() {
    for ok in [
        "mkdir -p build/out",
        "touch a.txt && ls",
        "cp a b",
        "mv src/a.rs src/b.rs",
    ] {
        assert!(is_workspace_edit_command(ok), "{ok}");
        assert!(
            !judge(ok).is_read_only(),
            "{ok} must still not be read-only"
        );
    }
    for bad in [
        "rm x",
        "mkdir /etc/x",
        "cp a ../b",
        "mv ~/a b",
        "touch $X",
        "cp a b > f",
        "ls | xargs mv",
        "cp -t.. f",
        "cp -t .. f",
        "mv --target-directory=.. f",
        "mv --target=.. f",
        "cp -S .bak a b",
        "mkdir -m 777 d",
        "cd .. && touch escaped",
        "pushd /tmp && touch new",
        "cd src; mv a ../../b",
    ] {
        assert!(!is_workspace_edit_command(bad), "{bad}");
    }
}

#[test]
fn workspace_edits_do_not_follow_links_out_of_the_project() {
    use focus_tools::gates::judge::is_workspace_edit_command_in;
    let root = std::env::temp_dir().join(format!("focus-judge-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("project/src")).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("project/link")).unwrap();
    let project = root.join("project");
    assert!(is_workspace_edit_command_in("cp a src/b", &project));
    assert!(is_workspace_edit_command_in("mkdir -p new/dir", &project));
    for bad in [
        "cp a link/",
        "cp a link/b",
        "mv a link",
        "touch link/x",
        "mkdir link/d",
    ] {
        assert!(!is_workspace_edit_command_in(bad, &project), "{bad}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Arbitrary input never panics the judge, and deep nesting is refused, not
/// recursed into without bound.
#[test]
fn never_panics_on_arbitrary_input() {
    use focus_tools::gates::judge::split_commands;
    let alphabet: Vec<char> = "ab-=$()`'\"\\|&;<>{}[]*?!#~ \n\t0123456789éx/.,:+%^"
        .chars()
        .collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        // xorshift64: deterministic, so a failure is reproducible.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let cmd: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let _ = judge(&cmd);
        let _ = split_commands(&cmd);
        let _ = is_workspace_edit_command(&cmd);
    }
    let deep = format!("{}ls{}", "$(echo ".repeat(2_000), ")".repeat(2_000));
    assert!(
        !judge(&deep).is_read_only(),
        "nesting beyond the limit is refused"
    );
    let nested_shells = format!("{}ls{}", "sh -c '".repeat(50), "'".repeat(50));
    let _ = judge(&nested_shells);
    let long = "ls -la && ".repeat(20_000) + "pwd";
    assert!(judge(&long).is_read_only());
}
