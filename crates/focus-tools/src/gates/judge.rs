//! The read-only judge: does this shell command only read?
//!
//! Used twice: permission modes let a read-only command run without asking (and in
//! `plan` mode it is the only kind of command that runs), and the agent loop lets
//! read-only calls run in parallel. Both uses fail safe: anything the judge does not
//! understand is **not read-only**.
//!
//! How it decides, in order ([`judge`]):
//! 1. parse with [`shell_lexer`](super::shell_lexer); a parse error → not read-only;
//! 2. judge every command substitution (`$(…)`, backticks, `<(…)`) recursively;
//! 3. for every simple command: output redirections must go to `/dev/null`-like
//!    targets; leading `NAME=value` assignments must not touch variables that change
//!    which program runs (`PATH`, `LD_*`…); wrappers (`sudo`, `env`, `nice`,
//!    `timeout`, `time`, `command`, `xargs`, `sh -c '…'`) are looked through; the
//!    program must be on the allow list of [`readonly_programs`](super::readonly_programs)
//!    and its arguments must pass that program's check (`find` without `-delete`,
//!    `sed` without `-i`, `git branch` only listing…).

use std::path::Path;

use super::long_options;
use super::readonly_programs::{check_program, ArgsOrigin};
use super::shell_lexer::{parse, RedirectKind, SimpleCommand, Word};

/// The judge's answer with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every part of the command only reads.
    ReadOnly,
    /// Something may write, or the judge could not tell; the reason says which part.
    NotReadOnly(String),
}

impl Verdict {
    /// Whether the verdict is [`Verdict::ReadOnly`].
    pub fn is_read_only(&self) -> bool {
        matches!(self, Verdict::ReadOnly)
    }
}

/// How deep `sh -c "…$(…)…"` nesting may go before the judge gives up.
const MAX_DEPTH: usize = 8;

/// Whether `cmd` only reads (see the module docs). The answer to use for
/// `Tool::is_read_only` of a shell tool.
pub fn is_read_only_command(cmd: &str) -> bool {
    judge(cmd).is_read_only()
}

/// Judges `cmd` and explains a negative answer.
pub fn judge(cmd: &str) -> Verdict {
    match judge_with(cmd, Edits::No, 0) {
        Verdict::ReadOnly => match super::git_guard::git_line_problem(cmd) {
            Some(problem) => Verdict::NotReadOnly(problem),
            None => Verdict::ReadOnly,
        },
        other => other,
    }
}

/// Whether every part of `cmd` is read-only or a simple file operation inside the
/// working directory (`mkdir`, `touch`, `cp`, `mv` on relative paths without `..`).
/// The `accept-edits` permission mode lets these run without asking.
pub fn is_workspace_edit_command(cmd: &str) -> bool {
    judge_with(cmd, Edits::Lexical, 0).is_read_only()
}

/// [`is_workspace_edit_command`], and every path operand, resolved against
/// `project` with its symbolic links followed, stays inside `project` (so `cp f
/// link/` through a link out of the project is not a workspace edit).
pub fn is_workspace_edit_command_in(cmd: &str, project: &Path) -> bool {
    judge_with(cmd, Edits::Inside(project), 0).is_read_only()
}

/// Whether simple file operations count as allowed, and how their paths are
/// checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edits<'a> {
    /// No: only reading commands pass.
    No,
    /// Yes, when every path is relative and has no `..` component.
    Lexical,
    /// Yes, when moreover every path resolves inside this directory.
    Inside(&'a Path),
}

/// One simple command of a command line, for matching permission rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandPart {
    /// The words with quotes removed, joined by spaces (`git commit -m msg`).
    pub text: String,
    /// The same after leading assignments and wrappers (`sudo`, `env`, `timeout`…)
    /// are removed: the program that really runs and its arguments.
    pub effective: String,
    /// The judge's verdict on this part alone (its redirections included).
    pub read_only: bool,
}

/// Splits `cmd` into its simple commands, including those inside command
/// substitutions and `sh -c '…'` strings. `None` when it cannot be parsed.
pub fn split_commands(cmd: &str) -> Option<Vec<CommandPart>> {
    let mut parts = Vec::new();
    split_into(cmd, 0, &mut parts).then_some(parts)
}

