//! The allow list of read-only programs and the argument check for each.
//!
//! Most programs on the list never write whatever their arguments (`ALWAYS_READ_ONLY`).
//! A few write only with certain flags (`find -delete`, `sed -i`, `sort -o`,
//! `git branch -D`); those get a check, and for them an argument computed at run time
//! (a `$variable`, a glob, arguments appended by `xargs`) is refused, because it could
//! turn into the dangerous flag.

use super::long_options::{abbreviates_any, resolve};
use super::shell_lexer::Word;

/// Where a command's arguments come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsOrigin {
    /// Only the words written in the command.
    Literal,
    /// More arguments are appended at run time (`xargs`).
    Appended,
}

/// Programs that only read, whatever their arguments.
#[rustfmt::skip]
const ALWAYS_READ_ONLY: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "stat", "pwd", "echo",
    "printf", "which", "whoami", "id", "uname", "basename", "dirname", "realpath",
    "readlink", "du", "df", "diff", "cmp", "comm", "cut", "tr", "nl", "od", "hexdump",
    "tac", "rev", "fold", "paste", "join", "fmt", "expand", "unexpand", "column", "strings",
    "base64", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
    "b2sum", "cksum", "jq", "printenv", "ps", "pgrep", "seq", "sleep", "true", "false",
    "test", "[", "[[", "]]", "cd", "pushd", "popd", "dirs", "type", "read", "set", "unset",
    "whereis", "nproc", "uptime", "free", "arch", "groups", "tty", "yes", "locate", "env",
];

/// Checks `program` with `args`; `Err` explains why it may write.
///
/// # Errors
///
/// `program` with `args` may write, or is not known to only read: the text says why.
pub fn check_program(program: &str, args: &[Word], origin: ArgsOrigin) -> Result<(), String> {
    // `[[ $x -eq 1 ]]` evaluates `$x`'s value as arithmetic, where an array
    // subscript runs command substitutions (`x='a[$(rm f)]'`).
    const ARITHMETIC: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
    if program == "[[" && args.iter().any(|a| ARITHMETIC.contains(&a.text.as_str())) {
        return Err(
            "`[[ … -eq … ]]` evaluates operands as arithmetic, which can run commands".into(),
        );
    }
    // Builtins that take a variable *name* evaluate an array subscript in it as
    // arithmetic, which runs command substitutions: `unset 'a[$(rm f)]'`.
    let subscripted = |w: &Word| w.text.contains('[') || w.dynamic;
    let name_after = |flags: &[&str]| {
        args.windows(2)
            .any(|p| flags.contains(&p[0].text.as_str()) && subscripted(&p[1]))
    };
    let names_subscripted = match program {
        "test" | "[" | "[[" => name_after(&["-v", "-R"]),
        "printf" => {
            name_after(&["-v"])
                || args
                    .iter()
                    .any(|a| a.text.starts_with("-v") && a.text.len() > 2)
        }
        "read" | "unset" => args.iter().any(subscripted),
        _ => false,
    };
    if names_subscripted {
        return Err(format!(
            "`{program}` with a computed or subscripted variable name can run commands"
        ));
    }
    if ALWAYS_READ_ONLY.contains(&program) {
        return Ok(());
    }
    let check: fn(&[&str]) -> Result<(), String> = match program {
        "find" => check_find,
        "fd" | "fdfind" => check_fd,
        "rg" => check_rg,
        "sed" => check_sed,
        "sort" => check_sort,
        "uniq" | "xxd" => check_at_most_one_operand,
        "tree" => check_tree,
        "date" => check_date,
        "hostname" => check_hostname,
        "file" => check_file,
        "git" => check_git,
        _ => return Err(format!("`{program}` is not a known read-only program")),
    };
    if origin == ArgsOrigin::Appended {
        return Err(format!(
            "arguments of `{program}` are appended at run time; cannot rule out a writing flag"
        ));
    }
    if let Some(w) = args.iter().find(|w| w.dynamic) {
        return Err(format!(
            "argument `{}` of `{program}` is computed at run time; cannot rule out a writing flag",
            w.text
        ));
    }
    let args: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    check(&args)
}

