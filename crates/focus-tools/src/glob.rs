//! Shell-style glob patterns: `*`, `**`, `?`, `[...]`, `{a,b}`.
//!
//! Used by find (which files to list), grep's `glob` filter and the ignore
//! rules. Semantics follow gitignore and fd: `*` and `?` never cross a `/`;
//! `**` does (`src/**/*.rs` matches `src/a.rs` and `src/x/y/a.rs`); `[!a-z]`
//! and `[^a-z]` negate; `{rs,toml}` is a choice and may nest; `\` escapes.
//!
//! Most real patterns are simple (`target`, `*.log`, `build*`), so [`Glob`]
//! recognises those shapes and compares strings directly; anything else is
//! translated into a [`Regex`] anchored at both ends.

use crate::regex::Regex;

/// A compiled glob.
#[derive(Clone, Debug)]
pub struct Glob {
    matcher: Matcher,
    has_slash: bool,
}

#[derive(Clone, Debug)]
enum Matcher {
    /// No metacharacters: equality.
    Exact(String),
    /// `*suffix` with a literal suffix without `/`.
    Suffix(String),
    /// `prefix*` with a literal prefix, `*` not crossing `/`.
    Prefix(String),
    /// Everything else.
    Pattern(Regex),
}

impl Glob {
    /// Compiles `pattern`, or explains what is malformed in it.
    ///
    /// # Errors
    ///
    /// The pattern does not translate or compile (an unclosed `[`, say); the message quotes the
    /// pattern.
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let has_slash = pattern.contains('/');
        let is_meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
        let matcher = if !pattern.chars().any(is_meta) {
            Matcher::Exact(pattern.to_string())
        } else if let Some(rest) = pattern
            .strip_prefix('*')
            .filter(|r| !r.chars().any(is_meta) && !r.contains('/'))
        {
            Matcher::Suffix(rest.to_string())
        } else if let Some(rest) = pattern
            .strip_suffix('*')
            .filter(|r| !r.chars().any(is_meta) && !r.ends_with('/'))
        {
            Matcher::Prefix(rest.to_string())
        } else {
            let regex = to_regex(pattern)?;
            Matcher::Pattern(
                Regex::new(&regex).map_err(|e| format!("invalid glob {pattern:?}: {e}"))?,
            )
        };
        Ok(Glob { matcher, has_slash })
    }

    /// Whether the pattern contains a `/` (then it is meant for a whole
    /// relative path rather than a file name).
    pub fn has_slash(&self) -> bool {
        self.has_slash
    }

    /// Whether `text` (a file name or `/`-separated relative path) matches as a whole.
    pub fn is_match(&self, text: &str) -> bool {
        match &self.matcher {
            Matcher::Exact(s) => text == s,
            Matcher::Suffix(s) => text.ends_with(s.as_str()) && !text.contains('/'),
            Matcher::Prefix(s) => text.starts_with(s.as_str()) && !text[s.len()..].contains('/'),
            Matcher::Pattern(regex) => regex.is_match(text.as_bytes()),
        }
    }

    /// Matches against `rel` if the pattern has a `/`, else against the last
    /// component of `rel` (so `*.rs` finds Rust files at any depth).
    pub fn matches_path(&self, rel: &str) -> bool {
        if self.has_slash {
            self.is_match(rel)
        } else {
            self.is_match(rel.rsplit('/').next().unwrap_or(rel))
        }
    }
}

