//! Pattern text to syntax tree.
//!
//! A recursive-descent parser for the common regex dialect models write (the
//! one grep -E, ripgrep and most languages share): literals, `.`, classes
//! `[a-z]`, `[^…]`, `\d \w \s` and their negations, POSIX `[:alpha:]` inside
//! brackets, anchors `^ $ \b \B \A \z`, alternation, groups `( )`, `(?: )`,
//! named groups, inline flags `(?i)` / `(?s)` / `(?i: … )`, and repetition
//! `* + ? {m} {m,} {m,n}` with lazy `?` suffixes. Errors name the position.

use std::fmt;

/// Largest count allowed in `{m,n}` (keeps compiled programs small).
pub const MAX_REPEAT: u32 = 1000;

/// A parsed pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Matches the empty string.
    Empty,
    /// One character (case folding is applied when compiling).
    Literal(char),
    /// `.`: any character but `\n`, or any at all with the `s` flag.
    Any {
        /// Whether `\n` matches too.
        dot_all: bool,
    },
    /// A bracket or Perl class.
    Class(Class),
    /// A zero-width assertion.
    Look(Look),
    /// Items in sequence.
    Concat(Vec<Node>),
    /// Alternatives, first preferred.
    Alternate(Vec<Node>),
    /// A repeated item.
    Repeat {
        /// What repeats.
        node: Box<Node>,
        /// Fewest repetitions.
        min: u32,
        /// Most repetitions (`None`: unbounded).
        max: Option<u32>,
        /// Prefer more repetitions (`*`) rather than fewer (`*?`).
        greedy: bool,
    },
    /// A case-insensitive region (`(?i)` or the whole pattern).
    CaseInsensitive(Box<Node>),
    /// A case-sensitive region inside an insensitive one (`(?-i)`).
    CaseSensitive(Box<Node>),
}

/// Zero-width assertions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// `^` / `\A`: start of the text.
    Start,
    /// `$` / `\z`: end of the text.
    End,
    /// `\b`: between a word and a non-word character.
    WordBoundary,
    /// `\B`: not at a word boundary.
    NotWordBoundary,
}

/// Perl-style class shorthands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perl {
    /// `\d`: an ASCII digit (std has no Unicode decimal-digit table).
    Digit,
    /// `\w`: a letter, digit or `_` (Unicode).
    Word,
    /// `\s`: Unicode white space.
    Space,
}

/// A set of characters: ranges plus Perl shorthands, possibly negated.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Class {
    /// Inclusive character ranges.
    pub ranges: Vec<(char, char)>,
    /// Shorthands and whether each is negated (`\D` is `(Digit, true)`).
    pub perl: Vec<(Perl, bool)>,
    /// `[^…]`.
    pub negated: bool,
}

impl Class {
    /// Whether `c` is in the set (negation applied).
    pub fn matches(&self, c: char) -> bool {
        let inside = self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
            || self.perl.iter().any(|&(p, neg)| p.matches(c) != neg);
        inside != self.negated
    }
}

impl Perl {
    /// Whether `c` belongs to the shorthand.
    pub fn matches(self, c: char) -> bool {
        match self {
            Perl::Digit => c.is_ascii_digit(),
            Perl::Word => is_word_char(c),
            Perl::Space => c.is_whitespace(),
        }
    }
}

/// A word character for `\w` and `\b`: alphanumeric (Unicode) or `_`.
pub fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// A pattern that could not be parsed: what and where (character index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is wrong.
    pub message: String,
    /// Character position in the pattern (0-based).
    pub position: usize,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at position {}", self.message, self.position)
    }
}

impl std::error::Error for Error {}

/// Parses `pattern`. The whole pattern is case-insensitive when `case_insensitive`.
///
/// # Errors
///
/// An [`Error`] naming the position: an unclosed group or class, a bad escape or repetition,
/// nesting too deep.
pub fn parse(pattern: &str, case_insensitive: bool) -> Result<Node, Error> {
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        dot_all: false,
        depth: 0,
    };
    let node = parser.alternation(case_insensitive)?;
    if parser.pos < parser.chars.len() {
        return Err(parser.error("unmatched ')'"));
    }
    if height(&node) > MAX_HEIGHT {
        return Err(Error {
            message: format!("the pattern is nested too deeply (more than {MAX_HEIGHT} levels)"),
            position: 0,
        });
    }
    Ok(if case_insensitive {
        Node::CaseInsensitive(Box::new(node))
    } else {
        node
    })
}

/// How many levels deep the tree is, counted without recursion.
fn height(root: &Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root, 1)];
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        match node {
            Node::Concat(items) | Node::Alternate(items) => {
                stack.extend(items.iter().map(|item| (item, level + 1)));
            }
            Node::Repeat { node, .. } | Node::CaseInsensitive(node) | Node::CaseSensitive(node) => {
                stack.push((node, level + 1));
            }
            _ => {}
        }
    }
    deepest
}

