//! A small tokenizer and parser for the common shell grammar, used only to *judge*
//! commands (never to run them).
//!
//! It understands what decides whether a command can write: words with single and
//! double quotes and backslash escapes, the operators `|`, `|&`, `&&`, `||`, `;`, `&`,
//! newlines, subshell parentheses, redirections (`>`, `>>`, `&>`, `2>&1`, `<`, `<<<`…),
//! and the places where the shell runs *other* commands: `$(…)`, backticks and process
//! substitution `<(…)`/`>(…)`. Their inner text is returned so the judge can look at it
//! recursively.
//!
//! Here-documents are read (their bodies skipped); a body whose delimiter is
//! unquoted and that contains a command substitution is refused.
//!
//! Anything it does not understand (`case`, arithmetic commands, unbalanced quotes,
//! an unterminated here-document) is an error: the judge then answers "not read-only", which is the
//! safe side.

/// One word after quote removal.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    /// The text the shell would see if no expansion happened (quotes removed).
    pub text: String,
    /// Whether the word's final value is only known at run time: it contains a
    /// `$variable`, a command substitution, an unquoted glob or brace pattern, or an
    /// ANSI-C escape. A computed word can become `-delete` or `rm`.
    pub dynamic: bool,
    /// Whether any part was quoted (a quoted `{` is not a keyword, a quoted `NAME=`
    /// is not an assignment).
    pub quoted: bool,
    /// Length of the unquoted `NAME=` prefix if the word is an assignment.
    pub assignment_name_len: Option<usize>,
}