fn split_into(cmd: &str, depth: usize, parts: &mut Vec<CommandPart>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let Ok(parsed) = parse(cmd) else {
        return false;
    };
    for inner in &parsed.substitutions {
        if !split_into(inner, depth + 1, parts) {
            return false;
        }
    }
    for command in &parsed.commands {
        let effective = unwrap_command(&command.words).ok().flatten();
        if let Some(script) = effective
            .as_ref()
            .and_then(|(words, _)| shell_script(words))
        {
            if !split_into(&script, depth + 1, parts) {
                return false;
            }
        }
        let effective_text = effective
            .map(|(words, _)| {
                words
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        parts.push(CommandPart {
            text: command.text(),
            effective: effective_text,
            read_only: judge_simple(command, Edits::No, depth).is_read_only(),
        });
    }
    true
}

fn judge_with(cmd: &str, workspace_edits: Edits<'_>, depth: usize) -> Verdict {
    if depth > MAX_DEPTH {
        return Verdict::NotReadOnly("commands are nested too deeply to judge".to_string());
    }
    let parsed = match parse(cmd) {
        Ok(parsed) => parsed,
        Err(e) => return Verdict::NotReadOnly(format!("cannot parse the command: {e}")),
    };
    for inner in &parsed.substitutions {
        if let Verdict::NotReadOnly(reason) = judge_with(inner, workspace_edits, depth + 1) {
            return Verdict::NotReadOnly(format!("in `{}`: {reason}", shorten(inner)));
        }
    }
    // Relative paths are checked against the working directory; after a `cd`
    // they mean something else (`cd .. && touch x`), so no file operation of
    // such a line counts as a workspace edit.
    let workspace_edits =
        if workspace_edits != Edits::No && parsed.commands.iter().any(changes_directory) {
            Edits::No
        } else {
            workspace_edits
        };
    for command in &parsed.commands {
        let verdict = judge_simple(command, workspace_edits, depth);
        if !verdict.is_read_only() {
            return verdict;
        }
    }
    Verdict::ReadOnly
}

/// Redirection targets that are not files on disk: the bit bucket and the
/// command's own output streams. Every other device (`/dev/tty`, where a
/// command could retitle or clear the user's terminal) counts as a write.
const HARMLESS_TARGETS: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/1",
    "/dev/fd/2",
];

/// Shell keywords that may start a simple command and do not run anything themselves.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until",
];

