//! Permission rules: `tool` or `tool(pattern)`, as in Claude Code's settings.
//!
//! - `read`, `edit`, `github__*` — a tool name, `*` matching any characters, compared
//!   without regard to case (so Claude Code's `Bash` works too). A tool answers to
//!   focus's name and Claude Code's ([`super::matcher::tool_names`]): an MCP tool
//!   to `github__create_issue` and `mcp__github__create_issue`, and
//!   `mcp__github` (Claude Code's rule for a whole server) covers every tool of
//!   the server `github`.
//! - `bash(git diff:*)` — a shell command starting with the words `git diff`
//!   (the command itself or followed by a space). `bash(npm test)` — exactly that
//!   command. `bash(cargo * --release)` — a `*` glob over the command text.
//! - `edit(src/*)`, `write(*.md)` — for tools with a `path` argument, a glob over
//!   the path as the model wrote it.
//!
//! Shell rules are checked per simple command (see [`judge::split_commands`]):
//! `git commit -m x && rm -rf /` is not covered by `bash(git commit:*)`.

use super::judge;
use focus_core::json::Value;
use std::fmt;

/// One allow, ask or deny rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Tool name pattern, lower-cased, `*` wildcards.
    tool: String,
    /// Argument pattern, if the rule had parentheses.
    pattern: Option<String>,
    /// Whether the pattern is compared literally, `*` included (rules remembered
    /// from "allow always" on a whole command line).
    exact: bool,
}

impl Rule {
    /// Parses `tool` or `tool(pattern)`.
    ///
    /// # Errors
    ///
    /// No tool name, a name with characters other than letters, digits, `_`, `-` and `*`, a `(`
    /// without its `)`, or an empty pattern.
    pub fn parse(text: &str) -> Result<Rule, String> {
        let text = text.trim();
        let (tool, pattern) = match text.find('(') {
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(format!(
                        "rule `{text}` has `(` without a closing `)` at the end"
                    ));
                };
                (&text[..open], Some(inner.to_string()))
            }
            None => (text, None),
        };
        let tool = tool.trim();
        if tool.is_empty() {
            return Err(format!("rule `{text}` has no tool name"));
        }
        if !tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-*".contains(c))
        {
            return Err(format!(
                "rule `{text}`: tool name may only use letters, digits, `_`, `-` and `*`"
            ));
        }
        if pattern.as_deref() == Some("") {
            return Err(format!(
                "rule `{text}` has an empty pattern; write `{tool}` instead"
            ));
        }
        Ok(Rule {
            tool: tool.to_ascii_lowercase(),
            pattern,
            exact: false,
        })
    }

    /// A rule for a whole tool.
    pub fn tool(name: &str) -> Rule {
        Rule {
            tool: name.to_ascii_lowercase(),
            pattern: None,
            exact: false,
        }
    }

    /// A rule for a tool with an argument pattern.
    pub fn with_pattern(name: &str, pattern: &str) -> Rule {
        Rule {
            tool: name.to_ascii_lowercase(),
            pattern: Some(pattern.to_string()),
            exact: false,
        }
    }

    /// A rule matching exactly `subject` (no wildcards, even if it contains `*`).
    pub fn exact(name: &str, subject: &str) -> Rule {
        Rule {
            tool: name.to_ascii_lowercase(),
            pattern: Some(subject.to_string()),
            exact: true,
        }
    }

    /// Whether the rule names this tool (ignoring its pattern), under any of its
    /// names.
    pub fn matches_tool(&self, tool_name: &str) -> bool {
        super::matcher::tool_names(tool_name).iter().any(|name| {
            let name = name.to_ascii_lowercase();
            glob_match(&self.tool, &name) || self.names_whole_server_of(&name)
        })
    }

    /// `mcp__server` (no tool part, no wildcard): Claude Code's rule for every
    /// tool of one MCP server.
    fn names_whole_server_of(&self, name: &str) -> bool {
        let Some(server) = self.tool.strip_prefix("mcp__") else {
            return false;
        };
        !server.is_empty()
            && !server.contains("__")
            && !server.contains('*')
            && name
                .strip_prefix(&self.tool)
                .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2)
    }

    /// Whether the rule has no pattern (covers every call of the tool).
    pub fn is_whole_tool(&self) -> bool {
        self.pattern.is_none()
    }

    /// Whether the rule's pattern matches `subject` (a command or a path).
    pub fn matches_subject(&self, subject: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(p) if self.exact => p == subject,
            Some(p) => match p.strip_suffix(":*") {
                Some(prefix) => {
                    subject == prefix
                        || subject
                            .strip_prefix(prefix)
                            .is_some_and(|rest| rest.starts_with(' '))
                }
                None => glob_match(p, subject),
            },
        }
    }

    /// Whether the pattern is a literal (no wildcard): such a rule may match a whole
    /// command line that cannot be split.
    fn is_literal(&self) -> bool {
        self.pattern
            .as_deref()
            .is_some_and(|p| self.exact || !p.contains('*'))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pattern {
            Some(p) => write!(f, "{}({p})", self.tool),
            None => write!(f, "{}", self.tool),
        }
    }
}

