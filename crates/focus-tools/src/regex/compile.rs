//! Syntax tree to a Thompson NFA program.
//!
//! Each node becomes a few instructions: a character or class consumes one
//! character, `Split` forks a thread (first target preferred), `Jmp` moves,
//! `Look` checks an assertion without consuming, `Match` accepts. Counted
//! repetition `x{2,4}` is expanded into copies (`xx(x(x)?)?`), which is why
//! counts are capped and the program size is checked. Case-insensitivity is
//! resolved here: a folded literal becomes a small class of its case variants.

use super::parse::{Class, Look, Node};

/// Largest program compiled (a guard against `(x{1000}){1000}`).
pub const MAX_INSTRUCTIONS: usize = 250_000;

/// One NFA instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// Consume exactly this character.
    Char(char),
    /// Consume a character in `classes[i]`.
    Class(usize),
    /// Consume any character except `\n`.
    AnyButNewline,
    /// Consume any character.
    Any,
    /// Continue only if the assertion holds here.
    Look(Look),
    /// Fork: try the first target, then (lower priority) the second.
    Split(usize, usize),
    /// Go to the target.
    Jmp(usize),
    /// Accept.
    Match,
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Program {
    /// Instructions; execution starts at 0.
    pub insts: Vec<Inst>,
    /// Character classes referred to by [`Inst::Class`].
    pub classes: Vec<Class>,
    /// Whether every match must start at the beginning of the text (`^…`).
    pub anchored_start: bool,
    /// Bytes a match can start with (`None`: any). While no thread is alive
    /// the VM skips straight to the next such byte instead of stepping.
    pub first_bytes: Option<Box<[bool; 256]>>,
}

/// Compiles a tree, or explains why the program would be too large.
///
/// # Errors
///
/// The program would pass the size limit (a huge repetition count, say).
pub fn compile(node: &Node) -> Result<Program, String> {
    let mut compiler = Compiler {
        insts: Vec::new(),
        classes: Vec::new(),
    };
    compiler.emit(node, false)?;
    compiler.insts.push(Inst::Match);
    let first_bytes = first_bytes(&compiler.insts, &compiler.classes);
    Ok(Program {
        insts: compiler.insts,
        classes: compiler.classes,
        anchored_start: starts_anchored(node),
        first_bytes,
    })
}

/// The set of bytes a match can begin with: the first UTF-8 byte of every
/// character the instructions reachable from the start can consume. `None`
/// when that is everything or the pattern can match the empty string.
fn first_bytes(insts: &[Inst], classes: &[Class]) -> Option<Box<[bool; 256]>> {
    let mut set = Box::new([false; 256]);
    let mut seen = vec![false; insts.len()];
    let mut stack = vec![0usize];
    while let Some(pc) = stack.pop() {
        if std::mem::replace(&mut seen[pc], true) {
            continue;
        }
        match &insts[pc] {
            Inst::Match | Inst::Any | Inst::AnyButNewline => return None,
            Inst::Jmp(t) => stack.push(*t),
            Inst::Split(a, b) => stack.extend([*a, *b]),
            // Assertions consume nothing: look past them.
            Inst::Look(_) => stack.push(pc + 1),
            Inst::Char(c) => {
                let mut buf = [0u8; 4];
                set[c.encode_utf8(&mut buf).as_bytes()[0] as usize] = true;
            }
            Inst::Class(k) => {
                let class = &classes[*k];
                for b in 0..128u8 {
                    if class.matches(b as char) {
                        set[b as usize] = true;
                    }
                }
                // Any non-ASCII member may start with any lead byte.
                let may_be_non_ascii = class.negated
                    || !class.perl.is_empty()
                    || class.ranges.iter().any(|&(_, hi)| !hi.is_ascii());
                if may_be_non_ascii {
                    for flag in &mut set[0x80..] {
                        *flag = true;
                    }
                }
            }
        }
    }
    Some(set)
}

fn starts_anchored(node: &Node) -> bool {
    match node {
        Node::Look(Look::Start) => true,
        Node::Concat(items) => items.first().is_some_and(starts_anchored),
        Node::CaseInsensitive(inner) => starts_anchored(inner),
        Node::Alternate(branches) => branches.iter().all(starts_anchored),
        _ => false,
    }
}

struct Compiler {
    insts: Vec<Inst>,
    classes: Vec<Class>,
}

