//! Hook matchers as Claude Code reads them, and the names a tool answers to.
//!
//! A hook group's `matcher` is read in one of four ways, decided by the
//! characters it holds (Claude Code's rule, plus focus's older glob form):
//!
//! | matcher | read as | example |
//! |---|---|---|
//! | empty, missing or `*` | every subject | `""`, `"*"` |
//! | only letters, digits, `_`, `-`, `\|` (and spaces around `\|`) | names, `\|`-separated, each compared whole | `Bash`, `Edit\|Write` |
//! | those and `*` | focus's old glob form: names with `*` wildcards | `github__*`, `bash\|mcp__*` |
//! | anything else | a regular expression, unanchored (it may match anywhere in the name), case-sensitive | `Notebook.*`, `mcp__.*__write.*`, `^Bash$` |
//!
//! Names and globs are compared without regard to case, as focus always did.
//! The one place the glob form departs from Claude Code, which would read
//! `github__*` as a regular expression (`github_` then any number of `_`,
//! anywhere): focus reads it as "starts with `github__`", what its users wrote
//! it for.
//!
//! A tool is matched under each of its names ([`tool_names`]): focus's own
//! (`bash`, `github__create_issue`) and Claude Code's (`Bash`,
//! `mcp__github__create_issue`), so a matcher copied from Claude Code and one
//! written for focus both work. Permission rules use the same names
//! ([`super::rules`]).

use crate::regex::Regex;

/// Claude Code's name for each built-in focus tool that has a counterpart there.
pub const CLAUDE_CODE_NAMES: [(&str, &str); 7] = [
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("grep", "Grep"),
    ("find", "Glob"),
    ("ls", "LS"),
];

/// Every name `tool` answers to in matchers and permission rules: focus's own
/// first, then Claude Code's. focus names an MCP server's tool
/// `<server>__<tool>` (the only tool names with `__`); Claude Code names it
/// `mcp__<server>__<tool>`.
pub fn tool_names(tool: &str) -> Vec<String> {
    let mut names = vec![tool.to_string()];
    if let Some((_, claude)) = CLAUDE_CODE_NAMES.iter().find(|(focus, _)| *focus == tool) {
        names.push(claude.to_string());
    } else if tool.contains("__") {
        names.push(format!("mcp__{tool}"));
    }
    names
}

/// A parsed `matcher`.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// Empty, missing or `*`: everything.
    All,
    /// Whole names, lower-cased.
    Names(Vec<String>),
    /// Globs with `*`, lower-cased.
    Globs(Vec<String>),
    /// A regular expression (its source kept for messages and comparison).
    Regex(Box<Regex>, String),
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Matcher) -> bool {
        match (self, other) {
            (Matcher::All, Matcher::All) => true,
            (Matcher::Names(a), Matcher::Names(b)) | (Matcher::Globs(a), Matcher::Globs(b)) => {
                a == b
            }
            (Matcher::Regex(_, a), Matcher::Regex(_, b)) => a == b,
            _ => false,
        }
    }
}

impl Matcher {
    /// Reads a matcher (see the module's table); a bad regular expression is an
    /// error naming the position.
    ///
    /// # Errors
    ///
    /// A bad regular expression: the message names the position.
    pub fn parse(text: &str) -> Result<Matcher, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed == "*" {
            return Ok(Matcher::All);
        }
        let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ' ');
        let parts = || {
            trimmed
                .split('|')
                .map(|p| p.trim().to_ascii_lowercase())
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
        };
        if trimmed.chars().all(name_char) {
            return Ok(Matcher::Names(parts()));
        }
        if trimmed.chars().all(|c| name_char(c) || c == '*') {
            let globs = parts();
            if globs.iter().any(|g| g == "*") {
                return Ok(Matcher::All);
            }
            return Ok(Matcher::Globs(globs));
        }
        let regex = Regex::new(trimmed)
            .map_err(|e| format!("`{trimmed}` is not a valid regular expression: {e}"))?;
        Ok(Matcher::Regex(Box::new(regex), trimmed.to_string()))
    }

    /// Whether the matcher selects a subject known by any of `names`.
    pub fn matches_any(&self, names: &[String]) -> bool {
        names.iter().any(|name| self.matches(name))
    }

    /// Whether the matcher selects `name`.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n.eq_ignore_ascii_case(name)),
            Matcher::Globs(globs) => {
                let name = name.to_ascii_lowercase();
                globs.iter().any(|g| super::rules::glob_match(g, &name))
            }
            Matcher::Regex(regex, _) => regex.is_match(name.as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_is_told_by_its_characters() {
        assert_eq!(Matcher::parse("").unwrap(), Matcher::All);
        assert_eq!(Matcher::parse(" * ").unwrap(), Matcher::All);
        assert_eq!(
            Matcher::parse("Edit | Write").unwrap(),
            Matcher::Names(vec!["edit".into(), "write".into()])
        );
        assert_eq!(
            Matcher::parse("github__*").unwrap(),
            Matcher::Globs(vec!["github__*".into()])
        );
        assert!(matches!(
            Matcher::parse("mcp__.*").unwrap(),
            Matcher::Regex(_, _)
        ));
        let bad = Matcher::parse("Ba(sh").unwrap_err();
        assert!(bad.contains("Ba(sh"), "{bad}");
    }

    #[test]
    fn tools_answer_to_both_names() {
        assert_eq!(tool_names("bash"), ["bash", "Bash"]);
        assert_eq!(tool_names("find"), ["find", "Glob"]);
        assert_eq!(tool_names("fs__read"), ["fs__read", "mcp__fs__read"]);
        assert_eq!(tool_names("startup"), ["startup"]);
    }
}
