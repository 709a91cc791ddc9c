//! An index of the workspace's Rust sources, precise enough to check what the
//! documents cite: which functions exist, which names belong to which type (methods
//! of its `impl` and `trait` blocks, its fields and variants) and which names each
//! module defines or re-exports.
//!
//! It reads the sources as text with a small lexer (comments, strings and character
//! literals skipped, braces counted), not as Rust: it is lenient where that is
//! cheap (a function nested in a method counts as one of the type's names) and never
//! needs a compiler.

use focus_testkit::tree::rust_files;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What the sources define.
#[derive(Default)]
pub struct CodeIndex {
    /// Every identifier-like word of the files, comments and strings included
    /// (a document may cite a wire name the code only spells in a string).
    pub words: HashSet<String>,
    /// Every name after `fn`.
    pub fns: HashSet<String>,
    /// Types defined in the workspace (struct, enum, trait, union, type alias).
    pub types: HashSet<String>,
    /// `(type, name)`: a method of the type's `impl` blocks or of the trait, or a
    /// field or variant of its body.
    pub members: HashSet<(String, String)>,
    /// Module name → the names its files define at their top level, declare as
    /// submodules or re-export with `use`.
    pub modules: HashMap<String, HashSet<String>>,
}

impl CodeIndex {
    /// Indexes one file's text, as if it were at `path`.
    pub fn add_source(&mut self, path: &Path, text: &str) {
        self.add_file(path, text);
    }

    /// Reads every `.rs` file under `root` (skipping `target`).
    pub fn of_tree(root: &Path) -> (CodeIndex, Vec<PathBuf>) {
        let files = rust_files(root);
        let mut index = CodeIndex::default();
        for file in &files {
            if let Ok(text) = std::fs::read_to_string(file) {
                index.add_file(file, &text);
            }
        }
        (index, files)
    }

    /// Whether `member` is a name of `owner`, a type or a module of the workspace;
    /// `None` when `owner` is neither (a standard library type, say).
    pub fn owner_has(&self, owner: &str, member: &str) -> Option<bool> {
        if self.types.contains(owner) {
            return Some(
                self.members
                    .contains(&(owner.to_string(), member.to_string())),
            );
        }
        self.modules.get(owner).map(|names| names.contains(member))
    }

    fn add_file(&mut self, path: &Path, text: &str) {
        let tokens = lex(text);
        let module = module_name(path);
        let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        self.words
            .extend(words.filter(|w| !w.is_empty()).map(str::to_string));
        for pair in tokens.windows(2) {
            if let [Token::Ident(f), Token::Ident(name)] = pair {
                if f == "fn" {
                    self.fns.insert(name.clone());
                }
            }
        }
        let names = self.items(&tokens, 0, tokens.len());
        if let Some(module) = module {
            self.modules.entry(module).or_default().extend(names);
        }
    }

    /// Walks the tokens of one block (`from..to`), recording types, members and
    /// inline modules; returns the names the block defines at its own level.
    fn items(&mut self, tokens: &[Token], from: usize, to: usize) -> HashSet<String> {
        let mut names = HashSet::new();
        let mut i = from;
        while i < to {
            match &tokens[i] {
                Token::Ident(word) => match word.as_str() {
                    "fn" | "const" | "static" => {
                        if let Some(Token::Ident(name)) = next_ident(tokens, i + 1, to) {
                            names.insert(name.clone());
                        }
                    }
                    "macro_rules" => {
                        // `macro_rules! name`
                        if let Some(Token::Ident(name)) = next_ident(tokens, i + 2, to) {
                            names.insert(name.clone());
                        }
                    }
                    "struct" | "enum" | "union" | "trait" | "type" => {
                        if let Some(Token::Ident(name)) = next_ident(tokens, i + 1, to) {
                            let name = name.clone();
                            names.insert(name.clone());
                            self.types.insert(name.clone());
                            // The body: fields, variants, or a trait's methods.
                            if let Some((open, close)) = body_after(tokens, i + 2, to) {
                                for token in &tokens[open + 1..close] {
                                    if let Token::Ident(member) = token {
                                        self.members.insert((name.clone(), member.clone()));
                                    }
                                }
                                i = close;
                            }
                        }
                    }
                    "mod" => {
                        if let Some(Token::Ident(name)) = next_ident(tokens, i + 1, to) {
                            let name = name.clone();
                            names.insert(name.clone());
                            if let Some((open, close)) = body_after(tokens, i + 2, to) {
                                let inner = self.items(tokens, open + 1, close);
                                self.modules.entry(name).or_default().extend(inner);
                                i = close;
                            }
                        }
                    }
                    "use" => {
                        // Re-exports and imports: every name in the statement.
                        let mut j = i + 1;
                        while j < to && tokens[j] != Token::Punct(';') {
                            if let Token::Ident(name) = &tokens[j] {
                                names.insert(name.clone());
                            }
                            j += 1;
                        }
                        i = j;
                    }
                    "impl" => {
                        if let Some((open, close)) = body_after(tokens, i + 1, to) {
                            if let Some(owner) = impl_self_type(&tokens[i + 1..open]) {
                                for pair in tokens[open + 1..close].windows(2) {
                                    if let [Token::Ident(f), Token::Ident(name)] = pair {
                                        if f == "fn" || f == "const" || f == "type" {
                                            self.members.insert((owner.clone(), name.clone()));
                                        }
                                    }
                                }
                            }
                            i = close;
                        }
                    }
                    _ => {}
                },
                Token::Punct('{') => {
                    // A block that is not an item body (a function's): skip it whole.
                    i = matching_close(tokens, i, to);
                }
                Token::Punct(_) => {}
            }
            i += 1;
        }
        names
    }
}

