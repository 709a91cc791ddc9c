//! focus-cli: the `focus` command, which puts the layers together.
//!
//! Reading order: [`args`] (the flags, pure), [`input`] (the first prompt:
//! messages, `@file` attachments, piped stdin), [`setup`] (flags to an engine),
//! which uses [`choose`] and [`probe`] (which model when none is named),
//! [`seams`] (one function per other layer) and [`demo`] (the offline demo
//! model); [`engine`] (the harness's `Conversation` with the gate, MCP and the
//! terminal's interrupts plugged in: one conversation, shared by every mode);
//! [`modes`] (print, JSON, RPC, interactive); [`mcp_serve`] (`focus mcp serve`:
//! the tools and an `agent` tool over MCP); [`export`] (HTML); [`approval`]
//! (asking the user about a tool call); [`terminal`] (tty, raw mode, colors; the
//! calls into libc live in focus-sys, the only crate with `unsafe`). `main.rs` only calls [`run`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// `println!` that ignores a closed stdout: `focus … | head -1` must not panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `eprintln!` that ignores a closed stderr (`2>&1 | head` must not panic either).
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `print!` that ignores a closed stdout, flushed at once.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, $($arg)*);
        let _ = stdout.flush();
    }};
}

pub mod approval;
pub mod args;
pub mod checkpoints;
pub mod choose;
pub mod demo;
pub mod engine;
pub mod export;
pub mod input;
pub mod keys;
pub mod mcp_serve;
pub mod model_switch;
pub mod modes;
pub mod probe;
pub mod scope;
pub mod seams;
pub mod setup;
pub mod subagents;
pub mod terminal;

/// Exit code for a command line that cannot run.
pub const EXIT_USAGE: i32 = 2;
/// Exit code for a run that failed (provider error, bad session file…).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for a run stopped by Ctrl+C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 130;

/// The exit status of a run that was stopped: 128 + the termination signal that
/// stopped it (143 for SIGTERM, 129 for SIGHUP, 131 for SIGQUIT), as a shell
/// expects of a program killed by it, else [`EXIT_INTERRUPTED`] (Ctrl+C).
pub fn stopped_exit_code() -> i32 {
    focus_sys::signals::last_termination().map_or(EXIT_INTERRUPTED, |signal| 128 + signal)
}

