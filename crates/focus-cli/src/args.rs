//! The command line: [`parse`] turns `std::env::args` into [`Args`], or into a
//! [`UsageError`] that names the problem and the fix (exit code 2).
//!
//! Flags are spelled as pi spells them, so a pi user's muscle memory works:
//! `focus -p "explain this" @src/main.rs`, `focus --mode json -c`, `focus -r`.
//! Both `--flag value` and `--flag=value` are accepted. Positional arguments are
//! messages, except `@path`, which attaches a file. The parser is pure (no file
//! system, no environment), so every flag has a unit test below.

use focus_core::provider::ThinkingLevel;
use std::fmt;
use std::path::PathBuf;

/// How the answer is delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// Human-readable text (interactive, or the final answer in print mode).
    #[default]
    Text,
    /// Every agent event as one JSON line (implies print mode).
    Json,
    /// JSON-lines commands on stdin, events and responses on stdout.
    Rpc,
}

/// A subcommand given as the first positional word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subcommand {
    /// `focus mcp list`: the configured MCP servers and their tools.
    McpList,
    /// `focus rewind …`: a session's files and/or conversation back to an entry.
    Rewind(crate::checkpoints::RewindArgs),
    /// `focus sessions gc`: prune the checkpoint store of this folder's sessions.
    SessionsGc,
    /// `focus mcp serve`: focus's tools (and an `agent` tool) served over MCP.
    McpServe(serve::ServeOptions),
}

/// Everything the command line said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args {
    /// `-p/--print`: run the prompt(s), print the answer, exit.
    pub print: bool,
    /// `--mode text|json|rpc`.
    pub mode: OutputMode,
    /// `--provider NAME`.
    pub provider: Option<String>,
    /// `--model PATTERN` (`id`, `provider/id`, optionally `:thinking`).
    pub model: Option<String>,
    /// `--models P1,P2`: the model patterns Ctrl+P cycles through (pi's flag;
    /// replaces the `enabledModels` setting).
    pub models: Option<Vec<String>>,
    /// `--thinking LEVEL`.
    pub thinking: Option<ThinkingLevel>,
    /// `-c/--continue`: continue the most recent session of this directory.
    pub continue_session: bool,
    /// `-r/--resume`: choose a recent session of this directory.
    pub resume: bool,
    /// `--session PATH|ID`: open this session.
    pub session: Option<String>,
    /// `--no-session`: keep nothing on disk.
    pub no_session: bool,
    /// `--session-dir DIR`: where sessions are stored.
    pub session_dir: Option<PathBuf>,
    /// `--tools a,b,c`: enable only these built-in tools.
    pub tools: Option<Vec<String>>,
    /// `--no-tools`: no tools at all.
    pub no_tools: bool,
    /// `--system-prompt TEXT|FILE`: replaces the base system prompt.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt TEXT|FILE`: added after the system prompt.
    pub append_system_prompt: Option<String>,
    /// `--list-models [SEARCH]`: `Some(None)` lists all, `Some(Some(s))` filters.
    pub list_models: Option<Option<String>>,
    /// `--export SESSION.jsonl [OUT.html]`.
    pub export: Option<(PathBuf, Option<PathBuf>)>,
    /// `--permission-mode default|accept-edits|plan|auto`.
    pub permission_mode: Option<String>,
    /// `--sandbox on|off`: `Some(false)` runs tools unconfined on purpose.
    pub sandbox: Option<bool>,
    /// `--offline`: do not probe loopback servers when choosing a model.
    pub offline: bool,
    /// `--trust-project`: the project's `.focus/settings.json` applies whole
    /// for this run (hooks, MCP servers, looser modes, sandbox changes), as
    /// if the folder were trusted.
    pub trust_project: bool,
    /// `-v/--version`.
    pub version: bool,
    /// `-h/--help`.
    pub help: bool,
    /// `@path` arguments: files to attach to the first prompt.
    pub files: Vec<PathBuf>,
    /// The other positional arguments: messages, sent one after another.
    pub messages: Vec<String>,
    /// The headless run's flags (`--denials`, `--output-format`, …).
    pub headless: headless::Headless,
    /// A subcommand such as `mcp list`.
    pub subcommand: Option<Subcommand>,
}