fn judge_simple(command: &SimpleCommand, workspace_edits: Edits<'_>, depth: usize) -> Verdict {
    for redirect in &command.redirects {
        let target = &redirect.target;
        let harmless = match redirect.kind {
            RedirectKind::Input | RedirectKind::HereString => true,
            RedirectKind::Output => {
                !target.dynamic && HARMLESS_TARGETS.contains(&target.text.as_str())
            }
            RedirectKind::Duplicate => {
                !target.dynamic
                    && (target.text == "-"
                        || (!target.text.is_empty()
                            && target
                                .text
                                .trim_end_matches('-')
                                .chars()
                                .all(|c| c.is_ascii_digit())))
            }
        };
        if !harmless {
            return Verdict::NotReadOnly(format!(
                "redirects output to `{}`, which writes a file",
                target.text
            ));
        }
    }
    let mut words: &[Word] = &command.words;
    while let Some(first) = words.first() {
        if first.quoted || !KEYWORDS.contains(&first.text.as_str()) {
            break;
        }
        words = &words[1..];
    }
    if let Some(first) = words.first() {
        if !first.quoted && first.text == "for" {
            // `for NAME in words`: only expansions, which were judged already.
            return Verdict::ReadOnly;
        }
        if !first.quoted
            && matches!(
                first.text.as_str(),
                "case" | "select" | "function" | "coproc"
            )
        {
            return Verdict::NotReadOnly(format!("`{}` is not supported by the judge", first.text));
        }
    }
    match unwrap_command(words) {
        Err(reason) => Verdict::NotReadOnly(reason),
        Ok(None) => Verdict::ReadOnly,
        Ok(Some((words, origin))) => {
            if let Some(script) = shell_script(&words) {
                return match judge_with(&script, workspace_edits, depth + 1) {
                    Verdict::ReadOnly => Verdict::ReadOnly,
                    Verdict::NotReadOnly(r) => Verdict::NotReadOnly(format!("in `sh -c`: {r}")),
                };
            }
            let program = &words[0].text;
            if matches!(
                program.as_str(),
                "export" | "local" | "declare" | "typeset" | "readonly"
            ) {
                // Only variables change, but some variables change what runs later,
                // and some forms evaluate arithmetic, whose array subscripts run
                // command substitutions: `declare 'a[$(…)]=1'`, `declare -i x=…`,
                // a name reference (`-n`) expanded later.
                for word in &words[1..] {
                    if word.dynamic {
                        return Verdict::NotReadOnly(format!(
                            "`{program}` with a computed argument"
                        ));
                    }
                    if word.text.contains('[') {
                        return Verdict::NotReadOnly(format!(
                            "`{program}` with an array subscript can run commands"
                        ));
                    }
                    let is_flag = word.assignment_name_len.is_none()
                        && (word.text.starts_with('-') || word.text.starts_with('+'));
                    if is_flag && !word.text[1..].chars().all(|c| "xrpgfF".contains(c)) {
                        return Verdict::NotReadOnly(format!(
                            "`{program} {}` can make a later expansion run commands",
                            word.text
                        ));
                    }
                    if let Some(len) = word.assignment_name_len {
                        if let Err(reason) = check_assignment(&word.text[..len]) {
                            return Verdict::NotReadOnly(reason);
                        }
                    }
                }
                return Verdict::ReadOnly;
            }
            if is_workspace_file_op(program, &words[1..], origin, workspace_edits) {
                return Verdict::ReadOnly;
            }
            match check_program(program, &words[1..], origin) {
                Ok(()) => Verdict::ReadOnly,
                Err(reason) => Verdict::NotReadOnly(reason),
            }
        }
    }
}

/// Whether `command` changes the working directory (`cd`, `pushd`, `popd`),
/// also through wrappers.
fn changes_directory(command: &SimpleCommand) -> bool {
    let words: Vec<Word> = command
        .words
        .iter()
        .skip_while(|w| !w.quoted && KEYWORDS.contains(&w.text.as_str()))
        .cloned()
        .collect();
    match unwrap_command(&words) {
        Ok(Some((words, _))) => matches!(words[0].text.as_str(), "cd" | "pushd" | "popd"),
        Ok(None) => false,
        Err(_) => true,
    }
}

/// The command that really runs: its words (program first) and where its
/// arguments come from.
type Effective = (Vec<Word>, ArgsOrigin);