fn refuse(program: &str, flag: &str) -> Result<(), String> {
    Err(format!("`{program} {flag}` writes or runs other programs"))
}

fn check_find(args: &[&str]) -> Result<(), String> {
    const WRITING: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    match args.iter().find(|a| WRITING.contains(a)) {
        Some(flag) => refuse("find", flag),
        None => Ok(()),
    }
}

/// A cluster of short options (`-abc`), not a long option or a lone `-`.
fn is_short_cluster(a: &str) -> bool {
    a.starts_with('-') && !a.starts_with("--") && a.len() > 1
}

/// A short cluster in which `letter` appears as an option, reading the
/// cluster left to right and stopping at the first letter of `with_value`
/// (the rest of the cluster is that option's value).
fn short_cluster_has(a: &str, letters: &[char], with_value: &[char]) -> bool {
    if !is_short_cluster(a) {
        return false;
    }
    for c in a[1..].chars() {
        if letters.contains(&c) {
            return true;
        }
        if with_value.contains(&c) {
            return false;
        }
    }
    false
}

fn check_fd(args: &[&str]) -> Result<(), String> {
    for a in args {
        let short_exec = is_short_cluster(a) && a.contains(['x', 'X']);
        if short_exec
            || a.starts_with("--exec")
            || abbreviates_any(a, &["--exec", "--exec-batch"]).is_some()
        {
            return refuse("fd", a);
        }
    }
    Ok(())
}

fn check_rg(args: &[&str]) -> Result<(), String> {
    // `--pre` runs a program on every file; `--hostname-bin` runs one for hyperlinks.
    match args.iter().find(|a| {
        **a == "--pre"
            || a.starts_with("--pre=")
            || abbreviates_any(a, &["--pre", "--hostname-bin"]).is_some()
    }) {
        Some(flag) => refuse("rg", flag),
        None => Ok(()),
    }
}

fn check_sort(args: &[&str]) -> Result<(), String> {
    for a in args {
        let short_output = is_short_cluster(a) && a.contains('o');
        if short_output
            || a.starts_with("--output")
            || a.starts_with("--compress-program")
            || abbreviates_any(a, &["--output", "--compress-program"]).is_some()
        {
            return refuse("sort", a);
        }
    }
    Ok(())
}

/// `uniq IN OUT` and `xxd IN OUT` write OUT.
fn check_at_most_one_operand(args: &[&str]) -> Result<(), String> {
    let operands = args
        .iter()
        .filter(|a| !a.starts_with('-') || **a == "-")
        .count();
    if operands > 1 {
        return Err("a second file operand is an output file".to_string());
    }
    Ok(())
}

fn check_tree(args: &[&str]) -> Result<(), String> {
    // `-o FILE` writes the listing; `-R` with `-H` writes an index in every directory.
    match args.iter().find(|a| {
        (is_short_cluster(a) && a.contains(['o', 'R']))
            || a.starts_with("--output")
            || abbreviates_any(a, &["--output"]).is_some()
    }) {
        Some(flag) => refuse("tree", flag),
        None => Ok(()),
    }
}

fn check_date(args: &[&str]) -> Result<(), String> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if short_cluster_has(a, &['s'], &['d', 'f', 'r', 'I'])
            || a.starts_with("--set")
            || abbreviates_any(a, &["--set"]).is_some()
        {
            return refuse("date", a);
        }
        if matches!(*a, "-d" | "-f" | "-r" | "--date" | "--file" | "--reference") {
            i += 2;
            continue;
        }
        if !a.starts_with('-') && !a.starts_with('+') {
            return Err("`date` with an operand sets the clock".to_string());
        }
        i += 1;
    }
    Ok(())
}

fn check_hostname(args: &[&str]) -> Result<(), String> {
    match args.iter().find(|a| {
        !a.starts_with('-')
            || (is_short_cluster(a) && a.contains(['F', 'b']))
            || abbreviates_any(a, &["--file", "--boot"]).is_some()
    }) {
        Some(a) => Err(format!("`hostname {a}` sets the host name")),
        None => Ok(()),
    }
}