/// Runs focus with `arguments` (without the program name) and returns the exit code.
pub fn run(arguments: impl Iterator<Item = String>) -> i32 {
    let args = match args::parse(arguments) {
        Ok(args) => args,
        Err(error) => {
            errln!("{error}");
            return EXIT_USAGE;
        }
    };
    if args.help {
        out!("{}", args::help());
        return 0;
    }
    if args.version {
        outln!("focus {}", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    // The sandbox's private temporary directory and the bash spill directory
    // go with the session: they are dropped with the tools that hold them.
    match run_parsed(&args) {
        Ok(code) => code,
        Err(error) => {
            errln!("focus: {}", error.message);
            if error.usage {
                EXIT_USAGE
            } else {
                EXIT_FAILURE
            }
        }
    }
}

/// Dispatches to the mode the flags chose.
fn run_parsed(args: &args::Args) -> Result<i32, setup::SetupError> {
    use args::OutputMode;
    if let Some((input, output)) = &args.export {
        return match export::export_session_file(input, output.as_deref()) {
            Ok(path) => {
                outln!("{}", path.display());
                Ok(0)
            }
            Err(message) => Err(setup::SetupError {
                message,
                usage: false,
            }),
        };
    }
    if let Some(search) = &args.list_models {
        return Ok(list_models(search.as_deref()));
    }
    if let Some(args::Subcommand::Rewind(rewind)) = &args.subcommand {
        let cwd = setup::current_dir()?;
        let done =
            checkpoints::run_rewind(rewind, &cwd, args.session_dir.as_deref(), &mut |line| {
                outln!("{}", crate::terminal::reveal::reveal_hidden(line))
            });
        return done.map_err(|message| setup::SetupError {
            message,
            usage: false,
        });
    }
    if let Some(args::Subcommand::SessionsGc) = args.subcommand {
        let cwd = setup::current_dir()?;
        return Ok(checkpoints::sessions_gc(&cwd, &mut |line| outln!("{line}")));
    }
    if let Some(args::Subcommand::McpList) = args.subcommand {
        return Ok(seams::mcp_list(
            &setup::current_dir()?,
            seams::project_trust(args.trust_project),
        ));
    }
    if let Some(args::Subcommand::McpServe(options)) = &args.subcommand {
        return mcp_serve::serve(args, options, &setup::current_dir()?);
    }
    let cwd = setup::current_dir()?;
    if args.mode == OutputMode::Rpc {
        let request = setup::session_request(args);
        return Ok(modes::rpc::serve(args, &cwd, &request));
    }
    let piped = input::read_piped_stdin().map_err(|message| setup::SetupError {
        message,
        usage: false,
    })?;
    let interactive_terminal =
        terminal::is_tty(terminal::STDIN) && terminal::is_tty(terminal::STDOUT);
    let print =
        args.print || args.mode == OutputMode::Json || piped.is_some() || !interactive_terminal;
    if print && args.messages.is_empty() && piped.is_none() && args.files.is_empty() {
        return Err(setup::SetupError {
            message: "no prompt given: pass one as an argument (focus -p \"...\"), pipe it on stdin, or run focus in a terminal for the interactive mode".into(),
            usage: true,
        });
    }
    let request = if args.resume {
        if print {
            return Err(setup::SetupError {
                message: "--resume asks which session on the terminal; with -p use --continue or --session".into(),
                usage: true,
            });
        }
        modes::resume::choose_session(&cwd, args.session_dir.as_deref())?
    } else {
        setup::session_request(args)
    };
    let prompts = build_prompts(args, piped.as_deref())?;
    if !print {
        // Before anything the project's settings name can start: ask whether
        // the folder is trusted, if its settings need that.
        let trusted_this_run = !args.trust_project
            && modes::trust::ask_if_needed(&cwd)? == modes::trust::Answer::TrustedThisRun;
        let granted;
        let args = if trusted_this_run {
            granted = args::Args {
                trust_project: true,
                ..args.clone()
            };
            &granted
        } else {
            args
        };
        // The UI's channel exists before the engine so the gate can ask through it.
        let (sender, receiver) = std::sync::mpsc::sync_channel(engine::INPUT_QUEUE_CAPACITY);
        let ask = approval::ask_through(sender.clone(), modes::interactive::input::Input::Approval);
        let (mut engine, choice) = setup::build_engine(args, &cwd, &request, Some(ask))?;
        // A deadline bounds headless runs (print, JSON, RPC), not a person's session.
        engine.conversation.deadline = None;
        return Ok(modes::interactive::run(
            &mut engine,
            &choice,
            args,
            &cwd,
            prompts,
            (sender, receiver),
        ));
    }
    // `--output-diff`: the starting tree, recorded before anything can change it.
    let diff_start = match &args.headless.output_diff {
        Some(path) => Some((path.clone(), modes::output_diff::start(&cwd)?)),
        None => None,
    };
    let (mut engine, choice) = setup::build_engine(args, &cwd, &request, None)?;
    engine.diff_start = diff_start;
    // Ctrl+C aborts the run cleanly (a second one exits at once).
    terminal::signals::catch_interrupts();
    if let Some(note) = setup::choice_note(&choice) {
        let style = terminal::style::Style::for_fd(terminal::STDERR);
        errln!("{}", style.dim(&format!("focus: {note}")));
    }
    if args.mode == OutputMode::Json {
        Ok(modes::json::run(&mut engine, prompts, &args.headless))
    } else {
        Ok(modes::print::run(&mut engine, prompts, &args.headless))
    }
}

/// The user messages to send: attachments and piped stdin join the first one.
fn build_prompts(
    args: &args::Args,
    piped: Option<&str>,
) -> Result<Vec<focus_core::message::Message>, setup::SetupError> {
    use focus_core::agent::run::empty_prompt;
    use focus_core::message::{now_ms, Message, UserMessage};
    let mut prompts = Vec::new();
    // `/skill:name` and `/template args` expand as they do when typed.
    let cwd = setup::current_dir()?;
    let expand = |text: &str| -> Result<String, setup::SetupError> {
        input::expand_typed_command(text, &cwd)
            .map(|expanded| expanded.unwrap_or_else(|| text.to_string()))
            .map_err(|message| setup::SetupError {
                message,
                usage: true,
            })
    };
    let messages: Vec<String> = args
        .messages
        .iter()
        .map(|m| expand(m))
        .collect::<Result<_, _>>()?;
    let first =
        input::first_prompt_content(messages.first().map(String::as_str), &args.files, piped)
            .map_err(|message| setup::SetupError {
                message,
                usage: true,
            })?;
    if !first.is_empty() {
        prompts.push(Message::User(UserMessage {
            content: first,
            timestamp: now_ms(),
        }));
    }
    for message in messages.iter().skip(1) {
        prompts.push(Message::User(UserMessage::text(message.as_str(), now_ms())));
    }
    // A message given but blank (`-p ""`, `-p "  "`): refused here, with the rule
    // the loop itself keeps.
    let given = !args.messages.is_empty() || piped.is_some() || !args.files.is_empty();
    if given && (prompts.is_empty() || prompts.iter().any(|p| empty_prompt(p).is_some())) {
        return Err(setup::SetupError {
            message: "the prompt is empty: write something for the model to answer".into(),
            usage: true,
        });
    }
    Ok(prompts)
}

/// `--list-models [SEARCH]`: one model per line.
fn list_models(search: Option<&str>) -> i32 {
    let registry = match seams::registry() {
        Ok(registry) => registry,
        Err(error) => {
            errln!("focus: {error}");
            return EXIT_FAILURE;
        }
    };
    let models = seams::list_models(&registry, search);
    if models.is_empty() {
        errln!("focus: no known model matches {:?}", search.unwrap_or(""));
        return EXIT_FAILURE;
    }
    outln!(
        "{:<16} {:<40} {:>9} {:>9}  reasoning",
        "provider",
        "model",
        "context",
        "max-out"
    );
    for m in models {
        outln!(
            "{:<16} {:<40} {:>9} {:>9}  {}",
            m.provider,
            m.id,
            m.context_window,
            m.max_tokens,
            if m.reasoning { "yes" } else { "no" }
        );
    }
    0
}
