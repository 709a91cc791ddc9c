//! Syntax highlighting for fenced code, a line at a time, with a small tokenizer
//! per language family: keywords, strings, comments and numbers for the C family
//! (Rust, JavaScript/TypeScript, Go, C/C++, Java), Python, shell, JSON, YAML,
//! TOML, and `+`/`-` lines of a diff. No state crosses lines (a block comment
//! or a multi-line string is colored line by line as best it can be), so a
//! streamed line is highlighted once.

use crate::style::Style;

/// A language family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// Rust.
    Rust,
    /// JavaScript and TypeScript.
    Js,
    /// Go.
    Go,
    /// C and C++.
    C,
    /// Java (and Kotlin, C#: close enough).
    Java,
    /// Python.
    Python,
    /// POSIX shells.
    Shell,
    /// JSON.
    Json,
    /// YAML.
    Yaml,
    /// TOML (and INI).
    Toml,
    /// Unified diffs.
    Diff,
    /// Anything else: no colors.
    Plain,
}

impl Lang {
    /// The language of a fence's info string (`rust`, `ts`, `sh`, …).
    pub fn from_fence(info: &str) -> Lang {
        let name = info
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match name.as_str() {
            "rust" | "rs" => Lang::Rust,
            "js" | "javascript" | "jsx" | "ts" | "typescript" | "tsx" | "mjs" => Lang::Js,
            "go" | "golang" => Lang::Go,
            "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "cxx" => Lang::C,
            "java" | "kotlin" | "kt" | "cs" | "csharp" => Lang::Java,
            "python" | "py" | "python3" => Lang::Python,
            "sh" | "bash" | "shell" | "zsh" | "console" => Lang::Shell,
            "json" | "jsonc" | "jsonl" => Lang::Json,
            "yaml" | "yml" => Lang::Yaml,
            "toml" | "ini" => Lang::Toml,
            "diff" | "patch" => Lang::Diff,
            _ => Lang::Plain,
        }
    }

    /// The language's keywords, separated by single spaces.
    fn keywords(self) -> &'static str {
        match self {
            Lang::Rust => concat!(
                "as async await break const continue crate dyn else enum extern false fn ",
                "for if impl in let loop match mod move mut pub ref return self Self ",
                "static struct super trait true type unsafe use where while",
            ),
            Lang::Js => concat!(
                "async await break case catch class const continue default delete do else ",
                "export extends false finally for from function if import in instanceof ",
                "interface let new null of return switch this throw true try type typeof ",
                "undefined var void while yield",
            ),
            Lang::Go => concat!(
                "break case chan const continue default defer else fallthrough false for ",
                "func go goto if import interface map nil package range return select ",
                "struct switch true type var",
            ),
            Lang::C => concat!(
                "auto bool break case char class const continue default delete do double ",
                "else enum extern false float for if include int long namespace new ",
                "nullptr private public return short signed sizeof static struct switch ",
                "template this true typedef union unsigned using void while",
            ),
            Lang::Java => concat!(
                "abstract boolean break case catch class else extends false final finally ",
                "for if implements import int interface new null package private ",
                "protected public return static super switch this throw throws true try ",
                "var void while",
            ),
            Lang::Python => concat!(
                "and as assert async await break class continue def del elif else except ",
                "False finally for from if import in is lambda None not or pass raise ",
                "return self True try while with yield",
            ),
            Lang::Shell => concat!(
                "case do done elif else esac export fi for function if in local return ",
                "then until while",
            ),
            Lang::Json | Lang::Yaml | Lang::Toml => "true false null",
            Lang::Diff | Lang::Plain => "",
        }
    }

    fn line_comment(self) -> &'static [&'static str] {
        match self {
            Lang::Rust | Lang::Js | Lang::Go | Lang::C | Lang::Java => &["//"],
            Lang::Python | Lang::Shell | Lang::Yaml | Lang::Toml => &["#"],
            _ => &[],
        }
    }
}