/// The kind of a redirection operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedirectKind {
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`: opens the target for writing.
    Output,
    /// `<`: reads the target.
    Input,
    /// `>&N` / `<&N`: duplicates a descriptor (target must be digits or `-`;
    /// `>&file` is an output redirection in disguise).
    Duplicate,
    /// `<<<`: a here-string, reads its word.
    HereString,
}

/// A redirection attached to a simple command.
#[derive(Clone, Debug, PartialEq)]
pub struct Redirect {
    /// What the operator does.
    pub kind: RedirectKind,
    /// Its target word.
    pub target: Word,
}

/// A simple command: words (program, arguments, leading assignments) and redirections.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimpleCommand {
    /// The words in order.
    pub words: Vec<Word>,
    /// The redirections in order.
    pub redirects: Vec<Redirect>,
}

impl SimpleCommand {
    /// The words joined by single spaces, quotes removed (used to match rules).
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
        parts.join(" ")
    }
}

/// A parsed command line: its simple commands and the inner text of every command
/// substitution found in it (to be judged on its own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    /// Simple commands in order of appearance (operators dropped).
    pub commands: Vec<SimpleCommand>,
    /// Inner text of `$(…)`, backticks, `<(…)` and `>(…)`.
    pub substitutions: Vec<String>,
}

enum Token {
    Word(Word),
    /// Separators: `|`, `||`, `&&`, `;`, `&`, newline, `(`, `)`. Which one does not
    /// matter to the judge: every command is judged.
    Separator,
    Redirect(RedirectKind),
}

/// Parses `src` into simple commands. Errors name what was not understood.
///
/// # Errors
///
/// Shell syntax the lexer does not understand (an unclosed quote, a substitution it cannot follow):
/// the message names it.
pub fn parse(src: &str) -> Result<Parsed, String> {
    let mut lexer = Lexer {
        chars: src.chars().collect(),
        pos: 0,
        substitutions: Vec::new(),
        pending_heredocs: Vec::new(),
    };
    let tokens = lexer.tokens()?;
    let mut parsed = Parsed {
        commands: Vec::new(),
        substitutions: std::mem::take(&mut lexer.substitutions),
    };
    let mut current = SimpleCommand::default();
    let mut pending: Option<RedirectKind> = None;
    for token in tokens {
        match token {
            Token::Word(word) => match pending.take() {
                Some(kind) => current.redirects.push(Redirect { kind, target: word }),
                None => current.words.push(word),
            },
            Token::Redirect(kind) => {
                if pending.is_some() {
                    return Err("a redirection has no target".to_string());
                }
                pending = Some(kind);
            }
            Token::Separator => {
                if pending.is_some() {
                    return Err("a redirection has no target".to_string());
                }
                if !current.words.is_empty() || !current.redirects.is_empty() {
                    parsed.commands.push(std::mem::take(&mut current));
                }
            }
        }
    }
    if pending.is_some() {
        return Err("a redirection has no target".to_string());
    }
    if !current.words.is_empty() || !current.redirects.is_empty() {
        parsed.commands.push(current);
    }
    Ok(parsed)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    substitutions: Vec<String>,
    /// Here-documents whose bodies start after the next newline.
    pending_heredocs: Vec<Heredoc>,
}

/// A here-document announced by `<<DELIM` or `<<-DELIM`.
struct Heredoc {
    delimiter: String,
    /// A quoted delimiter (`<<'EOF'`) means the body is not expanded.
    quoted: bool,
    /// `<<-` strips leading tabs from body lines and the delimiter line.
    strip_tabs: bool,
}

/// Characters that end an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>'
    )
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn tokens(&mut self) -> Result<Vec<Token>, String> {
        let mut tokens = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.pos += 1,
                '\\' if self.peek(1) == Some('\n') => self.pos += 2,
                '#' => {
                    while let Some(c) = self.peek(0) {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                '\n' => {
                    self.pos += 1;
                    tokens.push(Token::Separator);
                    self.heredoc_bodies()?;
                }
                ')' => {
                    self.pos += 1;
                    tokens.push(Token::Separator);
                }
                '(' => {
                    if self.peek(1) == Some('(') {
                        return Err("arithmetic commands `((…))` are not supported".to_string());
                    }
                    self.pos += 1;
                    tokens.push(Token::Separator);
                }
                ';' => {
                    if self.peek(1) == Some(';') {
                        return Err("`;;` (case clauses) is not supported".to_string());
                    }
                    self.pos += 1;
                    tokens.push(Token::Separator);
                }
                '|' => {
                    self.pos += if matches!(self.peek(1), Some('|') | Some('&')) {
                        2
                    } else {
                        1
                    };
                    tokens.push(Token::Separator);
                }
                '&' => {
                    if self.peek(1) == Some('>') {
                        self.pos += if self.peek(2) == Some('>') { 3 } else { 2 };
                        tokens.push(Token::Redirect(RedirectKind::Output));
                    } else {
                        self.pos += if self.peek(1) == Some('&') { 2 } else { 1 };
                        tokens.push(Token::Separator);
                    }
                }
                '<' | '>' if self.peek(1) == Some('(') => {
                    self.pos += 2;
                    let inner = self.balanced_parens()?;
                    self.substitutions.push(inner);
                    // The word stands for a /dev/fd path, known only at run time.
                    let mut word = self.word()?;
                    word.dynamic = true;
                    tokens.push(Token::Word(word));
                }
                '<' | '>' => self.redirect(&mut tokens)?,
                _ => {
                    let word = self.word()?;
                    let is_fd = !word.quoted
                        && !word.text.is_empty()
                        && word.text.chars().all(|c| c.is_ascii_digit())
                        && matches!(self.peek(0), Some('<') | Some('>'))
                        && self.peek(1) != Some('(');
                    if is_fd {
                        self.redirect(&mut tokens)?;
                    } else {
                        tokens.push(Token::Word(word));
                    }
                }
            }
        }
        if !self.pending_heredocs.is_empty() {
            return Err("a here-document has no body".to_string());
        }
        Ok(tokens)
    }

    /// Reads a redirection at `<` or `>` into `tokens`; for a here-document, also
    /// its delimiter (the body is read at the next newline).
    fn redirect(&mut self, tokens: &mut Vec<Token>) -> Result<(), String> {
        if self.peek(0) == Some('<') && self.peek(1) == Some('<') && self.peek(2) != Some('<') {
            self.pos += 2;
            let strip_tabs = self.peek(0) == Some('-');
            if strip_tabs {
                self.pos += 1;
            }
            while matches!(self.peek(0), Some(' ') | Some('\t')) {
                self.pos += 1;
            }
            let delimiter = self.word()?;
            if delimiter.text.is_empty() {
                return Err("a here-document has no delimiter".to_string());
            }
            self.pending_heredocs.push(Heredoc {
                delimiter: delimiter.text.clone(),
                quoted: delimiter.quoted,
                strip_tabs,
            });
            tokens.push(Token::Redirect(RedirectKind::Input));
            tokens.push(Token::Word(Word {
                dynamic: false,
                ..delimiter
            }));
            return Ok(());
        }
        tokens.push(Token::Redirect(self.redirect_operator()?));
        Ok(())
    }

    /// Skips the bodies of the pending here-documents (just after a newline).
    fn heredoc_bodies(&mut self) -> Result<(), String> {
        for heredoc in std::mem::take(&mut self.pending_heredocs) {
            let mut body = String::new();
            loop {
                if self.pos >= self.chars.len() {
                    return Err(format!(
                        "the here-document is not terminated by `{}`",
                        heredoc.delimiter
                    ));
                }
                let end = self.chars[self.pos..]
                    .iter()
                    .position(|c| *c == '\n')
                    .map_or(self.chars.len(), |n| self.pos + n);
                let line: String = self.chars[self.pos..end].iter().collect();
                self.pos = (end + 1).min(self.chars.len());
                let compared = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == heredoc.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !heredoc.quoted && (body.contains("$(") || body.contains('`')) {
                return Err(
                    "a here-document with command substitution is not supported".to_string()
                );
            }
        }
        Ok(())
    }

    /// Reads a redirection operator at `<` or `>`.
    fn redirect_operator(&mut self) -> Result<RedirectKind, String> {
        let first = self.peek(0);
        let second = self.peek(1);
        let third = self.peek(2);
        let (len, kind) = match (first, second, third) {
            (Some('<'), Some('<'), Some('<')) => (3, RedirectKind::HereString),
            (Some('<'), Some('<'), _) => {
                return Err("here-document operator in an unexpected place".to_string())
            }
            (Some('<'), Some('&'), _) => (2, RedirectKind::Duplicate),
            (Some('<'), Some('>'), _) => (2, RedirectKind::Output),
            (Some('<'), _, _) => (1, RedirectKind::Input),
            (Some('>'), Some('>'), _) => (2, RedirectKind::Output),
            (Some('>'), Some('&'), _) => (2, RedirectKind::Duplicate),
            (Some('>'), Some('|'), _) => (2, RedirectKind::Output),
            _ => (1, RedirectKind::Output),
        };
        self.pos += len;
        Ok(kind)
    }

    /// Reads one word (possibly empty, e.g. `""`), stopping at an unquoted metacharacter.
    fn word(&mut self) -> Result<Word, String> {
        let mut word = Word {
            text: String::new(),
            dynamic: false,
            quoted: false,
            assignment_name_len: None,
        };
        let mut unquoted_brace = false;
        let mut unquoted_bracket = false;
        while let Some(c) = self.peek(0) {
            if is_meta(c) {
                break;
            }
            match c {
                '\\' => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(escaped) => {
                            word.text.push(escaped);
                            word.quoted = true;
                            self.pos += 1;
                        }
                        None => return Err("the command ends with a lone backslash".to_string()),
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.quoted = true;
                    loop {
                        match self.peek(0) {
                            Some('\'') => {
                                self.pos += 1;
                                break;
                            }
                            Some(ch) => {
                                word.text.push(ch);
                                self.pos += 1;
                            }
                            None => return Err("unterminated single quote".to_string()),
                        }
                    }
                }
                '"' => {
                    self.pos += 1;
                    word.quoted = true;
                    self.double_quoted(&mut word)?;
                }
                '$' => self.dollar(&mut word, false)?,
                '`' => {
                    self.pos += 1;
                    let inner = self.backticks()?;
                    self.substitutions.push(inner);
                    word.dynamic = true;
                }
                '=' => {
                    if word.assignment_name_len.is_none()
                        && !word.quoted
                        && !word.dynamic
                        && is_name(&word.text)
                    {
                        word.assignment_name_len = Some(word.text.len());
                    }
                    word.text.push('=');
                    self.pos += 1;
                }
                '[' => {
                    unquoted_bracket = true;
                    word.text.push(c);
                    self.pos += 1;
                }
                '*' | '?' => {
                    word.dynamic = true;
                    word.text.push(c);
                    self.pos += 1;
                }
                '{' | '}' => {
                    unquoted_brace = true;
                    word.text.push(c);
                    self.pos += 1;
                }
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        // A lone `{` or `}` is a group keyword; braces inside a word may expand
        // (`{-delete,}` becomes `-delete`).
        if unquoted_brace && word.text != "{" && word.text != "}" {
            word.dynamic = true;
        }
        // `[` and `[[` are the test command; elsewhere `[` starts a glob class.
        if unquoted_bracket && word.text != "[" && word.text != "[[" {
            word.dynamic = true;
        }
        Ok(word)
    }

    /// Reads the inside of a double-quoted string (after the opening quote).
    fn double_quoted(&mut self, word: &mut Word) -> Result<(), String> {
        loop {
            match self.peek(0) {
                None => return Err("unterminated double quote".to_string()),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.peek(1) {
                        Some(c @ ('$' | '`' | '"' | '\\')) => word.text.push(c),
                        Some('\n') => {}
                        Some(c) => {
                            word.text.push('\\');
                            word.text.push(c);
                        }
                        None => return Err("unterminated double quote".to_string()),
                    }
                    self.pos += 2;
                }
                Some('$') => self.dollar(word, true)?,
                Some('`') => {
                    self.pos += 1;
                    let inner = self.backticks()?;
                    self.substitutions.push(inner);
                    word.dynamic = true;
                }
                Some(c) => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Reads an expansion at `$`: `$(…)`, `$((…))`, `${…}`, `$'…'`, `$name`, or a
    /// literal dollar sign.
    fn dollar(&mut self, word: &mut Word, in_double_quotes: bool) -> Result<(), String> {
        self.pos += 1;
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.pos += 1;
                let inner = self.balanced_parens()?;
                if inner.contains("$(") || inner.contains('`') {
                    return Err("command substitution inside arithmetic is not supported".into());
                }
                // bash evaluates a variable's *value* as an expression, and an array
                // subscript there runs command substitutions: `x='a[$(rm f)]'; $((x))`.
                if inner.chars().any(|c| c.is_ascii_alphabetic() || c == '_') {
                    return Err("arithmetic on variables can run commands".into());
                }
                word.dynamic = true;
            }
            Some('(') => {
                self.pos += 1;
                let inner = self.balanced_parens()?;
                self.substitutions.push(inner);
                word.dynamic = true;
            }
            Some('{') => {
                self.pos += 1;
                let mut depth = 1;
                let mut inner = String::new();
                loop {
                    let c = self.peek(0).ok_or("unterminated `${`")?;
                    self.pos += 1;
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    inner.push(c);
                }
                if inner.contains("$(") || inner.contains('`') {
                    return Err("command substitution inside `${…}` is not supported".into());
                }
                // `${!x}` expands the variable x names, and that name may carry an
                // array subscript (`x='a[$(rm f)]'`), which is arithmetic; `${x@P}`
                // expands x's value as a prompt, which runs its `$(…)`.
                if inner.starts_with('!') {
                    return Err("indirect expansion `${!…}` can run commands".into());
                }
                if inner.find('@').is_some_and(|at| at > 0) {
                    return Err("the `${…@…}` transformations can run commands".into());
                }
                // Array subscripts and substring offsets are arithmetic (see `$((`).
                let substring = inner
                    .split_once(':')
                    .is_some_and(|(_, rest)| !rest.starts_with(['-', '=', '?', '+']));
                if inner.contains('[') || substring {
                    return Err("arithmetic inside `${…}` can run commands".into());
                }
                word.dynamic = true;
            }
            Some('\'') if !in_double_quotes => {
                // ANSI-C quoting: escapes like \x72 could spell anything, so a string
                // with a backslash is treated as computed.
                self.pos += 1;
                word.quoted = true;
                loop {
                    match self.peek(0) {
                        None => return Err("unterminated `$'`".to_string()),
                        Some('\'') => {
                            self.pos += 1;
                            break;
                        }
                        Some('\\') => {
                            word.dynamic = true;
                            word.text.push('\\');
                            if let Some(next) = self.peek(1) {
                                word.text.push(next);
                            }
                            self.pos += 2;
                        }
                        Some(c) => {
                            word.text.push(c);
                            self.pos += 1;
                        }
                    }
                }
            }
            Some('"') if !in_double_quotes => {
                self.pos += 1;
                word.quoted = true;
                self.double_quoted(word)?;
            }
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
                while let Some(c) = self.peek(0) {
                    if !(c.is_ascii_alphanumeric() || c == '_') {
                        break;
                    }
                    self.pos += 1;
                }
                word.dynamic = true;
            }
            Some('[') => return Err("`$[…]` arithmetic is not supported".into()),
            Some('@' | '*' | '#' | '?' | '$' | '!' | '-') => {
                self.pos += 1;
                word.dynamic = true;
            }
            _ => word.text.push('$'),
        }
        Ok(())
    }

    /// Reads up to the `)` that closes an already consumed `(`, minding quotes and
    /// nesting; returns the text in between.
    fn balanced_parens(&mut self) -> Result<String, String> {
        let mut depth = 1;
        let mut inner = String::new();
        // Here-documents inside: their bodies may hold unbalanced quotes and
        // parentheses, so they are copied through verbatim (delimiter, strip tabs).
        let mut heredocs: Vec<(String, bool)> = Vec::new();
        loop {
            let c = self.peek(0).ok_or("unterminated `$(` or `(`")?;
            self.pos += 1;
            match c {
                '<' if self.peek(0) == Some('<') && self.peek(1) != Some('<') => {
                    inner.push_str("<<");
                    self.pos += 1;
                    let strip_tabs = self.peek(0) == Some('-');
                    if strip_tabs {
                        inner.push('-');
                        self.pos += 1;
                    }
                    while let Some(b @ (' ' | '\t')) = self.peek(0) {
                        inner.push(b);
                        self.pos += 1;
                    }
                    let mut delimiter = String::new();
                    while let Some(d) = self.peek(0) {
                        if d.is_whitespace() || is_meta(d) {
                            break;
                        }
                        inner.push(d);
                        self.pos += 1;
                        if !matches!(d, '\'' | '"' | '\\') {
                            delimiter.push(d);
                        }
                    }
                    heredocs.push((delimiter, strip_tabs));
                    continue;
                }
                '\n' if !heredocs.is_empty() => {
                    inner.push('\n');
                    for (delimiter, strip_tabs) in std::mem::take(&mut heredocs) {
                        loop {
                            if self.pos >= self.chars.len() {
                                return Err(format!(
                                    "the here-document is not terminated by `{delimiter}`"
                                ));
                            }
                            let end = self.chars[self.pos..]
                                .iter()
                                .position(|c| *c == '\n')
                                .map_or(self.chars.len(), |n| self.pos + n);
                            let line: String = self.chars[self.pos..end].iter().collect();
                            inner.push_str(&line);
                            if end < self.chars.len() {
                                inner.push('\n');
                            }
                            self.pos = (end + 1).min(self.chars.len());
                            let compared = if strip_tabs {
                                line.trim_start_matches('\t')
                            } else {
                                line.as_str()
                            };
                            if compared == delimiter {
                                break;
                            }
                        }
                    }
                    continue;
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(inner);
                    }
                }
                '\\' => {
                    inner.push(c);
                    if let Some(next) = self.peek(0) {
                        inner.push(next);
                        self.pos += 1;
                    }
                    continue;
                }
                '\'' => {
                    inner.push(c);
                    loop {
                        let q = self.peek(0).ok_or("unterminated single quote")?;
                        self.pos += 1;
                        inner.push(q);
                        if q == '\'' {
                            break;
                        }
                    }
                    continue;
                }
                '"' => {
                    inner.push(c);
                    loop {
                        let q = self.peek(0).ok_or("unterminated double quote")?;
                        self.pos += 1;
                        inner.push(q);
                        if q == '\\' {
                            if let Some(next) = self.peek(0) {
                                inner.push(next);
                                self.pos += 1;
                            }
                        } else if q == '"' {
                            break;
                        }
                    }
                    continue;
                }
                _ => {}
            }
            inner.push(c);
        }
    }

    /// Reads up to the closing backtick; returns the inner command with the
    /// backtick-level escapes removed.
    fn backticks(&mut self) -> Result<String, String> {
        let mut inner = String::new();
        loop {
            match self.peek(0) {
                None => return Err("unterminated backtick".to_string()),
                Some('`') => {
                    self.pos += 1;
                    return Ok(inner);
                }
                Some('\\') => {
                    match self.peek(1) {
                        Some(c @ ('`' | '\\' | '$')) => inner.push(c),
                        Some(c) => {
                            inner.push('\\');
                            inner.push(c);
                        }
                        None => return Err("unterminated backtick".to_string()),
                    }
                    self.pos += 2;
                }
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
    }
}

/// Whether `s` is a shell variable name.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<Vec<String>> {
        parse(src)
            .unwrap()
            .commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_on_operators_and_removes_quotes() {
        assert_eq!(
            texts(r#"ls -l 'a b' && echo "x\"y" | wc; cat a\ b"#),
            vec![
                vec!["ls", "-l", "a b"],
                vec!["echo", "x\"y"],
                vec!["wc"],
                vec!["cat", "a b"]
            ]
        );
    }

    #[test]
    fn finds_redirections_and_fds() {
        let parsed = parse("cmd 2>/dev/null >out 2>&1 <in").unwrap();
        let c = &parsed.commands[0];
        assert_eq!(c.words.len(), 1);
        let kinds: Vec<_> = c
            .redirects
            .iter()
            .map(|r| (r.kind, r.target.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (RedirectKind::Output, "/dev/null"),
                (RedirectKind::Output, "out"),
                (RedirectKind::Duplicate, "1"),
                (RedirectKind::Input, "in")
            ]
        );
    }

    #[test]
    fn collects_substitutions() {
        let parsed = parse("echo $(rm a) `touch b` \"$(ls \")\")\" <(cat c)").unwrap();
        assert_eq!(
            parsed.substitutions,
            vec!["rm a", "touch b", "ls \")\"", "cat c"]
        );
        assert!(parsed.commands[0].words[1].dynamic);
    }

    #[test]
    fn skips_here_document_bodies() {
        let parsed = parse("cat <<'EOF' | wc -l\nit's (odd\n$(rm x)\nEOF\nls").unwrap();
        assert_eq!(parsed.commands.len(), 3);
        assert_eq!(parsed.commands[2].text(), "ls");
        assert!(parsed.substitutions.is_empty());
        let commit =
            "git commit -m \"$(cat <<'EOF'\nFix the parser's bug (again)\nEOF\n)\" && git status";
        let parsed = parse(commit).unwrap();
        assert_eq!(parsed.commands[0].text(), "git commit -m ");
        assert_eq!(parsed.commands[1].text(), "git status");
        assert_eq!(parsed.substitutions.len(), 1);
        let inner = parse(&parsed.substitutions[0]).unwrap();
        assert_eq!(inner.commands[0].text(), "cat");
        assert!(parse("cat <<-END\n\tx\n\tEND").is_ok());
        assert!(
            parse("cat <<EOF\n$(rm x)\nEOF").is_err(),
            "unquoted body runs substitutions"
        );
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        for bad in [
            "echo 'x",
            "echo \"x",
            "cat <<EOF",
            "echo $(ls",
            "a >",
            "(( x++ ))",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