/// Wraps `node` when its case sensitivity (`inner`) differs from the
/// surrounding one (`outer`).
fn with_case(node: Node, inner: bool, outer: bool) -> Node {
    match (inner, outer) {
        (true, false) => Node::CaseInsensitive(Box::new(node)),
        (false, true) => Node::CaseSensitive(Box::new(node)),
        _ => node,
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    dot_all: bool,
    depth: usize,
}

/// Deepest group nesting accepted (the parser recurses per group, and per
/// inline flag switch such as `(?i)`, which wraps the rest of its branch).
const MAX_DEPTH: usize = 200;
/// Most repetition operators applied to one atom in a row (`a{2}{3}` is two).
/// Each one wraps the tree a level deeper, and the compiler, the literal
/// finder and even dropping the tree recurse over it, so `a` followed by
/// 100,000 `*` would overflow the stack; nobody writes more than two.
const MAX_STACKED_REPEATS: usize = 2;
/// Deepest syntax tree accepted. The compiler and the literal finder recurse
/// once per level; groups, repetitions and alternations inside one another
/// (each within its own limit) could still build a tree deep enough to
/// overflow a thread's stack.
const MAX_HEIGHT: usize = 256;

impl Parser {
    fn error(&self, message: &str) -> Error {
        Error {
            message: message.to_string(),
            position: self.pos,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// `a|b|c` up to a `)` or the end. `icase` is the flag in force (it only
    /// matters for inline `(?i)` switches, which wrap what follows them).
    fn alternation(&mut self, icase: bool) -> Result<Node, Error> {
        let mut branches = vec![self.concat(icase)?];
        while self.eat('|') {
            branches.push(self.concat(icase)?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alternate(branches)
        })
    }

    fn concat(&mut self, icase: bool) -> Result<Node, Error> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            // An inline flag group without `:` applies to the rest of this branch.
            if let Some(case_change) = self.inline_flags() {
                if let Some(rest_icase) = case_change {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return Err(self.error("too many inline flag groups"));
                    }
                    let rest = self.concat(rest_icase)?;
                    self.depth -= 1;
                    items.push(with_case(rest, rest_icase, icase));
                    break;
                }
                continue;
            }
            let atom = self.atom(icase)?;
            let atom = self.repetition(atom)?;
            items.push(atom);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    /// Recognises `(?flags)` at the cursor and consumes it. `None`: not such a
    /// group. `Some(Some(on))`: case sensitivity switches for the rest of the
    /// branch. `Some(None)`: other flags only (`s` is applied here).
    fn inline_flags(&mut self) -> Option<Option<bool>> {
        if !(self.peek() == Some('(') && self.chars.get(self.pos + 1) == Some(&'?')) {
            return None;
        }
        let mut i = self.pos + 2;
        let mut negate = false;
        let mut icase = None;
        let mut dot_all = None;
        while let Some(&c) = self.chars.get(i) {
            match c {
                'i' => icase = Some(!negate),
                's' => dot_all = Some(!negate),
                'm' | 'u' => {}
                '-' => negate = true,
                ')' => break,
                _ => return None,
            }
            i += 1;
        }
        if self.chars.get(i) != Some(&')') || i == self.pos + 2 {
            return None;
        }
        self.pos = i + 1;
        if let Some(d) = dot_all {
            self.dot_all = d;
        }
        Some(icase)
    }

    fn atom(&mut self, icase: bool) -> Result<Node, Error> {
        let Some(c) = self.peek() else {
            return Err(self.error("unexpected end of pattern"));
        };
        self.pos += 1;
        match c {
            '(' => self.group(icase),
            '[' => Ok(Node::Class(self.bracket_class()?)),
            '.' => Ok(Node::Any {
                dot_all: self.dot_all,
            }),
            '^' => Ok(Node::Look(Look::Start)),
            '$' => Ok(Node::Look(Look::End)),
            '\\' => self.escape(),
            '*' | '+' | '?' => {
                self.pos -= 1;
                Err(self.error(&format!("'{c}' has nothing to repeat")))
            }
            '{' if self.counted_repeat_ahead() => {
                self.pos -= 1;
                Err(self.error("'{' has nothing to repeat"))
            }
            c => Ok(Node::Literal(c)),
        }
    }

    fn group(&mut self, icase: bool) -> Result<Node, Error> {
        let open = self.pos - 1;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("groups nested too deeply"));
        }
        let mut inner_icase = icase;
        let saved_dot_all = self.dot_all;
        if self.eat('?') {
            if self.eat(':') {
            } else if self.eat('P') || self.peek() == Some('<') {
                if !self.eat('<') {
                    return Err(self.error("expected '<' after '(?P'"));
                }
                if self.peek() == Some('=') || self.peek() == Some('!') {
                    return Err(self.error("look-behind is not supported"));
                }
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == '>' {
                        break;
                    }
                    if !is_word_char(c) {
                        return Err(self.error("invalid group name"));
                    }
                }
            } else if self.peek() == Some('=') || self.peek() == Some('!') {
                return Err(self.error("look-ahead is not supported"));
            } else {
                // Scoped flags: (?i:...), (?s-i:...).
                let mut negate = false;
                loop {
                    match self.peek() {
                        Some('i') => inner_icase = !negate,
                        Some('s') => self.dot_all = !negate,
                        Some('m') | Some('u') => {}
                        Some('-') => negate = true,
                        Some(':') => break,
                        _ => return Err(self.error("unknown group flag")),
                    }
                    self.pos += 1;
                }
                self.pos += 1;
            }
        }
        let inner = self.alternation(inner_icase)?;
        if !self.eat(')') {
            return Err(Error {
                message: "unclosed '('".to_string(),
                position: open,
            });
        }
        self.depth -= 1;
        self.dot_all = saved_dot_all;
        Ok(with_case(inner, inner_icase, icase))
    }

    /// Whether the cursor is at `{m}`, `{m,}` or `{m,n}` (otherwise `{` is literal).
    fn counted_repeat_ahead(&self) -> bool {
        let mut i = if self.chars.get(self.pos) == Some(&'{') {
            self.pos + 1
        } else {
            self.pos
        };
        let digits_start = i;
        while self.chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if i == digits_start {
            return false;
        }
        if self.chars.get(i) == Some(&',') {
            i += 1;
            while self.chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        self.chars.get(i) == Some(&'}')
    }

    fn repetition(&mut self, mut node: Node) -> Result<Node, Error> {
        let mut stacked = 0;
        loop {
            let at_operator = matches!(self.peek(), Some('*' | '+' | '?'))
                || (self.peek() == Some('{') && self.counted_repeat_ahead());
            if at_operator && stacked == MAX_STACKED_REPEATS {
                return Err(self.error(
                    "too many repetition operators in a row; group with (?:...) to repeat a repetition",
                ));
            }
            stacked += 1;
            let (min, max) = match self.peek() {
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('?') => (0, Some(1)),
                Some('{') if self.counted_repeat_ahead() => {
                    let start = self.pos;
                    self.pos += 1;
                    let min = self.number()?;
                    let max = if self.eat(',') {
                        if self.peek() == Some('}') {
                            None
                        } else {
                            Some(self.number()?)
                        }
                    } else {
                        Some(min)
                    };
                    self.pos += 1; // the '}'
                    if max.is_some_and(|m| m < min) {
                        return Err(Error {
                            message: "repetition {m,n} has n < m".to_string(),
                            position: start,
                        });
                    }
                    if matches!(node, Node::Look(_)) {
                        return Err(Error {
                            message: "an anchor cannot be repeated".to_string(),
                            position: start,
                        });
                    }
                    node = Node::Repeat {
                        node: Box::new(node),
                        min,
                        max,
                        greedy: !self.eat('?'),
                    };
                    continue;
                }
                _ => return Ok(node),
            };
            if matches!(node, Node::Look(_)) {
                return Err(self.error("an anchor cannot be repeated"));
            }
            self.pos += 1;
            let greedy = !self.eat('?');
            node = Node::Repeat {
                node: Box::new(node),
                min,
                max,
                greedy,
            };
        }
    }

    fn number(&mut self) -> Result<u32, Error> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        match text.parse::<u32>() {
            Ok(n) if n <= MAX_REPEAT => Ok(n),
            _ => Err(Error {
                message: format!("repetition count must be at most {MAX_REPEAT}"),
                position: start,
            }),
        }
    }

    /// After a `\` outside brackets.
    fn escape(&mut self) -> Result<Node, Error> {
        let Some(c) = self.peek() else {
            return Err(self.error("pattern ends with a lone '\\'"));
        };
        self.pos += 1;
        let perl = |p, neg| {
            Node::Class(Class {
                perl: vec![(p, neg)],
                ..Class::default()
            })
        };
        Ok(match c {
            'd' => perl(Perl::Digit, false),
            'D' => perl(Perl::Digit, true),
            'w' => perl(Perl::Word, false),
            'W' => perl(Perl::Word, true),
            's' => perl(Perl::Space, false),
            'S' => perl(Perl::Space, true),
            'b' => Node::Look(Look::WordBoundary),
            'B' => Node::Look(Look::NotWordBoundary),
            'A' => Node::Look(Look::Start),
            'z' => Node::Look(Look::End),
            _ => Node::Literal(self.escaped_char(c)?),
        })
    }

    /// A character escape: `\n`, `\t`, `\x41`, `\x{1F600}`, `\u{…}`, or escaped
    /// punctuation. Unknown letters are errors (they might mean something else
    /// in another dialect).
    fn escaped_char(&mut self, c: char) -> Result<char, Error> {
        match c {
            'n' => Ok('\n'),
            't' => Ok('\t'),
            'r' => Ok('\r'),
            'f' => Ok('\u{c}'),
            'v' => Ok('\u{b}'),
            'a' => Ok('\u{7}'),
            'e' => Ok('\u{1b}'),
            '0' => Ok('\0'),
            'x' | 'u' => self.hex_escape(),
            c if c.is_ascii_alphanumeric() => {
                self.pos -= 1;
                Err(self.error(&format!("unknown escape '\\{c}'")))
            }
            c => Ok(c),
        }
    }

    fn hex_escape(&mut self) -> Result<char, Error> {
        let start = self.pos;
        let digits: String = if self.eat('{') {
            let mut s = String::new();
            while let Some(c) = self.peek() {
                self.pos += 1;
                if c == '}' {
                    break;
                }
                s.push(c);
            }
            s
        } else {
            let s: String = self.chars.iter().skip(self.pos).take(2).collect();
            self.pos += s.chars().count();
            s
        };
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or(Error {
                message: "invalid hexadecimal escape".to_string(),
                position: start,
            })
    }

    /// After a `[`: items until the closing `]`.
    fn bracket_class(&mut self) -> Result<Class, Error> {
        let open = self.pos - 1;
        let mut class = Class {
            negated: self.eat('^'),
            ..Class::default()
        };
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err(Error {
                    message: "unclosed '['".to_string(),
                    position: open,
                });
            };
            if c == ']' && !first {
                self.pos += 1;
                return Ok(class);
            }
            first = false;
            if c == '[' && self.chars.get(self.pos + 1) == Some(&':') {
                if let Some(end) = (self.pos + 2..self.chars.len()).find(|&i| self.chars[i] == ']')
                {
                    let name: String = self.chars[self.pos + 2..end].iter().collect();
                    if let Some(name) = name.strip_suffix(':') {
                        self.posix_class(name, &mut class)?;
                        self.pos = end + 1;
                        continue;
                    }
                }
            }
            self.pos += 1;
            let lo = if c == '\\' {
                let Some(e) = self.peek() else {
                    return Err(self.error("unclosed '['"));
                };
                self.pos += 1;
                match e {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                        let perl = match e.to_ascii_lowercase() {
                            'd' => Perl::Digit,
                            'w' => Perl::Word,
                            _ => Perl::Space,
                        };
                        class.perl.push((perl, e.is_ascii_uppercase()));
                        continue;
                    }
                    'b' => '\u{8}',
                    e => self.escaped_char(e)?,
                }
            } else {
                c
            };
            // A range `lo-hi`, unless the `-` is last (`[a-]`).
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&n| n != ']') {
                self.pos += 1;
                let mut hi = self.peek().unwrap_or(lo);
                self.pos += 1;
                if hi == '\\' {
                    let e = self.peek().ok_or_else(|| self.error("unclosed '['"))?;
                    self.pos += 1;
                    hi = self.escaped_char(e)?;
                }
                if hi < lo {
                    return Err(self.error(&format!("invalid range '{lo}-{hi}'")));
                }
                class.ranges.push((lo, hi));
            } else {
                class.ranges.push((lo, lo));
            }
        }
    }

    fn posix_class(&self, name: &str, class: &mut Class) -> Result<(), Error> {
        let ranges: &[(char, char)] = match name {
            "alpha" => &[('a', 'z'), ('A', 'Z')],
            "digit" => &[('0', '9')],
            "alnum" => &[('a', 'z'), ('A', 'Z'), ('0', '9')],
            "upper" => &[('A', 'Z')],
            "lower" => &[('a', 'z')],
            "space" => &[(' ', ' '), ('\t', '\r')],
            "blank" => &[(' ', ' '), ('\t', '\t')],
            "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
            "xdigit" => &[('0', '9'), ('a', 'f'), ('A', 'F')],
            "word" => &[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')],
            "cntrl" => &[('\0', '\u{1f}'), ('\u{7f}', '\u{7f}')],
            "print" => &[(' ', '~')],
            "graph" => &[('!', '~')],
            _ => return Err(self.error(&format!("unknown POSIX class [:{name}:]"))),
        };
        class.ranges.extend_from_slice(ranges);
        Ok(())
    }
}