impl Compiler {
    fn push(&mut self, inst: Inst) -> Result<usize, String> {
        if self.insts.len() >= MAX_INSTRUCTIONS {
            return Err(
                "the pattern is too large once its repetitions are expanded; use smaller counts"
                    .to_string(),
            );
        }
        self.insts.push(inst);
        Ok(self.insts.len() - 1)
    }

    fn class(&mut self, class: Class) -> Result<usize, String> {
        self.classes.push(class);
        self.push(Inst::Class(self.classes.len() - 1))
    }

    fn emit(&mut self, node: &Node, icase: bool) -> Result<(), String> {
        match node {
            Node::Empty => {}
            Node::Literal(c) => {
                let variants = case_variants(*c);
                if icase && variants.len() > 1 {
                    let ranges = variants.into_iter().map(|v| (v, v)).collect();
                    self.class(Class {
                        ranges,
                        ..Class::default()
                    })?;
                } else {
                    self.push(Inst::Char(*c))?;
                }
            }
            Node::Any { dot_all } => {
                self.push(if *dot_all {
                    Inst::Any
                } else {
                    Inst::AnyButNewline
                })?;
            }
            Node::Class(class) => {
                let class = if icase {
                    fold_class(class)
                } else {
                    class.clone()
                };
                self.class(class)?;
            }
            Node::Look(look) => {
                self.push(Inst::Look(*look))?;
            }
            Node::Concat(items) => {
                for item in items {
                    self.emit(item, icase)?;
                }
            }
            Node::CaseInsensitive(inner) => self.emit(inner, true)?,
            Node::CaseSensitive(inner) => self.emit(inner, false)?,
            Node::Alternate(branches) => {
                // split L1, next; L1: a; jmp end; next: split L2, …; last branch.
                let mut jumps = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    if i + 1 < branches.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(branch, icase)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        let next = self.insts.len();
                        self.insts[split] = Inst::Split(split + 1, next);
                    } else {
                        self.emit(branch, icase)?;
                    }
                }
                let end = self.insts.len();
                for jump in jumps {
                    self.insts[jump] = Inst::Jmp(end);
                }
            }
            Node::Repeat {
                node,
                min,
                max,
                greedy,
            } => {
                for _ in 0..*min {
                    self.emit(node, icase)?;
                }
                match max {
                    None => {
                        // loop: split body, out; body; jmp loop
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(node, icase)?;
                        self.push(Inst::Jmp(split))?;
                        let out = self.insts.len();
                        self.insts[split] = ordered(*greedy, split + 1, out);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.emit(node, icase)?;
                        }
                        let out = self.insts.len();
                        for split in splits {
                            self.insts[split] = ordered(*greedy, split + 1, out);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// A split preferring `more` (greedy) or `skip` (lazy).
fn ordered(greedy: bool, more: usize, skip: usize) -> Inst {
    if greedy {
        Inst::Split(more, skip)
    } else {
        Inst::Split(skip, more)
    }
}

/// `c` and its simple upper- and lower-case forms.
pub fn case_variants(c: char) -> Vec<char> {
    let mut variants = vec![c];
    for other in [single(c.to_lowercase()), single(c.to_uppercase())]
        .into_iter()
        .flatten()
    {
        if !variants.contains(&other) {
            variants.push(other);
        }
    }
    variants
}

/// The only item of a case mapping, if it maps to one character.
fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
    let first = it.next()?;
    if it.next().is_some() {
        None
    } else {
        Some(first)
    }
}

/// A class extended with the case variants of its members. Small ranges are
/// folded character by character; huge ranges only get ASCII folding (they
/// usually already contain both cases).
fn fold_class(class: &Class) -> Class {
    let mut folded = class.clone();
    for &(lo, hi) in &class.ranges {
        if (hi as u32) - (lo as u32) <= 2048 {
            for c in (lo as u32..=hi as u32).filter_map(char::from_u32) {
                for v in case_variants(c).into_iter().skip(1) {
                    folded.ranges.push((v, v));
                }
            }
        } else {
            for (a, b, delta) in [('a', 'z', -32i32), ('A', 'Z', 32)] {
                let (l, h) = (lo.max(a), hi.min(b));
                if l <= h {
                    let shift = |c: char| char::from_u32((c as i32 + delta) as u32).unwrap_or(c);
                    folded.ranges.push((shift(l), shift(h)));
                }
            }
        }
    }
    folded
}