/// One line of code in `lang`, colored.
pub fn highlight(line: &str, lang: Lang, style: Style) -> String {
    if !style.color || lang == Lang::Plain {
        return line.to_string();
    }
    if lang == Lang::Diff {
        return match line.chars().next() {
            Some('+') if !line.starts_with("+++") => style.green(line),
            Some('-') if !line.starts_with("---") => style.red(line),
            Some('@') => style.cyan(line),
            _ => line.to_string(),
        };
    }
    let keywords = lang.keywords();
    let mut out = String::with_capacity(line.len() * 2);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    // YAML and TOML: a key before `:` or `=` at the start of the line.
    if matches!(lang, Lang::Yaml | Lang::Toml) {
        let trimmed = line.trim_start();
        let sep = if lang == Lang::Yaml { ':' } else { '=' };
        if let Some(at) = trimmed.find(sep) {
            let key = &trimmed[..at];
            if !key.is_empty() && !key.contains(['"', '#', '\'']) && !trimmed.starts_with('[') {
                let indent = &line[..line.len() - trimmed.len()];
                out.push_str(indent);
                out.push_str(&style.blue(key));
                i = indent.chars().count() + key.chars().count();
            }
        }
    }
    while i < chars.len() {
        let c = chars[i];
        let rest: String = chars[i..].iter().collect();
        if lang.line_comment().iter().any(|m| rest.starts_with(m))
            && (lang != Lang::Shell || i == 0 || chars[i - 1].is_whitespace())
        {
            out.push_str(&style.dim(&rest));
            break;
        }
        if rest.starts_with("/*")
            && matches!(
                lang,
                Lang::Rust | Lang::Js | Lang::Go | Lang::C | Lang::Java
            )
        {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            out.push_str(&style.dim(&rest[..end]));
            i += rest[..end].chars().count();
            continue;
        }
        if c == '"' || c == '\'' || c == '`' {
            // Rust lifetimes and char-like apostrophes: a quote closes only if a
            // matching one follows on the line.
            let close = chars[i + 1..]
                .iter()
                .enumerate()
                .find(|&(k, &d)| d == c && chars[i + k] != '\\')
                .map(|(k, _)| i + 1 + k);
            // In Rust a quote is a lifetime unless a char literal closes it soon.
            let close = close.filter(|&end| !(lang == Lang::Rust && c == '\'' && end > i + 3));
            if let Some(end) = close {
                let text: String = chars[i..=end].iter().collect();
                let key = lang == Lang::Json
                    && chars[end + 1..].iter().find(|d| !d.is_whitespace()) == Some(&':');
                out.push_str(&if key {
                    style.blue(&text)
                } else {
                    style.green(&text)
                });
                i = end + 1;
                continue;
            }
        }
        if c.is_ascii_digit() && (i == 0 || !is_word(chars[i - 1])) {
            let end = (i..chars.len())
                .find(|&k| {
                    !(chars[k].is_ascii_alphanumeric() || chars[k] == '.' || chars[k] == '_')
                })
                .unwrap_or(chars.len());
            let text: String = chars[i..end].iter().collect();
            out.push_str(&style.yellow(&text));
            i = end;
            continue;
        }
        if is_word(c) {
            let end = (i..chars.len())
                .find(|&k| !is_word(chars[k]))
                .unwrap_or(chars.len());
            let word: String = chars[i..end].iter().collect();
            if keywords.split(' ').any(|k| k == word) {
                out.push_str(&style.magenta(&word));
            } else if chars.get(end) == Some(&'(') && lang != Lang::Shell {
                out.push_str(&style.blue(&word));
            } else {
                out.push_str(&word);
            }
            i = end;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        let mut out = String::new();
        let mut skipping = false;
        for c in text.chars() {
            match c {
                '\x1b' => skipping = true,
                'm' if skipping => skipping = false,
                _ if skipping => {}
                _ => out.push(c),
            }
        }
        out
    }

    /// A shell script of the kind a repository carries.
    const SHELL_SAMPLE: &str = "#!/bin/sh\n# Runs the tests.\nset -eu\nif [ -n \"${CI:-}\" ]; then\n    echo 'in CI'\nfi\ncargo test --offline \"$@\"  # all of them\n";

    /// A JSON document with nesting, strings, numbers and literals.
    const JSON_SAMPLE: &str = "{\n  \"name\": \"read\",\n  \"arguments\": {\"path\": \"a.txt\", \"limit\": 20, \"all\": true},\n  \"id\": null\n}\n";

    /// Whole files (this crate's Rust and TOML, a shell script, JSON): every line
    /// keeps its text exactly, and the files' keywords, strings and comments are
    /// colored.
    #[test]
    fn real_files_keep_their_text() {
        let files: &[(&str, &str, &str)] = &[
            ("rust", include_str!("editor.rs"), "\x1b[35mfn\x1b[0m"),
            ("sh", SHELL_SAMPLE, "\x1b[2m# "),
            ("toml", include_str!("../Cargo.toml"), "\x1b[34m"),
            ("json", JSON_SAMPLE, "\x1b[34m\"name\"\x1b[0m"),
        ];
        for (lang, text, expected) in files {
            let mut all = String::new();
            for line in text.lines() {
                let out = highlight(line, Lang::from_fence(lang), Style::COLOR);
                assert_eq!(plain(&out), line, "{lang}");
                all.push_str(&out);
            }
            assert!(all.contains(expected), "{lang}: no {expected:?}");
        }
    }

    /// Lines from real files of each family: the text is kept exactly, and the
    /// parts that should be colored are.
    #[test]
    fn each_family_colors_its_tokens() {
        let on = Style::COLOR;
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "rust",
                "pub fn main() -> i32 { let s = \"hi\"; 42 } // done",
                &[
                    "\x1b[35mpub\x1b[0m",
                    "\x1b[32m\"hi\"\x1b[0m",
                    "\x1b[33m42\x1b[0m",
                    "\x1b[2m// done\x1b[0m",
                    "\x1b[34mmain\x1b[0m",
                ],
            ),
            (
                "ts",
                "export const x: number = await load('a');",
                &[
                    "\x1b[35mexport\x1b[0m",
                    "\x1b[35mawait\x1b[0m",
                    "\x1b[32m'a'\x1b[0m",
                ],
            ),
            (
                "go",
                "func (s *Server) Run() error { return nil }",
                &["\x1b[35mfunc\x1b[0m", "\x1b[35mnil\x1b[0m"],
            ),
            (
                "c",
                "static int count = 0; /* zero */",
                &["\x1b[35mstatic\x1b[0m", "\x1b[2m/* zero */\x1b[0m"],
            ),
            (
                "java",
                "public static void main(String[] args) {",
                &["\x1b[35mvoid\x1b[0m"],
            ),
            (
                "python",
                "def parse(path: str) -> None:  # why",
                &[
                    "\x1b[35mdef\x1b[0m",
                    "\x1b[35mNone\x1b[0m",
                    "\x1b[2m# why\x1b[0m",
                ],
            ),
            (
                "sh",
                "for f in *.rs; do echo \"$f\"; done # each",
                &[
                    "\x1b[35mfor\x1b[0m",
                    "\x1b[35mdone\x1b[0m",
                    "\x1b[2m# each\x1b[0m",
                ],
            ),
            (
                "json",
                "{\"name\": \"focus\", \"n\": 3, \"ok\": true}",
                &[
                    "\x1b[34m\"name\"\x1b[0m",
                    "\x1b[32m\"focus\"\x1b[0m",
                    "\x1b[33m3\x1b[0m",
                    "\x1b[35mtrue\x1b[0m",
                ],
            ),
            (
                "yaml",
                "  runs-on: ubuntu-latest # ci",
                &["\x1b[34mruns-on\x1b[0m", "\x1b[2m# ci\x1b[0m"],
            ),
            (
                "toml",
                "edition = \"2021\"",
                &["\x1b[34medition \x1b[0m", "\x1b[32m\"2021\"\x1b[0m"],
            ),
            ("diff", "+added line", &["\x1b[32m+added line\x1b[0m"]),
        ];
        for (lang, line, parts) in cases {
            let out = highlight(line, Lang::from_fence(lang), on);
            assert_eq!(plain(&out), *line, "{lang}");
            for part in *parts {
                assert!(out.contains(part), "{lang}: {part:?} in {out:?}");
            }
        }
        // Without colors the line is left alone; a lifetime is not a string.
        assert_eq!(
            highlight("fn a() {}", Lang::Rust, Style::NO_COLOR),
            "fn a() {}"
        );
        let out = highlight("fn f<'a>(x: &'a str) {}", Lang::Rust, on);
        assert_eq!(plain(&out), "fn f<'a>(x: &'a str) {}");
        assert!(!out.contains("\x1b[32m"), "{out:?}");
        assert!(highlight("let c = 'x';", Lang::Rust, on).contains("\x1b[32m'x'\x1b[0m"));
    }
}