/// Strips leading assignments and wrapper programs. `Ok(None)` when nothing runs
/// (only assignments, or a wrapper that just prints like bare `env`).
fn unwrap_command(words: &[Word]) -> Result<Option<Effective>, String> {
    let mut words: Vec<Word> = words.to_vec();
    let mut origin = ArgsOrigin::Literal;
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > 16 {
            return Err("too many nested wrappers".to_string());
        }
        // Leading NAME=value assignments.
        while let Some(first) = words.first() {
            let Some(len) = first.assignment_name_len else {
                break;
            };
            check_assignment(&first.text[..len])?;
            words.remove(0);
        }
        let Some(first) = words.first() else {
            return Ok(None);
        };
        if first.dynamic {
            return Err("the program name is computed at run time".to_string());
        }
        let program = program_name(&first.text)?;
        let rest = &words[1..];
        let skip = match program.as_str() {
            "sudo" => {
                // -A runs an askpass program, -e edits files, -s/-i start a shell.
                let n = skip_options(
                    rest,
                    &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"],
                )?;
                let runs_more = rest[..n].iter().any(|w| {
                    (w.text.starts_with('-')
                        && !w.text.starts_with("--")
                        && w.text.contains(['A', 'e', 's', 'i']))
                        || long_options::abbreviates_any(
                            &w.text,
                            &["--askpass", "--edit", "--shell", "--login", "--chroot"],
                        )
                        .is_some()
                });
                if runs_more {
                    return Err("`sudo` with these options runs other programs".to_string());
                }
                n
            }
            "nice" => skip_options(rest, &["-n"])?,
            // The shell keyword takes only `-p`; GNU time's `-o FILE` writes a file.
            "time" => {
                let n = skip_options(rest, &[])?;
                if rest[..n].iter().any(|w| w.text != "-p" && w.text != "--") {
                    return Err("`time` with options other than -p may write a file".to_string());
                }
                n
            }
            "command" => {
                if rest.iter().any(|w| w.text == "-v" || w.text == "-V") {
                    return Ok(None);
                }
                skip_options(rest, &[])?
            }
            "timeout" => {
                let n = skip_options(rest, &["-s", "-k"])?;
                if n >= rest.len() {
                    return Err("`timeout` without a command".to_string());
                }
                n + 1 // the duration
            }
            "env" => {
                let n = skip_env_options(rest)?;
                if n >= rest.len() {
                    if origin == ArgsOrigin::Appended {
                        // `xargs env` runs whatever the input names.
                        return Err("`env` would run the arguments `xargs` appends".to_string());
                    }
                    return Ok(None);
                }
                n
            }
            "xargs" => {
                let n = skip_options(
                    rest,
                    &[
                        "-a",
                        "-d",
                        "-E",
                        "-I",
                        "-L",
                        "-n",
                        "-P",
                        "-s",
                        "--delimiter",
                        "--max-args",
                    ],
                )?;
                origin = ArgsOrigin::Appended;
                if n >= rest.len() {
                    // xargs runs `echo` by default.
                    return Ok(None);
                }
                n
            }
            _ => {
                let mut words = words;
                words[0].text = program;
                return Ok(Some((words, origin)));
            }
        };
        if skip >= rest.len() {
            return Err(format!("`{program}` without a command"));
        }
        words = rest[skip..].to_vec();
    }
}

/// GNU env's long options, for resolving abbreviations.
const ENV_LONG: &[&str] = &[
    "--argv0",
    "--block-signal",
    "--chdir",
    "--debug",
    "--default-signal",
    "--ignore-environment",
    "--ignore-signal",
    "--list-signal-handling",
    "--null",
    "--split-string",
    "--unset",
    "--help",
    "--version",
];

/// Counts `env`'s leading options and assignments; refuses the ones that make
/// it run something the judge cannot see (`-S`, `--split-string`).
fn skip_env_options(rest: &[Word]) -> Result<usize, String> {
    let mut n = 0;
    while let Some(w) = rest.get(n) {
        if w.dynamic {
            return Err("arguments of `env` are computed at run time".to_string());
        }
        let text = w.text.as_str();
        if let Some(len) = w.assignment_name_len {
            check_assignment(&text[..len])?;
            n += 1;
        } else if text == "--" {
            return Ok(n + 1);
        } else if text.starts_with("--") {
            let takes_value = !text.contains('=');
            match long_options::resolve(text, ENV_LONG)? {
                "--split-string" => {
                    return Err("`env -S` is not supported by the judge".to_string())
                }
                "--argv0" | "--chdir" | "--unset" if takes_value => n += 2,
                _ => n += 1,
            }
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            // Letters that take a value end the cluster; the value is the rest
            // of the word or the next word.
            let mut skip = 1;
            for (i, c) in cluster.char_indices() {
                match c {
                    'i' | '0' | 'v' => {}
                    'u' | 'C' | 'a' => {
                        if i + 1 == cluster.len() {
                            skip = 2;
                        }
                        break;
                    }
                    'S' => return Err("`env -S` is not supported by the judge".to_string()),
                    other => return Err(format!("`env -{other}` is not known to be safe")),
                }
            }
            n += skip;
        } else {
            break;
        }
    }
    Ok(n)
}