/// A command line that cannot be run: one line naming the problem and the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "focus: {} (see `focus --help`)", self.0)
    }
}

pub mod flags;
pub mod headless;
pub mod serve;

/// The non-empty items of a comma-separated list, trimmed.
fn comma_list(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// Parses the arguments after the program name.
pub fn parse<I, S>(arguments: I) -> Result<Args, UsageError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let words: Vec<String> = arguments.into_iter().map(Into::into).collect();
    let mut args = Args::default();
    let mut i = 0;
    let mut only_positionals = false;
    if words.first().map(String::as_str) == Some("mcp") {
        return parse_mcp(&words[1..]);
    }
    if words.first().map(String::as_str) == Some("sessions") {
        return match &words[1..] {
            [gc] if gc == "gc" => Ok(Args {
                subcommand: Some(Subcommand::SessionsGc),
                ..Args::default()
            }),
            _ => Err(UsageError(
                "`focus sessions` has one command: `focus sessions gc`".into(),
            )),
        };
    }
    if words.first().map(String::as_str) == Some("rewind") {
        return parse_rewind(&words[1..]);
    }
    while i < words.len() {
        let word = &words[i];
        i += 1;
        if only_positionals || word == "-" || !word.starts_with('-') {
            push_positional(&mut args, word)?;
            continue;
        }
        if word == "--" {
            only_positionals = true;
            continue;
        }
        // `--flag=value` carries its value inline; otherwise values are the next word.
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = |what: &str| -> Result<String, UsageError> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            match words.get(i) {
                Some(v) => {
                    i += 1;
                    Ok(v.clone())
                }
                None => Err(UsageError(format!("{flag} needs a value: {flag} {what}"))),
            }
        };
        match flag {
            "-p" | "--print" => args.print = true,
            "--mode" => {
                args.mode = match value("text|json|rpc")?.as_str() {
                    "text" => OutputMode::Text,
                    "json" => OutputMode::Json,
                    "rpc" => OutputMode::Rpc,
                    other => {
                        return Err(UsageError(format!(
                            "unknown mode {other:?} for --mode; use text, json or rpc"
                        )))
                    }
                }
            }
            "--provider" => args.provider = Some(non_empty(flag, value("NAME")?)?),
            "--model" => args.model = Some(non_empty(flag, value("PROVIDER/MODEL")?)?),
            "--thinking" => {
                let level = value("LEVEL")?;
                args.thinking = Some(ThinkingLevel::parse(&level).ok_or_else(|| {
                    UsageError(format!(
                        "unknown thinking level {level:?} for --thinking; use off, minimal, low, medium, high or xhigh"
                    ))
                })?);
            }
            "-c" | "--continue" => args.continue_session = true,
            "-r" | "--resume" => args.resume = true,
            "--session" => args.session = Some(non_empty(flag, value("PATH|ID")?)?),
            "--no-session" => args.no_session = true,
            "--session-dir" => {
                args.session_dir = Some(PathBuf::from(non_empty(flag, value("DIR")?)?))
            }
            "--models" => {
                let patterns = comma_list(&value("PATTERNS")?);
                if patterns.is_empty() {
                    return Err(UsageError(
                        "--models needs a comma-separated list of model patterns such as anthropic/*,gpt-5:high".into(),
                    ));
                }
                args.models = Some(patterns);
            }
            "--tools" => {
                let names = comma_list(&value("read,bash,...")?);
                if names.is_empty() {
                    return Err(UsageError(
                        "--tools needs a comma-separated list such as read,bash; use --no-tools for none".into(),
                    ));
                }
                args.tools = Some(names);
            }
            "--no-tools" => args.no_tools = true,
            "--system-prompt" => args.system_prompt = Some(value("TEXT|FILE")?),
            "--append-system-prompt" => args.append_system_prompt = Some(value("TEXT|FILE")?),
            "--list-models" => {
                // The search term is optional: take the next word unless it is a flag.
                let search = match inline.clone() {
                    Some(v) => Some(v),
                    None => take_optional(&words, &mut i),
                };
                args.list_models = Some(search);
            }
            "--export" => {
                let input = PathBuf::from(non_empty(flag, value("SESSION.jsonl [OUT.html]")?)?);
                let output = take_optional(&words, &mut i).map(PathBuf::from);
                args.export = Some((input, output));
            }
            "--permission-mode" => {
                let mode = value("MODE")?;
                // The gate's own reading: the same names as in settings
                // (Claude Code's `acceptEdits` too).
                if focus_tools::gates::Mode::parse(&mode).is_err() {
                    return Err(UsageError(format!(
                        "unknown permission mode {mode:?}; use default, accept-edits, plan or auto"
                    )));
                }
                args.permission_mode = Some(mode);
            }
            "--sandbox" => {
                args.sandbox = Some(match value("on|off")?.as_str() {
                    "on" => true,
                    "off" => false,
                    other => {
                        return Err(UsageError(format!(
                            "unknown --sandbox value {other:?}; use on or off"
                        )))
                    }
                });
            }
            "--offline" => args.offline = true,
            "--trust-project" => args.trust_project = true,
            "-v" | "--version" => args.version = true,
            "-h" | "--help" => args.help = true,
            "--api-key" => {
                return Err(UsageError(
                    "--api-key is not supported because other users can read command lines; set the provider's environment variable (e.g. ANTHROPIC_API_KEY) or put apiKey in models.json".into(),
                ))
            }
            _ => match headless::take(&mut args.headless, flag, &mut value) {
                Some(taken) => taken?,
                None => return Err(unknown_flag(flag)),
            },
        }
        if inline.is_some() && !flag_takes_value(flag) {
            return Err(UsageError(format!("{flag} takes no value; write it alone")));
        }
    }
    check_combinations(&args)?;
    Ok(args)
}