/// What a call looks like to the rules.
pub enum Subject<'a> {
    /// A shell command line.
    Command(&'a str),
    /// A path argument.
    Path(&'a str),
    /// Nothing a pattern could match.
    None,
}

impl<'a> Subject<'a> {
    /// The subject of a call: the `command` of a shell tool, else the `path` (or
    /// `file_path`) argument.
    pub fn of(is_shell: bool, args: &'a Value) -> Subject<'a> {
        if is_shell {
            if let Some(cmd) = args["command"].as_str() {
                return Subject::Command(cmd);
            }
        }
        match args["path"].as_str().or_else(|| args["file_path"].as_str()) {
            Some(path) => Subject::Path(path),
            None => Subject::None,
        }
    }
}

/// Whether any rule in `rules` matches the call (used for deny and ask rules: one
/// matching simple command is enough).
pub fn any_matches(rules: &[Rule], tool_name: &str, subject: &Subject<'_>) -> Option<Rule> {
    let parts = match subject {
        Subject::Command(cmd) => judge::split_commands(cmd).unwrap_or_default(),
        _ => Vec::new(),
    };
    rules
        .iter()
        .filter(|r| r.matches_tool(tool_name))
        .find(|r| match subject {
            _ if r.is_whole_tool() => true,
            Subject::Command(cmd) => {
                r.matches_subject(cmd.trim())
                    || parts
                        .iter()
                        .any(|p| r.matches_subject(&p.text) || r.matches_subject(&p.effective))
            }
            Subject::Path(path) => r.matches_subject(path),
            Subject::None => false,
        })
        .cloned()
}

/// Whether `rules` allow the call: a whole-tool rule, a path rule, or, for shell
/// commands, a rule for every simple command that is not read-only.
pub fn allows(rules: &[Rule], tool_name: &str, subject: &Subject<'_>) -> bool {
    let rules: Vec<&Rule> = rules.iter().filter(|r| r.matches_tool(tool_name)).collect();
    if rules.iter().any(|r| r.is_whole_tool()) {
        return true;
    }
    match subject {
        Subject::Command(cmd)
            if rules
                .iter()
                .any(|r| r.is_literal() && r.matches_subject(cmd.trim())) =>
        {
            true
        }
        Subject::Command(cmd) => match judge::split_commands(cmd) {
            Some(parts) if !parts.is_empty() => parts.iter().all(|p| {
                p.read_only
                    || rules
                        .iter()
                        .any(|r| r.matches_subject(&p.text) || r.matches_subject(&p.effective))
            }),
            _ => rules
                .iter()
                .any(|r| r.is_literal() && r.matches_subject(cmd.trim())),
        },
        Subject::Path(path) => rules.iter().any(|r| r.matches_subject(path)),
        Subject::None => false,
    }
}

/// Matches `text` against `pattern` where `*` matches any run of characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            backtrack = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star, matched)) = backtrack {
            pi = star + 1;
            ti = matched + 1;
            backtrack = Some((star, matched + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_matches() {
        let r = Rule::parse("Bash(git diff:*)").unwrap();
        assert!(r.matches_tool("bash"));
        assert!(r.matches_subject("git diff"));
        assert!(r.matches_subject("git diff HEAD"));
        assert!(!r.matches_subject("git difftool"));
        assert!(Rule::parse("github__*")
            .unwrap()
            .matches_tool("github__create_issue"));
        assert!(!Rule::parse("github__*").unwrap().matches_tool("gitlab__x"));
        assert!(Rule::parse("edit(src/*.rs)")
            .unwrap()
            .matches_subject("src/a/b.rs"));
        // MCP tools under Claude Code's names too.
        for rule in [
            "mcp__github__create_issue",
            "mcp__github",
            "mcp__github__*",
            "mcp__*",
        ] {
            assert!(
                Rule::parse(rule)
                    .unwrap()
                    .matches_tool("github__create_issue"),
                "{rule}"
            );
        }
        for rule in ["mcp__git", "mcp__gitlab", "mcp__github__delete"] {
            assert!(
                !Rule::parse(rule)
                    .unwrap()
                    .matches_tool("github__create_issue"),
                "{rule}"
            );
        }
        assert!(!Rule::parse("mcp__bash").unwrap().matches_tool("bash"));
        assert!(Rule::parse("Glob").unwrap().matches_tool("find"));
        for bad in ["", "bash(", "bash()", "ba sh", "(x)"] {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn compound_commands_need_every_part_allowed() {
        let rules = vec![Rule::parse("bash(git commit:*)").unwrap()];
        let ok = Subject::Command("git status && git commit -m 'x y'");
        assert!(allows(&rules, "bash", &ok));
        let sneaky = Subject::Command("git commit -m x && rm -rf /");
        assert!(!allows(&rules, "bash", &sneaky));
        let hidden = Subject::Command("git commit -m \"$(rm -rf /)\"");
        assert!(!allows(&rules, "bash", &hidden));
    }

    #[test]
    fn deny_looks_inside_wrappers_and_subshells() {
        let rules = vec![Rule::parse("bash(rm:*)").unwrap()];
        for cmd in [
            "rm -rf x",
            "sudo rm x",
            "ls; (rm x)",
            "echo $(rm x)",
            "sh -c 'rm x'",
        ] {
            assert!(
                any_matches(&rules, "bash", &Subject::Command(cmd)).is_some(),
                "{cmd}"
            );
        }
        assert!(any_matches(&rules, "bash", &Subject::Command("ls rm")).is_none());
    }
}