fn check_file(args: &[&str]) -> Result<(), String> {
    match args.iter().find(|a| {
        short_cluster_has(a, &['C'], &['e', 'f', 'F', 'm', 'P'])
            || abbreviates_any(a, &["--compile"]).is_some()
    }) {
        Some(flag) => refuse("file", flag),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// sed: read-only unless -i, a script file, or a script with w/W/e/r commands.

/// GNU sed's long options, for resolving abbreviations (`--in` is `--in-place`).
#[rustfmt::skip]
const SED_LONG: &[&str] = &[
    "--expression", "--file", "--in-place", "--line-length", "--null-data",
    "--zero-terminated", "--posix", "--quiet", "--silent", "--regexp-extended",
    "--separate", "--sandbox", "--unbuffered", "--debug", "--follow-symlinks",
    "--help", "--version", "--binary",
];

fn check_sed(args: &[&str]) -> Result<(), String> {
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a.starts_with("--") && a.len() > 2 {
            let value = a.split_once('=').map(|(_, v)| v);
            match resolve(a, SED_LONG)? {
                "--expression" => match value {
                    Some(script) => scripts.push(script),
                    None => {
                        scripts.push(args.get(i).copied().unwrap_or(""));
                        i += 1;
                    }
                },
                "--line-length" if value.is_none() => i += 1,
                "--in-place" | "--file" => return refuse("sed", a),
                _ => {}
            }
        } else if *a == "-e" {
            scripts.push(args.get(i).copied().unwrap_or(""));
            i += 1;
        } else if *a == "-l" {
            i += 1;
        } else if *a == "-f" {
            return refuse("sed", a);
        } else if let Some(flags) = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !a.starts_with("--"))
        {
            if flags.contains('i') || flags.contains('f') {
                return refuse("sed", a);
            }
            if let Some(pos) = flags.find('e') {
                // `-ne 'script'` or `-e'script'`.
                let attached = &flags[pos + 1..];
                if attached.is_empty() {
                    scripts.push(args.get(i).copied().unwrap_or(""));
                    i += 1;
                } else {
                    scripts.push(attached);
                }
            }
        } else if !a.starts_with("--") {
            operands.push(a);
        }
    }
    if scripts.is_empty() {
        match operands.first() {
            Some(script) => scripts.push(script),
            None => return Err("`sed` without a script".to_string()),
        }
    }
    for script in scripts {
        if !sed_script_is_read_only(script) {
            return Err(format!(
                "the sed script `{script}` may write files or run commands (or is too complex to judge)"
            ));
        }
    }
    Ok(())
}

/// Accepts a conservative subset of sed scripts: addresses, then the commands
/// `p d D n N P q Q = l g G h H x z F { } b t T :` and `s`/`y` without the `w`/`e`
/// flags, plus `a`/`i`/`c` text. Anything else (`w`, `W`, `r`, `R`, `e`) is refused.
fn sed_script_is_read_only(script: &str) -> bool {
    let c: Vec<char> = script.chars().collect();
    let mut i = 0;
    loop {
        while i < c.len() && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i >= c.len() {
            return true;
        }
        if !skip_sed_address(&c, &mut i) {
            return false;
        }
        if i < c.len() && c[i] == ',' {
            i += 1;
            if i < c.len() && (c[i] == '+' || c[i] == '~') {
                i += 1;
            }
            if !skip_sed_address(&c, &mut i) {
                return false;
            }
        }
        while i < c.len() && (c[i] == ' ' || c[i] == '!') {
            i += 1;
        }
        let Some(&command) = c.get(i) else {
            return false;
        };
        i += 1;
        match command {
            'p' | 'd' | 'D' | 'n' | 'N' | 'P' | 'q' | 'Q' | '=' | 'l' | 'g' | 'G' | 'h' | 'H'
            | 'x' | 'z' | 'F' | '{' | '}' => {
                while i < c.len() && c[i].is_ascii_digit() {
                    i += 1;
                }
            }
            'b' | 't' | 'T' | ':' | 'a' | 'i' | 'c' => {
                // A label or a line of text: up to the end of the line (or `;` for labels).
                let stop_at_semicolon = command != 'a' && command != 'i' && command != 'c';
                while i < c.len() && c[i] != '\n' && !(stop_at_semicolon && c[i] == ';') {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&delim) = c.get(i) else {
                    return false;
                };
                if delim == '\\' || delim == '\n' {
                    return false;
                }
                i += 1;
                for _ in 0..2 {
                    while i < c.len() && c[i] != delim {
                        i += if c[i] == '\\' { 2 } else { 1 };
                    }
                    if i >= c.len() {
                        return false;
                    }
                    i += 1;
                }
                while i < c.len() && !matches!(c[i], ';' | '\n' | '}') {
                    if command == 'y' || !"gpiImM0123456789 ".contains(c[i]) {
                        return false;
                    }
                    i += 1;
                }
            }
            _ => return false,
        }
    }
}