/// Whether a flag takes a value (so `--flag=value` makes sense).
fn flag_takes_value(flag: &str) -> bool {
    flags::find(flag).is_some_and(|f| f.value.is_some())
}

/// `focus rewind [--session ID] [--to ENTRY] [--code|--conversation|--both]
/// [--dry-run] [--force] [--session-dir DIR]`.
fn parse_rewind(rest: &[String]) -> Result<Args, UsageError> {
    let mut rewind = crate::checkpoints::RewindArgs::default();
    let mut session_dir = None;
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        let mut value = |flag: &str| {
            words
                .next()
                .cloned()
                .ok_or_else(|| UsageError(format!("{flag} needs a value")))
        };
        match word.as_str() {
            "--session" => rewind.session = Some(value("--session")?),
            "--to" => rewind.to = Some(value("--to")?),
            "--session-dir" => session_dir = Some(PathBuf::from(value("--session-dir")?)),
            "--code" | "--conversation" | "--both" => {
                if rewind.scope.is_some() {
                    return Err(UsageError(
                        "give one of --code, --conversation and --both".into(),
                    ));
                }
                rewind.scope = Some(word[2..].to_string());
            }
            "--dry-run" => rewind.dry_run = true,
            "--force" => rewind.force = true,
            other => {
                return Err(UsageError(format!(
                    "unknown `focus rewind` option {other:?}; usage: focus rewind [--session ID] [--to ENTRY] [--code|--conversation|--both] [--dry-run] [--force]"
                )))
            }
        }
    }
    Ok(Args {
        subcommand: Some(Subcommand::Rewind(rewind)),
        session_dir,
        ..Args::default()
    })
}

/// `focus mcp list` and `focus mcp serve`.
fn parse_mcp(rest: &[String]) -> Result<Args, UsageError> {
    match rest.first().map(String::as_str) {
        Some("list") if rest.len() == 1 => Ok(Args {
            subcommand: Some(Subcommand::McpList),
            ..Args::default()
        }),
        Some("serve") => serve::parse(&rest[1..]),
        Some(other) => Err(UsageError(format!(
            "unknown `mcp` command {other:?}; use `focus mcp list` or `focus mcp serve`"
        ))),
        None => Err(UsageError(
            "`focus mcp` needs a command: `focus mcp list` or `focus mcp serve`".into(),
        )),
    }
}

