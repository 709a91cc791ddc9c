//! Every flag focus takes, in one table: its spellings, the value it takes, and
//! its line in `--help` (ripgrep keeps its flags this way). The parser's "did you
//! mean", its "takes no value" check and the help text are all read from here, and
//! a test checks that the parser handles every flag the table lists.

/// One flag.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// `--long`.
    pub long: &'static str,
    /// `-s`, when it has one.
    pub short: Option<&'static str>,
    /// The value as help shows it (`MODE`, `[SEARCH]`); `None`: a switch.
    pub value: Option<&'static str>,
    /// The help line.
    pub help: &'static str,
}

/// A group of flags under one heading of `--help`.
pub struct Section {
    /// The heading.
    pub title: &'static str,
    /// Its flags, in help order.
    pub flags: &'static [Flag],
}

const fn switch(long: &'static str, short: Option<&'static str>, help: &'static str) -> Flag {
    Flag {
        long,
        short,
        value: None,
        help,
    }
}

const fn valued(long: &'static str, value: &'static str, help: &'static str) -> Flag {
    Flag {
        long,
        short: None,
        value: Some(value),
        help,
    }
}

/// Every flag, by section.
pub const SECTIONS: &[Section] = &[
    Section {
        title: "MODES",
        flags: &[
            switch(
                "--print",
                Some("-p"),
                "Answer the message(s) and exit (final answer on stdout)",
            ),
            valued(
                "--mode",
                "text|json|rpc",
                "text (default), json (every event as a JSON line), rpc",
            ),
            valued(
                "--list-models",
                "[SEARCH]",
                "List known models (filtered by SEARCH) and exit",
            ),
            valued(
                "--export",
                "IN.jsonl [OUT]",
                "Write a session as one self-contained HTML file and exit",
            ),
        ],
    },
    Section {
        title: "MODEL",
        flags: &[
            valued(
                "--provider",
                "NAME",
                "anthropic, openai, google, ollama, ... (see --list-models)",
            ),
            valued(
                "--model",
                "PATTERN",
                "Model id or provider/id, optionally with :thinking suffix",
            ),
            valued(
                "--models",
                "PATTERNS",
                "Models Ctrl+P cycles through: comma-separated ids, provider/id or globs (anthropic/*), each with an optional :thinking",
            ),
            valued(
                "--thinking",
                "LEVEL",
                "off, minimal, low, medium, high, xhigh",
            ),
            switch(
                "--offline",
                None,
                "Do not probe local model servers on 127.0.0.1",
            ),
        ],
    },
    Section {
        title: "SESSIONS",
        flags: &[
            switch(
                "--continue",
                Some("-c"),
                "Continue the most recent session in this directory",
            ),
            switch(
                "--resume",
                Some("-r"),
                "Choose a recent session of this directory",
            ),
            valued(
                "--session",
                "PATH|ID",
                "Open a session file, or a session by id prefix",
            ),
            valued("--session-dir", "DIR", "Store sessions in DIR"),
            switch("--no-session", None, "Do not save this conversation"),
        ],
    },
    Section {
        title: "TOOLS AND PROMPT",
        flags: &[
            valued(
                "--tools",
                "LIST",
                "Only these tools, e.g. read,grep,find,ls",
            ),
            switch("--no-tools", None, "No tools at all"),
            valued(
                "--permission-mode",
                "MODE",
                "default, accept-edits, plan (read-only) or auto",
            ),
            switch(
                "--trust-project",
                None,
                "Apply this folder's .focus/settings.json whole (hooks, MCP servers, looser modes) without asking",
            ),
            valued(
                "--sandbox",
                "on|off",
                "Confine tool processes with the kernel (default on)",
            ),
            valued(
                "--system-prompt",
                "TEXT",
                "Replace the base system prompt (text or a file path)",
            ),
            valued(
                "--append-system-prompt",
                "TEXT",
                "Append to the system prompt (text or a file path)",
            ),
        ],
    },
    Section {
        title: "HEADLESS RUNS (print and JSON modes; docs/cli.md, exit codes)",
        flags: &[
            valued(
                "--output-format",
                "text|json",
                "json: print one result record at the end instead of the answer",
            ),
            valued(
                "--events",
                "pi|deltas",
                "JSON mode: deltas writes each delta once (linear size)",
            ),
            valued(
                "--output-last-message",
                "FILE",
                "Write the final answer to FILE",
            ),
            valued(
                "--output-diff",
                "FILE",
                "Write the run's git diff against the starting tree to FILE",
            ),
            valued(
                "--denials",
                "ok|fail",
                "ok: refused tool calls do not change the exit code",
            ),
            valued("--max-turns", "N", "At most N model calls per prompt"),
            valued(
                "--output-schema",
                "FILE",
                "The final answer must be JSON valid against this JSON Schema",
            ),
            valued(
                "--output-schema-retries",
                "N",
                "Ask the model again at most N times (default 2)",
            ),
            valued(
                "--max-cost",
                "USD",
                "Stop before a model call once the run cost USD",
            ),
            valued(
                "--deadline",
                "DURATION",
                "Stop the whole run after DURATION (90s, 15m, 2h)",
            ),
            valued(
                "--allow",
                "RULE",
                "Allow calls matching RULE, e.g. 'bash(cargo test:*)' (repeatable)",
            ),
            valued("--deny", "RULE", "Deny calls matching RULE (repeatable)"),
        ],
    },
    Section {
        title: "OTHER",
        flags: &[
            switch("--help", Some("-h"), "This help"),
            switch("--version", Some("-v"), "The version"),
        ],
    },
];

/// Every flag.
pub fn all() -> impl Iterator<Item = &'static Flag> {
    SECTIONS.iter().flat_map(|section| section.flags.iter())
}

/// The flag spelled `spelling` (long or short).
pub fn find(spelling: &str) -> Option<&'static Flag> {
    all().find(|flag| flag.long == spelling || flag.short == Some(spelling))
}

/// The flag sections of `--help`: each heading, then one line per flag with its
/// help aligned (a long left part gets the help on the next line).
pub fn help_sections() -> String {
    const HELP_COLUMN: usize = 31;
    let mut out = String::new();
    for section in SECTIONS {
        out.push_str(section.title);
        out.push('\n');
        for flag in section.flags {
            let short = flag.short.map_or("    ".to_string(), |s| format!("{s}, "));
            let value = flag.value.map_or(String::new(), |v| format!(" {v}"));
            let left = format!("  {short}{}{value}", flag.long);
            if left.chars().count() < HELP_COLUMN {
                out.push_str(&format!("{left:<HELP_COLUMN$}{}\n", flag.help));
            } else {
                out.push_str(&format!("{left}\n{:HELP_COLUMN$}{}\n", "", flag.help));
            }
        }
        out.push('\n');
    }
    out
}