/// Translates a glob into regex syntax (`^…$`).
///
/// # Errors
///
/// An unclosed `[` in `pattern`.
pub fn to_regex(glob: &str) -> Result<String, String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::from("(?s)^");
    let mut i = 0;
    let mut brace_depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                let at_start = i == 0 || chars[i - 1] == '/';
                let slash_after = chars.get(i + 2) == Some(&'/');
                let at_end = i + 2 == chars.len();
                if at_start && slash_after {
                    out.push_str("(?:.*/)?");
                    i += 3;
                } else if at_start && at_end {
                    out.push_str(".*");
                    i += 2;
                } else {
                    // `a**b` behaves like `a*b`.
                    out.push_str("[^/]*");
                    while chars.get(i) == Some(&'*') {
                        i += 1;
                    }
                }
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let close = (i + 2..chars.len()).find(|&j| chars[j] == ']');
                let Some(close) = close else {
                    return Err(format!("invalid glob {glob:?}: unclosed '['"));
                };
                out.push('[');
                let mut j = i + 1;
                if matches!(chars[j], '!' | '^') {
                    out.push('^');
                    j += 1;
                }
                for &k in &chars[j..close] {
                    if matches!(k, '\\' | '[' | ']' | '^') {
                        out.push('\\');
                    }
                    out.push(k);
                }
                out.push(']');
                i = close;
            }
            '{' => {
                brace_depth += 1;
                out.push_str("(?:");
            }
            '}' if brace_depth > 0 => {
                brace_depth -= 1;
                out.push(')');
            }
            ',' if brace_depth > 0 => out.push('|'),
            '\\' => {
                i += 1;
                let Some(&escaped) = chars.get(i) else {
                    return Err(format!("invalid glob {glob:?}: ends with '\\'"));
                };
                push_literal(&mut out, escaped);
            }
            c => push_literal(&mut out, c),
        }
        i += 1;
    }
    if brace_depth > 0 {
        return Err(format!("invalid glob {glob:?}: unclosed '{{'"));
    }
    out.push('$');
    Ok(out)
}

fn push_literal(out: &mut String, c: char) {
    if "\\.+*?()|[]{}^$#&-~".contains(c) {
        out.push('\\');
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(p: &str) -> Glob {
        Glob::new(p).unwrap()
    }

    #[test]
    fn star_and_question_stay_within_a_component() {
        assert!(glob("*.rs").is_match("main.rs"));
        assert!(!glob("*.rs").is_match("src/main.rs"));
        assert!(glob("*.rs").matches_path("src/main.rs"));
        assert!(glob("ma?n.rs").is_match("main.rs"));
        assert!(!glob("ma?n.rs").is_match("ma/n.rs"));
        assert!(glob("build*").is_match("build.rs") && !glob("build*").is_match("build/x"));
        assert!(glob("a*b*c").is_match("axxbyyc"));
    }

    #[test]
    fn double_star_crosses_directories() {
        let g = glob("src/**/*.rs");
        assert!(g.is_match("src/a.rs") && g.is_match("src/x/y/a.rs"));
        assert!(!g.is_match("lib/a.rs"));
        assert!(glob("**/*.json").is_match("a.json") && glob("**/*.json").is_match("x/a.json"));
        assert!(glob("docs/**").is_match("docs/a/b.md"));
        assert!(glob("**").is_match("any/thing"));
    }

    #[test]
    fn classes_braces_and_escapes() {
        assert!(glob("[abc].txt").is_match("b.txt") && !glob("[abc].txt").is_match("d.txt"));
        assert!(glob("[!abc].txt").is_match("d.txt") && !glob("[!abc].txt").is_match("a.txt"));
        assert!(glob("[0-9]*").is_match("7up"));
        let g = glob("*.{rs,toml}");
        assert!(g.is_match("a.rs") && g.is_match("Cargo.toml") && !g.is_match("a.md"));
        assert!(glob("{src,tests}/**/*.{rs,t{x,o}t}").is_match("tests/a/b.tot"));
        assert!(glob(r"\*.md").is_match("*.md") && !glob(r"\*.md").is_match("a.md"));
        assert!(glob("a+b(c).md").is_match("a+b(c).md"));
        assert!(Glob::new("[abc").unwrap_err().contains("unclosed '['"));
        assert!(Glob::new("{a,b").unwrap_err().contains("unclosed '{'"));
    }
}