/// A positional word: `@path` attaches a file, anything else is a message.
fn push_positional(args: &mut Args, word: &str) -> Result<(), UsageError> {
    match word.strip_prefix('@') {
        Some("") => Err(UsageError(
            "`@` needs a file name after it, like @src/main.rs".into(),
        )),
        Some(path) => {
            args.files.push(PathBuf::from(path));
            Ok(())
        }
        None => {
            args.messages.push(word.to_string());
            Ok(())
        }
    }
}

/// Takes the next word as an optional value unless it looks like a flag.
fn take_optional(words: &[String], i: &mut usize) -> Option<String> {
    let next = words.get(*i)?;
    if next.starts_with('-') {
        return None;
    }
    *i += 1;
    Some(next.clone())
}

/// Rejects an empty value for a flag that names something.
fn non_empty(flag: &str, value: String) -> Result<String, UsageError> {
    if value.trim().is_empty() {
        return Err(UsageError(format!("{flag} needs a non-empty value")));
    }
    Ok(value)
}

/// Flags that contradict each other.
fn check_combinations(args: &Args) -> Result<(), UsageError> {
    let session_choices = [
        args.continue_session,
        args.resume,
        args.session.is_some(),
        args.no_session,
    ];
    if session_choices.iter().filter(|&&b| b).count() > 1 {
        return Err(UsageError(
            "choose one of --continue, --resume, --session and --no-session".into(),
        ));
    }
    if args.no_tools && args.tools.is_some() {
        return Err(UsageError(
            "--tools and --no-tools contradict each other; keep one".into(),
        ));
    }
    if args.mode == OutputMode::Rpc && args.print {
        return Err(UsageError(
            "--mode rpc reads commands from stdin and cannot be combined with --print".into(),
        ));
    }
    if args.mode == OutputMode::Rpc && args.resume {
        return Err(UsageError(
            "--resume asks on the terminal; in --mode rpc use --session or the switch_session command".into(),
        ));
    }
    Ok(())
}

/// The error for an unknown flag, with the closest real flag when one is near.
fn unknown_flag(flag: &str) -> UsageError {
    let nearest = flags::all()
        .map(|known| (edit_distance(flag, known.long), known.long))
        .min();
    match nearest {
        Some((distance, known)) if distance <= 3 => {
            UsageError(format!("unknown flag {flag}; did you mean {known}?"))
        }
        _ => UsageError(format!(
            "unknown flag {flag}; to send it as a message, put it after `--`"
        )),
    }
}

/// Levenshtein distance, for suggestions (flags are short, so O(n·m) is nothing).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The `--help` text: usage, the flag table's sections ([`flags::help_sections`]),
/// then arguments and environment.
pub fn help() -> String {
    format!("{HELP_USAGE}{}{HELP_TRAILER}", flags::help_sections())
}

/// The part of `--help` before the flags.
const HELP_USAGE: &str = "\
focus: a coding agent for the terminal

USAGE
  focus [OPTIONS] [@FILE...] [MESSAGE...]     interactive (or print, when stdin is piped)
  focus -p [OPTIONS] [@FILE...] MESSAGE...    run, print the answer, exit
  focus --mode rpc                            JSON-lines commands on stdin (docs/rpc.md)
  focus mcp list                              the configured MCP servers and their tools
  focus mcp serve [--listen 127.0.0.1:PORT]   serve focus's tools over MCP (docs/mcp-server.md)

";

/// The part of `--help` after the flags.
const HELP_TRAILER: &str = "\
ARGUMENTS
  @FILE      Attach a file: text inline, images (png, jpg, gif, webp) as images
  MESSAGE    A prompt; several are sent one after another
  Piped stdin is added to the first prompt.

ENVIRONMENT
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...   API keys
  OLLAMA_HOST          Where a local Ollama listens (default 127.0.0.1:11434)
  FOCUS_HOME           Config, sessions and history (default ~/.focus/agent)
  NO_COLOR             Disable colors