/// Skips an optional sed address (`12`, `$`, `/re/I`, `\%re%`, `first~step`).
fn skip_sed_address(c: &[char], i: &mut usize) -> bool {
    match c.get(*i) {
        Some(d) if d.is_ascii_digit() => {
            while *i < c.len() && (c[*i].is_ascii_digit() || c[*i] == '~') {
                *i += 1;
            }
        }
        Some('$') => *i += 1,
        Some('/') | Some('\\') => {
            let delim = if c[*i] == '\\' {
                *i += 1;
                match c.get(*i) {
                    Some(&d) => d,
                    None => return false,
                }
            } else {
                '/'
            };
            *i += 1;
            while *i < c.len() && c[*i] != delim {
                *i += if c[*i] == '\\' { 2 } else { 1 };
            }
            if *i >= c.len() {
                return false;
            }
            *i += 1;
            while *i < c.len() && (c[*i] == 'I' || c[*i] == 'M') {
                *i += 1;
            }
        }
        _ => {}
    }
    true
}

// ---------------------------------------------------------------------------
// git: the inspecting subcommands, with their writing flags refused.

fn check_git(args: &[&str]) -> Result<(), String> {
    let mut i = 0;
    // Global options before the subcommand.
    while let Some(a) = args.get(i) {
        match *a {
            // Another directory means another repository, with its own config.
            "-C" if matches!(args.get(i + 1), Some(&".") | Some(&"./")) => i += 2,
            "-C" => {
                return Err(
                    "`git -C` to another directory reads that repository's configuration, \
                     which can run programs"
                        .to_string(),
                )
            }
            "--no-pager" | "-P" | "--no-optional-locks" | "--literal-pathspecs" => i += 1,
            _ if a.starts_with("--git-dir") || a.starts_with("--work-tree") || *a == "--bare" => {
                return Err(format!(
                    "`git {a}` points git at a repository (maybe a bare one) whose configuration \
                     can run programs"
                ))
            }
            "-c" => return Err("`git -c` can make git run any program".to_string()),
            _ if a.starts_with('-') => {
                return Err(format!("git option `{a}` is not known to be safe"))
            }
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return Ok(()); // bare `git` prints help
    };
    let rest = &args[i + 1..];
    match *sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "annotate" | "shortlog" | "describe" | "cat-file" | "show-ref" | "merge-base"
        | "name-rev" | "count-objects" | "for-each-ref" | "rev-list" | "whatchanged"
        | "diff-tree" | "diff-files" | "diff-index" | "var" | "version" | "check-ignore"
        | "check-attr" | "cherry" | "range-diff" | "grep" => check_git_writing_options(sub, rest),
        "branch" => check_git_listing("branch", rest, BRANCH_LIST_FLAGS),
        "tag" => check_git_listing("tag", rest, TAG_LIST_FLAGS),
        "remote" => match rest.first() {
            None | Some(&"-v") | Some(&"--verbose") if rest.len() <= 1 => Ok(()),
            Some(&"show") | Some(&"get-url") => Ok(()),
            _ => Err("`git remote` with these arguments changes the remotes".to_string()),
        },
        "stash" | "worktree" => match rest.first() {
            Some(&"list") => Ok(()),
            Some(&"show") if *sub == "stash" => Ok(()),
            _ => Err(format!("`git {sub}` without `list` changes the repository")),
        },
        // `git reflog [show]` takes `git log`'s options, `--output` among them.
        "reflog" => match rest.first() {
            None => Ok(()),
            Some(&"show") => check_git_writing_options("reflog", &rest[1..]),
            Some(a) if a.starts_with('-') => check_git_writing_options("reflog", rest),
            _ => Err("`git reflog` with a subcommand may rewrite the reflog".to_string()),
        },
        "config" => check_git_config(rest),
        other => Err(format!(
            "`git {other}` changes the repository or is not known to be read-only"
        )),
    }
}