/// Counts leading options of a wrapper; options listed in `with_value` take the next
/// word as their value.
fn skip_options(rest: &[Word], with_value: &[&str]) -> Result<usize, String> {
    let mut n = 0;
    while let Some(w) = rest.get(n) {
        if w.dynamic {
            return Err("wrapper options are computed at run time".to_string());
        }
        if w.text == "--" {
            return Ok(n + 1);
        }
        if !w.text.starts_with('-') || w.text == "-" {
            break;
        }
        n += if with_value.contains(&w.text.as_str()) {
            2
        } else {
            1
        };
    }
    Ok(n)
}

/// Refuses assignments to variables that change which program runs or what it loads.
fn check_assignment(name: &str) -> Result<(), String> {
    const RISKY: &[&str] = &[
        "PATH",
        "IFS",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "MANPAGER",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "SUDO_ASKPASS",
        "SSH_ASKPASS",
        "RIPGREP_CONFIG_PATH",
        "GCONV_PATH",
        "LOCPATH",
        "TMPDIR",
    ];
    let risky_prefix = ["LD_", "DYLD_", "GIT_", "BASH_FUNC_"]
        .iter()
        .any(|p| name.starts_with(p));
    if RISKY.contains(&name) || risky_prefix {
        return Err(format!(
            "sets `{name}`, which can change what a program does"
        ));
    }
    Ok(())
}

/// The program's name: bare names as they are, absolute paths in the system
/// binary directories by their base name; anything else (`./ls`) is unknown.
fn program_name(text: &str) -> Result<String, String> {
    if !text.contains('/') {
        return Ok(text.to_string());
    }
    for dir in [
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
    ] {
        if let Some(base) = text.strip_prefix(dir) {
            if !base.is_empty() && !base.contains('/') {
                return Ok(base.to_string());
            }
        }
    }
    Err(format!("`{text}` is not a known read-only program"))
}

/// The script of `sh -c 'script'` (also bash, zsh, dash, ksh), if that is the form.
fn shell_script(words: &[Word]) -> Option<String> {
    let program = words.first()?;
    if !matches!(
        program.text.as_str(),
        "sh" | "bash" | "zsh" | "dash" | "ksh"
    ) {
        return None;
    }
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let flags = w.text.strip_prefix('-')?;
        if w.dynamic || flags.is_empty() || !flags.chars().all(|c| "celxu".contains(c)) {
            return None;
        }
        i += 1;
        if flags.contains('c') {
            let script = words.get(i)?;
            return (!script.dynamic).then(|| script.text.clone());
        }
    }
    None
}

/// `mkdir`, `touch`, `cp`, `mv` whose every argument is a flag without a value
/// or a relative path that stays inside the working directory. Options that
/// name a directory (`-t..`, `--target-directory=..`, in any abbreviation) or
/// take another value are refused outright.
fn is_workspace_file_op(
    program: &str,
    args: &[Word],
    origin: ArgsOrigin,
    edits: Edits<'_>,
) -> bool {
    if edits == Edits::No
        || !matches!(program, "mkdir" | "touch" | "cp" | "mv")
        || origin == ArgsOrigin::Appended
    {
        return false;
    }
    const PLAIN_LONG: &[&str] = &[
        "--parents",
        "--verbose",
        "--recursive",
        "--archive",
        "--force",
        "--no-clobber",
        "--interactive",
        "--update",
        "--no-create",
        "--",
    ];
    args.iter().all(|w| {
        let text = w.text.as_str();
        if w.dynamic || text.is_empty() {
            return false;
        }
        if text.starts_with("--") {
            return PLAIN_LONG.contains(&text);
        }
        if let Some(flags) = text.strip_prefix('-') {
            return !flags.is_empty() && flags.chars().all(|c| "pvRrafniuc".contains(c));
        }
        if text.starts_with('/') || text.starts_with('~') || text.split('/').any(|p| p == "..") {
            return false;
        }
        match edits {
            Edits::Inside(project) => {
                let Ok(root) = project.canonicalize() else {
                    return false;
                };
                crate::sandbox::resolve_existing(&root.join(text)).starts_with(&root)
            }
            _ => true,
        }
    })
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(60).collect::<String>())
    }
}
