//! [`AgentDefinition`]: a kind of subagent, as Claude Code writes one — a
//! Markdown file whose YAML frontmatter says `name`, `description`, `tools`,
//! `disallowedTools`, `model` and `permissionMode`, and whose body is the
//! subagent's system prompt:
//!
//! ```text
//! ---
//! name: reviewer
//! description: Reviews a change for bugs. Use after editing code.
//! tools: Read, Grep, Glob
//! permissionMode: plan
//! ---
//! You review code. Report problems with file and line.
//! ```
//!
//! [`parse_definition`] reads the small part of YAML these files use (`key:
//! value` lines, quoted strings, `[a, b]` and `- item` lists, comments); the
//! file comes from a cloned project as often as from the user, so anything
//! else is an error naming the file and the line, never a panic.

use std::fmt;
use std::path::{Path, PathBuf};

/// One kind of subagent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentDefinition {
    /// What the model passes as `subagent_type`: lowercase letters, digits
    /// and `-`, at most [`MAX_NAME_LEN`] bytes.
    pub name: String,
    /// When to use it, written for the model (listed in the `task` tool's
    /// description).
    pub description: String,
    /// The tools it may use (focus's names, Claude Code's translated); `None`:
    /// every tool of the parent.
    pub tools: Option<Vec<String>>,
    /// Tools taken away from that list.
    pub disallowed_tools: Vec<String>,
    /// The model it asks for (`inherit`, or none: the parent's).
    pub model: Option<String>,
    /// The permission mode it asks for, as written (`default`, `acceptEdits`,
    /// `plan`, `bypassPermissions`…); the child gets the stricter of this and
    /// its parent's.
    pub permission_mode: Option<String>,
    /// Its system prompt (the file's body).
    pub prompt: String,
    /// Where it was read from; `None` for a built-in one.
    pub source: Option<PathBuf>,
}

/// Longest agent name.
pub const MAX_NAME_LEN: usize = 64;

/// Largest definition file read (a prompt, not a data set).
pub const MAX_DEFINITION_BYTES: u64 = 256 * 1024;

/// A definition file that cannot be used: the file, the line (1-based; 0 when
/// the problem is the file as a whole) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionError {
    /// The file.
    pub path: PathBuf,
    /// The line, from 1; 0 for the whole file.
    pub line: usize,
    /// What is wrong, as a sentence.
    pub message: String,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.path.display(), self.message),
            line => write!(f, "{}:{line}: {}", self.path.display(), self.message),
        }
    }
}

/// The built-in read-only agent, `explore`: reads, searches and lists, runs
/// only read-only shell commands (plan mode), and answers.
pub fn explore() -> AgentDefinition {
    AgentDefinition {
        name: "explore".into(),
        description: "Fast read-only agent for exploring a codebase: finds files, searches \
                      code and answers questions about it. It cannot change anything. Say \
                      what to look for and how thorough to be."
            .into(),
        tools: Some(
            ["read", "grep", "find", "ls", "bash"]
                .map(String::from)
                .to_vec(),
        ),
        disallowed_tools: Vec::new(),
        model: None,
        permission_mode: Some("plan".into()),
        prompt: "You are a read-only exploration agent started by another agent. Search and \
                 read the codebase to answer its request; you cannot and must not change \
                 files (only read-only shell commands run). Be quick: search broadly first, \
                 then read what matters. End with one self-contained answer: what you found, \
                 with file paths and line numbers, and nothing the caller did not ask for."
            .into(),
        source: None,
    }
}