/// The options of git's inspecting commands that write a file or run a
/// program, however abbreviated (git's option parser takes unique prefixes).
fn check_git_writing_options(sub: &str, rest: &[&str]) -> Result<(), String> {
    const DANGEROUS: &[&str] = &["--output", "--ext-diff", "--open-files-in-pager"];
    let writing = rest.iter().find(|a| {
        a.starts_with("--output")
            || abbreviates_any(a, DANGEROUS).is_some()
            || (sub == "grep" && is_short_cluster(a) && a.contains('O'))
    });
    match writing {
        Some(flag) => Err(format!("`git {sub} {flag}` writes or runs other programs")),
        None => Ok(()),
    }
}

/// The flags `git branch` and `git tag` both take when listing.
const LISTING_FLAGS: &[&str] = &[
    "-l",
    "-i",
    "--list",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--ignore-case",
    "--omit-empty",
    "--no-color",
    "--no-column",
];

/// `git branch`'s own listing flags, besides [`LISTING_FLAGS`].
const BRANCH_LIST_FLAGS: &[&str] = &[
    "-a",
    "-r",
    "-v",
    "-vv",
    "--all",
    "--remotes",
    "--show-current",
    "--verbose",
];

/// `git tag`'s own listing flags, besides [`LISTING_FLAGS`].
const TAG_LIST_FLAGS: &[&str] = &["-n"];

/// `git branch` / `git tag` only when listing: known flags only ([`LISTING_FLAGS`]
/// and the command's `own` ones), and operands only as patterns after a listing flag.
fn check_git_listing(sub: &str, rest: &[&str], own: &[&str]) -> Result<(), String> {
    let mut listing = false;
    let mut operands = false;
    for a in rest {
        let with_value = ["--sort=", "--format=", "--color", "--column", "--abbrev="];
        if LISTING_FLAGS.contains(a) || own.contains(a) {
            listing |= *a != "-v" && *a != "-vv" && *a != "--verbose" && *a != "-i";
        } else if with_value.iter().any(|p| a.starts_with(p))
            || (sub == "tag" && a.starts_with("-n"))
        {
        } else if a.starts_with('-') {
            return Err(format!("`git {sub} {a}` changes the repository"));
        } else {
            operands = true;
        }
    }
    if operands && !listing {
        return Err(format!(
            "`git {sub}` with a name creates or changes a {sub}"
        ));
    }
    Ok(())
}

fn check_git_config(rest: &[&str]) -> Result<(), String> {
    const READING: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
    ];
    const NEUTRAL: &[&str] = &[
        "--global",
        "--local",
        "--system",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "--name-only",
        "-z",
        "--null",
        "--bool",
        "--int",
        "--path",
        "--includes",
        "--no-includes",
    ];
    let mut reading = false;
    let mut operands = 0;
    for a in rest {
        if READING.contains(a) {
            reading = true;
        } else if NEUTRAL.contains(a) || a.starts_with("--type=") || a.starts_with("--default=") {
        } else if a.starts_with('-') {
            return Err(format!("`git config {a}` changes the configuration"));
        } else {
            operands += 1;
        }
    }
    if reading || operands <= 1 {
        Ok(())
    } else {
        Err("`git config NAME VALUE` sets a value".to_string())
    }
}