/// A token of Rust source, as far as the index needs: identifiers and single
/// punctuation characters.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Punct(char),
}

/// Splits Rust source into identifiers and punctuation, skipping comments, string
/// literals (raw ones included) and character literals.
fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (hashes, body) = raw_string_start(&chars, i).unwrap_or((0, i));
            i = skip_raw_string(&chars, body, hashes);
        } else if c == 'b' && next == Some('"') {
            i = skip_string(&chars, i + 2);
        } else if c == '\'' || (c == 'b' && next == Some('\'')) {
            let quote = if c == 'b' { i + 1 } else { i };
            i = skip_char_or_lifetime(&chars, quote);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            continue;
        } else if !c.is_whitespace() {
            tokens.push(Token::Punct(c));
        }
        i += 1;
    }
    tokens
}

/// From `/*` at `i`: the index of the closing `/` (comments nest in Rust).
fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i + 1 < chars.len() {
        if chars[i] == '/' && chars[i + 1] == '*' {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars[i + 1] == '/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i - 1;
            }
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// From just after an opening `"`: the index of the closing one.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i,
            _ => i += 1,
        }
    }
    chars.len()
}

/// At `r"`, `r#"`, `br"`…: the number of `#` and the index of the opening quote.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None; // inside an identifier such as `bar`
    }
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((hashes, j))
}

/// From the opening quote of a raw string with `hashes` hashes: the index of the
/// last character of its end.
fn skip_raw_string(chars: &[char], quote: usize, hashes: usize) -> usize {
    let mut i = quote + 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + hashes;
        }
        i += 1;
    }
    chars.len()
}

/// At a `'`: past a character literal (`'{'`, `'\n'`, `'\u{7f}'`), or past the
/// quote alone for a lifetime (`'a`). Returns the index of the last character.
fn skip_char_or_lifetime(chars: &[char], quote: usize) -> usize {
    match (chars.get(quote + 1), chars.get(quote + 2)) {
        (Some('\\'), _) => {
            let mut i = quote + 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i
        }
        (Some(_), Some('\'')) => quote + 2,
        _ => quote,
    }
}

/// The first identifier at or after `i` (before `to`), skipping nothing else.
fn next_ident(tokens: &[Token], i: usize, to: usize) -> Option<&Token> {
    tokens[i.min(to)..to]
        .first()
        .filter(|t| matches!(t, Token::Ident(_)))
}

/// The braces of the body that follows an item header starting at `i`: `None` when
/// a `;` comes first (`struct Unit;`, `mod name;`, a tuple struct).
fn body_after(tokens: &[Token], i: usize, to: usize) -> Option<(usize, usize)> {
    let mut angle = 0i32;
    for j in i..to {
        match tokens[j] {
            Token::Punct('<') => angle += 1,
            Token::Punct('>') => angle -= 1,
            Token::Punct(';') if angle <= 0 => return None,
            Token::Punct('{') => return Some((j, matching_close(tokens, j, to))),
            _ => {}
        }
    }
    None
}

/// The index of the `}` that closes the `{` at `open` (or `to - 1`).
fn matching_close(tokens: &[Token], open: usize, to: usize) -> usize {
    let mut depth = 0;
    for (j, token) in tokens.iter().enumerate().take(to).skip(open) {
        match token {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    to.saturating_sub(1)
}

/// The type an `impl` header is for: `impl<T> Trait<X> for path::Type<T> where …`
/// gives `Type`.
fn impl_self_type(header: &[Token]) -> Option<String> {
    let mut rest = header;
    // The impl's own generic parameters.
    if rest.first() == Some(&Token::Punct('<')) {
        let mut angle = 0;
        let mut end = 0;
        for (j, token) in rest.iter().enumerate() {
            match token {
                Token::Punct('<') => angle += 1,
                Token::Punct('>') => {
                    angle -= 1;
                    if angle == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    if let Some(at) = rest.iter().position(|t| *t == Token::Ident("for".into())) {
        rest = &rest[at + 1..];
    }
    let end = rest
        .iter()
        .position(|t| *t == Token::Punct('<') || *t == Token::Ident("where".into()))
        .unwrap_or(rest.len());
    rest[..end].iter().rev().find_map(|t| match t {
        Token::Ident(name) if !matches!(name.as_str(), "dyn" | "mut") => Some(name.clone()),
        _ => None,
    })
}

/// The module a file is: `foo.rs` and `foo/mod.rs` are `foo`; a crate's `lib.rs` is
/// the crate (`crates/focus-core/src/lib.rs` is `focus_core`); `main.rs` and
/// build scripts are none.
fn module_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    match stem {
        "mod" => path
            .parent()?
            .file_name()?
            .to_str()
            .map(|s| s.replace('-', "_")),
        "lib" => path
            .parent()? // src
            .parent()? // the crate's directory
            .file_name()?
            .to_str()
            .map(|s| s.replace('-', "_")),
        "main" | "build" => None,
        _ => Some(stem.to_string()),
    }
}