/// Parses the definition in `text`, read from `path` (for errors and
/// [`AgentDefinition::source`]).
///
/// # Errors
///
/// No frontmatter, a line that is not `key: value`, a missing or invalid
/// `name` or `description`, a list or value of the wrong shape: the error
/// names the file and the line.
pub fn parse_definition(text: &str, path: &Path) -> Result<AgentDefinition, DefinitionError> {
    let error = |line: usize, message: String| DefinitionError {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => {
            return Err(error(
                1,
                "no frontmatter: the file must start with a `---` line, then `name:` and \
                 `description:`, then `---`"
                    .into(),
            ))
        }
    }
    let mut fields: Vec<(usize, String, Field)> = Vec::new();
    let mut closed = None;
    for (number, raw) in lines.by_ref() {
        let line = raw.trim_end_matches('\r');
        if line.trim_end() == "---" {
            closed = Some(number);
            break;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix("- ")
            .or(trimmed.strip_prefix('-').filter(|r| r.is_empty()))
        {
            match fields.last_mut() {
                Some((_, _, Field::List(items))) => {
                    items.push(scalar(item.trim()).map_err(|m| error(number, m))?);
                    continue;
                }
                Some((_, key, Field::Scalar(value))) if value.is_empty() => {
                    let first = scalar(item.trim()).map_err(|m| error(number, m))?;
                    let key = key.clone();
                    fields.pop();
                    fields.push((number, key, Field::List(vec![first])));
                    continue;
                }
                _ => {
                    return Err(error(
                        number,
                        "a list item (`- …`) must follow a key with no value".into(),
                    ))
                }
            }
        }
        if line.starts_with([' ', '\t']) {
            // Indented text under a key (nested maps such as `hooks:`) belongs
            // to keys focus does not read; a continued value is not supported.
            if fields
                .last()
                .is_some_and(|(_, key, _)| !KNOWN.contains(&key.as_str()))
            {
                continue;
            }
            return Err(error(
                number,
                "an indented line: write each value on its key's line (`key: value`)".into(),
            ));
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(error(
                number,
                format!("expected `key: value`, found {}", quote(trimmed)),
            ));
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(error(number, format!("{} is not a key", quote(key))));
        }
        if fields.iter().any(|(_, k, _)| k == key) {
            return Err(error(number, format!("`{key}` is given twice")));
        }
        let value = value.trim();
        let field = if let Some(inner) = value.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(error(
                    number,
                    format!("`{key}`: a `[` list must end with `]` on the same line"),
                ));
            };
            let items: Result<Vec<String>, String> = inner
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(scalar)
                .collect();
            Field::List(items.map_err(|m| error(number, format!("`{key}`: {m}")))?)
        } else {
            Field::Scalar(scalar(value).map_err(|m| error(number, format!("`{key}`: {m}")))?)
        };
        fields.push((number, key.to_string(), field));
    }
    let Some(closed) = closed else {
        return Err(error(
            0,
            "the frontmatter is never closed: a `---` line must end it".into(),
        ));
    };
    let body: Vec<&str> = lines.map(|(_, l)| l.trim_end_matches('\r')).collect();
    let prompt = body.join("\n").trim().to_string();
    let get = |name: &str| fields.iter().find(|(_, k, _)| k == name);
    let text_of = |name: &str| -> Result<Option<(usize, String)>, DefinitionError> {
        match get(name) {
            None => Ok(None),
            Some((line, _, Field::Scalar(value))) => Ok(Some((*line, value.clone()))),
            Some((line, _, Field::List(_))) => Err(error(
                *line,
                format!("`{name}` must be one value, not a list"),
            )),
        }
    };
    let list_of = |name: &str| -> Option<Vec<String>> {
        get(name).map(|(_, _, field)| match field {
            Field::List(items) => items.clone(),
            Field::Scalar(text) => text
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect(),
        })
    };
    let Some((name_line, name)) = text_of("name")? else {
        return Err(error(closed, "the frontmatter has no `name:`".into()));
    };
    if let Err(problem) = check_name(&name) {
        return Err(error(name_line, problem));
    }
    let description = match text_of("description")? {
        Some((_, text)) if !text.trim().is_empty() => text,
        Some((line, _)) => return Err(error(line, "`description` is empty".into())),
        None => {
            return Err(error(
                closed,
                "the frontmatter has no `description:`".into(),
            ))
        }
    };
    let tools = list_of("tools").map(|names| names.iter().map(|n| focus_tool_name(n)).collect());
    let disallowed_tools = list_of("disallowedTools")
        .unwrap_or_default()
        .iter()
        .map(|n| focus_tool_name(n))
        .collect();
    let model = text_of("model")?
        .map(|(_, m)| m)
        .filter(|m| !m.is_empty() && m != "inherit");
    let permission_mode = match text_of("permissionMode")? {
        Some((line, mode)) => {
            if !MODES.contains(&mode.as_str()) {
                return Err(error(
                    line,
                    format!(
                        "unknown permissionMode {} (expected one of {})",
                        quote(&mode),
                        MODES.join(", ")
                    ),
                ));
            }
            Some(mode)
        }
        None => None,
    };
    Ok(AgentDefinition {
        name,
        description,
        tools,
        disallowed_tools,
        model,
        permission_mode,
        prompt,
        source: Some(path.to_path_buf()),
    })
}

/// The keys focus reads; other keys (Claude Code's `color`, `skills`,
/// `hooks`…) are skipped.
const KNOWN: [&str; 6] = [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "permissionMode",
];

/// The permission modes a definition may ask for: focus's and Claude Code's
/// spellings.
pub const MODES: [&str; 8] = [
    "default",
    "plan",
    "accept-edits",
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "dontAsk",
    "inherit",
];

/// A frontmatter value.
enum Field {
    Scalar(String),
    List(Vec<String>),
}

/// One YAML scalar: plain, or in double or single quotes.
fn scalar(text: &str) -> Result<String, String> {
    let text = text.trim();
    for quote_char in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote_char) {
            let Some(inner) = inner.strip_suffix(quote_char) else {
                return Err(format!("a quoted value must end with {quote_char}"));
            };
            return Ok(match quote_char {
                '"' => inner.replace("\\\"", "\"").replace("\\n", "\n"),
                _ => inner.replace("''", "'"),
            });
        }
    }
    // A comment after a plain value.
    let text = match text.find(" #") {
        Some(at) => text[..at].trim_end(),
        None => text,
    };
    Ok(text.to_string())
}

/// Whether `name` may name an agent.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("`name` is empty".into());
    }
    if name.len() > MAX_NAME_LEN
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "`name` {} must be lowercase letters, digits, `-` and `_`, at most {MAX_NAME_LEN} bytes",
            quote(name)
        ));
    }
    Ok(())
}

/// A tool name as focus spells it: Claude Code's built-in names (`Read`,
/// `Glob`, `Bash`…) translated, `mcp__server__tool` as `server__tool`, the
/// rest as written.
pub fn focus_tool_name(name: &str) -> String {
    let name = name.trim();
    let builtin = match name {
        "Read" => "read",
        "Write" => "write",
        "Edit" | "MultiEdit" => "edit",
        "Bash" => "bash",
        "Grep" => "grep",
        "Glob" => "find",
        "LS" => "ls",
        "Task" | "Agent" => "task",
        _ => "",
    };
    if !builtin.is_empty() {
        return builtin.into();
    }
    match name.strip_prefix("mcp__") {
        Some(rest) => rest.to_string(),
        None => name.to_string(),
    }
}

/// `text` quoted for an error message, cut short and with control characters
/// escaped (it comes from a file).
fn quote(text: &str) -> String {
    let cut = crate::subagents::clip(text, 60);
    format!("{:?}", cut)
}