With nothing configured, focus uses a local server if one answers (Ollama,
llama.cpp), else a built-in offline demo model that shows how focus works.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(words: &[&str]) -> Args {
        parse(words.iter().copied()).unwrap_or_else(|e| panic!("{words:?}: {e}"))
    }

    fn err(words: &[&str]) -> String {
        parse(words.iter().copied()).unwrap_err().to_string()
    }

    #[test]
    fn print_flag_and_messages() {
        let a = ok(&["-p", "hello", "world"]);
        assert!(a.print);
        assert_eq!(a.messages, ["hello", "world"]);
        assert!(ok(&["--print", "x"]).print);
    }

    #[test]
    fn mode_values() {
        assert_eq!(ok(&["--mode", "json"]).mode, OutputMode::Json);
        assert_eq!(ok(&["--mode=rpc"]).mode, OutputMode::Rpc);
        assert_eq!(ok(&["--mode", "text"]).mode, OutputMode::Text);
        assert!(err(&["--mode", "xml"]).contains("use text, json or rpc"));
        assert!(err(&["--mode"]).contains("--mode needs a value"));
    }

    #[test]
    fn provider_and_model() {
        let a = ok(&["--provider", "openai", "--model", "anthropic/claude:high"]);
        assert_eq!(a.provider.as_deref(), Some("openai"));
        assert_eq!(a.model.as_deref(), Some("anthropic/claude:high"));
        assert!(err(&["--model", ""]).contains("non-empty"));
        let scoped = ok(&["--models", "anthropic/*, gpt-5:high,,"]).models;
        assert_eq!(
            scoped,
            Some(vec!["anthropic/*".to_string(), "gpt-5:high".to_string()])
        );
        assert!(err(&["--models", " , "]).contains("comma-separated"));
    }

    #[test]
    fn thinking_levels() {
        for level in ThinkingLevel::ALL {
            assert_eq!(ok(&["--thinking", level.as_str()]).thinking, Some(level));
        }
        assert!(err(&["--thinking", "max"]).contains("use off, minimal"));
    }

    #[test]
    fn session_flags() {
        assert!(ok(&["-c"]).continue_session);
        assert!(ok(&["--continue"]).continue_session);
        assert!(ok(&["-r"]).resume);
        assert!(ok(&["--resume"]).resume);
        assert_eq!(ok(&["--session", "abc"]).session.as_deref(), Some("abc"));
        assert!(ok(&["--no-session"]).no_session);
        assert_eq!(
            ok(&["--session-dir", "/tmp/s"]).session_dir,
            Some(PathBuf::from("/tmp/s"))
        );
        assert!(err(&["-c", "--no-session"]).contains("choose one of"));
    }

    #[test]
    fn tools_lists() {
        assert_eq!(
            ok(&["--tools", "read, bash,,ls"]).tools,
            Some(vec!["read".into(), "bash".into(), "ls".into()])
        );
        assert!(ok(&["--no-tools"]).no_tools);
        assert!(err(&["--tools", ","]).contains("comma-separated"));
        assert!(err(&["--tools", "read", "--no-tools"]).contains("contradict"));
    }

    #[test]
    fn system_prompts() {
        let a = ok(&[
            "--system-prompt",
            "be brief",
            "--append-system-prompt",
            "x.md",
        ]);
        assert_eq!(a.system_prompt.as_deref(), Some("be brief"));
        assert_eq!(a.append_system_prompt.as_deref(), Some("x.md"));
    }

    #[test]
    fn list_models_search_is_optional() {
        assert_eq!(ok(&["--list-models"]).list_models, Some(None));
        assert_eq!(
            ok(&["--list-models", "sonnet"]).list_models,
            Some(Some("sonnet".into()))
        );
        assert_eq!(ok(&["--list-models", "-p"]).list_models, Some(None));
    }

    #[test]
    fn export_paths() {
        assert_eq!(
            ok(&["--export", "s.jsonl"]).export,
            Some((PathBuf::from("s.jsonl"), None))
        );
        assert_eq!(
            ok(&["--export", "s.jsonl", "o.html"]).export,
            Some((PathBuf::from("s.jsonl"), Some(PathBuf::from("o.html"))))
        );
        assert!(err(&["--export"]).contains("needs a value"));
    }

    #[test]
    fn permission_mode_and_offline() {
        assert_eq!(
            ok(&["--permission-mode", "plan"])
                .permission_mode
                .as_deref(),
            Some("plan")
        );
        assert!(err(&["--permission-mode", "yolo"]).contains("accept-edits"));
        assert!(ok(&["--offline"]).offline);
        assert!(ok(&["--trust-project"]).trust_project);
        assert_eq!(ok(&["--sandbox", "off"]).sandbox, Some(false));
        assert_eq!(ok(&["--sandbox=on"]).sandbox, Some(true));
        assert!(err(&["--sandbox", "maybe"]).contains("on or off"));
    }

    #[test]
    fn version_and_help() {
        assert!(ok(&["-v"]).version);
        assert!(ok(&["--version"]).version);
        assert!(ok(&["-h"]).help);
        assert!(ok(&["--help"]).help);
        for flag in flags::all() {
            assert!(
                help().contains(flag.long),
                "help does not mention {}",
                flag.long
            );
        }
    }

    #[test]
    fn attachments_and_double_dash() {
        let a = ok(&["@src/main.rs", "explain", "--", "--not-a-flag", "-"]);
        assert_eq!(a.files, [PathBuf::from("src/main.rs")]);
        assert_eq!(a.messages, ["explain", "--not-a-flag", "-"]);
        assert!(err(&["@"]).contains("needs a file name"));
    }

    #[test]
    fn the_parser_handles_every_flag_of_the_table_and_nothing_else() {
        for flag in flags::all() {
            for spelling in std::iter::once(flag.long).chain(flag.short) {
                let mut words = vec![spelling];
                if flag.value.is_some() {
                    words.push("json"); // a value; some flags refuse it, none as unknown
                }
                if let Err(e) = parse(words.iter().copied()) {
                    assert!(!e.0.contains("unknown flag"), "{spelling}: {e}");
                }
            }
        }
        assert!(err(&["--no-such-flag"]).contains("unknown flag"));
        // Claude Code's spelling of a mode, as settings accept it.
        assert_eq!(
            ok(&["--permission-mode", "acceptEdits"])
                .permission_mode
                .as_deref(),
            Some("acceptEdits")
        );
    }

    #[test]
    fn unknown_flags_suggest_the_fix() {
        assert_eq!(
            err(&["--modle", "json"]),
            "focus: unknown flag --modle; did you mean --mode? (see `focus --help`)"
        );
        assert!(err(&["--zzzzzzzzzzzz"]).contains("put it after `--`"));
        assert!(err(&["-x"]).contains("unknown flag -x"));
        assert!(err(&["--print=yes"]).contains("takes no value"));
        assert!(err(&["--api-key", "sk-secret"]).contains("environment variable"));
    }

    #[test]
    fn mcp_subcommand() {
        assert_eq!(ok(&["mcp", "list"]).subcommand, Some(Subcommand::McpList));
        let rewind = ok(&["rewind", "--to", "ab12", "--code", "--dry-run"]);
        assert_eq!(
            rewind.subcommand,
            Some(Subcommand::Rewind(crate::checkpoints::RewindArgs {
                to: Some("ab12".into()),
                scope: Some("code".into()),
                dry_run: true,
                ..Default::default()
            }))
        );
        assert!(err(&["rewind", "--code", "--both"]).contains("one of"));
        assert!(err(&["rewind", "--nope"]).contains("usage: focus rewind"));
        assert!(err(&["mcp"]).contains("focus mcp list"));
        assert!(err(&["mcp", "add"]).contains("focus mcp serve"));
    }

    #[test]
    fn contradictions() {
        assert!(err(&["--mode", "rpc", "-p"]).contains("cannot be combined"));
        assert!(err(&["--mode", "rpc", "-r"]).contains("switch_session"));
    }
}
