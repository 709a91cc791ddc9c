//! The module imports of every crate as a graph of files, and its circles.
//!
//! An arrow goes from a file to each file it imports from: `use crate::…`,
//! `use super::…`, `use self::…` and `use child::…` name a module, which lives in
//! one file (the longest prefix of the path that is a module decides which), and
//! `mod child;` points from the parent to the child's file. Only production code
//! counts (a file up to its first `#[cfg(test)]`). A circle is a strongly
//! connected part of that graph: files that all reach each other through
//! arrows; the rule is that none holds more than [`MOST_FILES_IN_A_CIRCLE`]
//! files. A reader can then take any file with at most two others, never a
//! whole knot.
//!
//! Circles found today that are too big are listed in [`ALLOWED_CIRCLES`], each
//! with the most files it may hold and why it is still there; the test prints
//! every circle it finds, fails on a circle not listed or grown past its
//! number, and fails on a listing that matches no circle any more (break one,
//! then strike it). focus-tui, the terminal kit, has no circle at all: no file
//! of the kit imports a file that imports it back.

use focus_testkit::tree::workspace;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most files one circle may hold.
pub const MOST_FILES_IN_A_CIRCLE: usize = 3;

/// Circles of more than [`MOST_FILES_IN_A_CIRCLE`] files that are still there:
/// `(a file of the circle, the most files it may hold, why)`. Each is a debt,
/// not a design: the list only shrinks.
const ALLOWED_CIRCLES: &[(&str, usize, &str)] = &[
    (
        "crates/focus-cli/src/mcp_serve/mod.rs",
        8,
        "the server's files reach the shared `Service` and its helpers through \
         mod.rs, which declares them; to break: the service state in a file of \
         its own that the transports and calls import",
    ),
    (
        "crates/focus-harness/src/subagents/mod.rs",
        8,
        "subagents build child conversations (driver.rs) while the conversation \
         records child links and usage (summary.rs, checkpoints.rs) through \
         subagents' types; to break: the link and usage types moved below both",
    ),
];

/// The module graph of one crate: files (relative to the workspace) and arrows.
#[derive(Default)]
pub struct Graph {
    /// Each file's module path (`["modes", "interactive"]` for
    /// `src/modes/interactive/mod.rs`).
    pub modules: BTreeMap<Vec<String>, String>,
    /// The arrows: file → files it imports from or declares.
    pub arrows: BTreeMap<String, BTreeSet<String>>,
}

/// The module graph of the crate in `crate_dir` (its `src/lib.rs` and
/// `src/main.rs` trees).
pub fn crate_graph(crate_dir: &Path) -> Graph {
    let mut graph = Graph::default();
    let mut sources: Vec<(Vec<String>, PathBuf)> = Vec::new();
    for root in ["src/lib.rs", "src/main.rs"] {
        let path = crate_dir.join(root);
        if path.exists() {
            collect_modules(&mut graph, &mut sources, Vec::new(), path);
        }
    }
    for (module, path) in &sources {
        let file = relative(path);
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let code = production(&text);
        let mut targets = BTreeSet::new();
        for child in declared_modules(code) {
            let mut m = module.clone();
            m.push(child.name);
            if let Some(f) = graph.modules.get(&m) {
                targets.insert(f.clone());
            }
        }
        for used in used_paths(code) {
            if let Some(absolute) = absolute_path(module, &used, &graph) {
                if let Some(f) = longest_module(&graph, &absolute) {
                    targets.insert(f);
                }
            }
        }
        targets.remove(&file);
        graph.arrows.entry(file).or_default().extend(targets);
    }
    graph
}

/// Walks the `mod` declarations from `path` (module `module`), recording each
/// file's module path.
fn collect_modules(
    graph: &mut Graph,
    sources: &mut Vec<(Vec<String>, PathBuf)>,
    module: Vec<String>,
    path: PathBuf,
) {
    if graph.modules.contains_key(&module) {
        return;
    }
    graph.modules.insert(module.clone(), relative(&path));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let children_dir = if ["mod.rs", "lib.rs", "main.rs"].contains(&name) {
        dir.clone()
    } else {
        dir.join(name.trim_end_matches(".rs"))
    };
    for child in declared_modules(production(&text)) {
        let file = match &child.path_attribute {
            Some(p) => dir.join(p),
            None => {
                let flat = children_dir.join(format!("{}.rs", child.name));
                if flat.exists() {
                    flat
                } else {
                    children_dir.join(&child.name).join("mod.rs")
                }
            }
        };
        if file.exists() {
            let mut m = module.clone();
            m.push(child.name);
            collect_modules(graph, sources, m, file);
        }
    }
    sources.push((module, path));
}

/// A `mod name;` declaration, with its `#[path = "…"]` if it has one.
struct Declared {
    name: String,
    path_attribute: Option<String>,
}

/// The `mod name;` declarations of a file (inline `mod name { … }` blocks are
/// part of their file and not counted).
fn declared_modules(code: &str) -> Vec<Declared> {
    let mut out = Vec::new();
    let mut path_attribute = None;
    for line in code.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("#[path = \"") {
            path_attribute = rest.split('"').next().map(str::to_string);
            continue;
        }
        let rest = strip_visibility(line);
        if let Some(rest) = rest.strip_prefix("mod ") {
            if let Some(name) = rest.strip_suffix(';') {
                out.push(Declared {
                    name: name.trim().to_string(),
                    path_attribute: path_attribute.take(),
                });
            }
        }
        if !line.starts_with("#[") {
            path_attribute = None;
        }
    }
    out
}

/// `line` without a leading `pub`, `pub(crate)`, `pub(super)` or `pub(in …)`.
fn strip_visibility(line: &str) -> &str {
    let Some(rest) = line.strip_prefix("pub") else {
        return line;
    };
    let rest = if rest.starts_with('(') {
        rest.split_once(')').map_or(rest, |(_, r)| r)
    } else {
        rest
    };
    if rest.starts_with(' ') {
        rest.trim_start()
    } else {
        line
    }
}

/// Every path a `use` item of the file names, its braces expanded
/// (`use a::{b, c::d};` gives `a::b` and `a::c::d`), as segments. Inside an
/// inline module (`mod linux { … }`), `super` names the file's own module, so
/// one leading `super` per enclosing inline module is taken off and a path
/// that is relative to an inline module (not starting with `crate`, `self` or
/// `super`) is left out: it names no other file.
fn used_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut lines = code.lines();
    // The brace depth at which each enclosing inline module opened.
    let mut inline: Vec<i32> = Vec::new();
    let mut depth = 0;
    while let Some(line) = lines.next() {
        let trimmed = strip_visibility(line.trim());
        if trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            inline.push(depth);
        }
        depth += braces(line);
        while inline.last().is_some_and(|&opened| depth <= opened) {
            inline.pop();
        }
        let rest = trimmed;
        let Some(rest) = rest.strip_prefix("use ") else {
            continue;
        };
        let mut item = rest.to_string();
        while !item.contains(';') {
            match lines.next() {
                Some(more) => item.push_str(more.trim()),
                None => break,
            }
        }
        let item = item.split(';').next().unwrap_or("");
        // A renaming (`a::b as c`) keeps only the path: `as` is cut off as a
        // word, before the spaces go (a path may hold "as", as in `bash`).
        let item = item.replace(" as ", "@");
        let compact: String = item.chars().filter(|c| !c.is_whitespace()).collect();
        let mut paths = Vec::new();
        expand(&compact, &[], &mut paths);
        for mut path in paths {
            let mut levels = inline.len();
            while levels > 0 && path.first().is_some_and(|s| s == "super") {
                path[0] = "self".to_string();
                if path.get(1).is_some_and(|s| s == "super") {
                    path.remove(0);
                }
                levels -= 1;
            }
            let anchored = path
                .first()
                .is_some_and(|s| ["crate", "self", "super"].contains(&s.as_str()));
            if inline.is_empty() || anchored {
                out.push(path);
            }
        }
    }
    out
}

/// How much `line` changes the brace depth (`{` minus `}`; braces in string
/// and character literals are rare enough in Rust code to be counted too, and
/// `format!("{x}")` opens and closes alike).
fn braces(line: &str) -> i32 {
    let code = line.split("//").next().unwrap_or(line);
    code.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Expands one use tree `tree` under the segments `prefix`.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = split_path(&tree[..open]);
        let close = tree.rfind('}').unwrap_or(tree.len());
        if close < open {
            return;
        }
        let inner = &tree[open + 1..close];
        let mut base = prefix.to_vec();
        base.extend(head);
        for part in split_top_level(inner) {
            if part == "self" {
                out.push(base.clone());
            } else if !part.is_empty() {
                expand(&part, &base, out);
            }
        }
    } else {
        let path = tree.split('@').next().unwrap_or(tree);
        let mut full = prefix.to_vec();
        full.extend(split_path(path));
        if full.last().is_some_and(|s| s == "self") {
            full.pop();
        }
        out.push(full);
    }
}

/// `a::b::` as `["a", "b"]`.
fn split_path(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty() && *s != "*")
        .map(str::to_string)
        .collect()
}

/// The comma-separated parts of `inner` that are not inside nested braces.
fn split_top_level(inner: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
}

/// The module path `used` names, from inside `module`; `None` for other crates.
fn absolute_path(module: &[String], used: &[String], graph: &Graph) -> Option<Vec<String>> {
    let first = used.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module.to_vec(),
        _ => {
            let mut child = module.to_vec();
            child.push(first.clone());
            if !graph.modules.contains_key(&child) {
                return None;
            }
            let mut absolute = module.to_vec();
            absolute.extend(used.iter().cloned());
            return Some(absolute);
        }
    };
    let mut rest = used;
    if first == "crate" || first == "self" {
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file of the longest prefix of `path` that is a module.
fn longest_module(graph: &Graph, path: &[String]) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|n| graph.modules.get(&path[..n]).cloned())
}

/// The strongly connected parts of `arrows` with more than one file (Tarjan's
/// algorithm), each sorted.
pub fn circles(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        arrows: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let arrows = s.arrows;
        for w in arrows.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                part.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                s.out.push(part);
            }
        }
    }
    let mut s = State {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in arrows.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Every crate folder of the workspace.
pub fn crate_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace().join("crates"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.retain(|d| d.join("Cargo.toml").exists());
    dirs.sort();
    dirs
}

/// The production part of a source file: up to its first `#[cfg(test)]`.
fn production(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

/// `path` relative to the workspace, with `/`.
fn relative(path: &Path) -> String {
    let root = workspace().canonicalize().unwrap_or_else(|_| workspace());
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(&root)
        .unwrap_or(&path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn no_circle_of_more_than_three_files() {
    let mut files = 0;
    let mut found = Vec::new();
    let mut too_big = Vec::new();
    let mut listed_seen = vec![false; ALLOWED_CIRCLES.len()];
    for dir in crate_dirs() {
        let graph = crate_graph(&dir);
        files += graph.arrows.len();
        for circle in circles(&graph.arrows) {
            found.push(format!("{} files: {}", circle.len(), circle.join(", ")));
            if dir.ends_with("focus-tui") {
                too_big.push(format!("in the terminal kit, which has none: {circle:?}"));
                continue;
            }
            if circle.len() <= MOST_FILES_IN_A_CIRCLE {
                continue;
            }
            let listed = ALLOWED_CIRCLES
                .iter()
                .position(|(file, _, _)| circle.iter().any(|f| f == file));
            match listed {
                Some(i) if circle.len() <= ALLOWED_CIRCLES[i].1 => listed_seen[i] = true,
                Some(i) => too_big.push(format!(
                    "{} files, more than the {} listed: {circle:?}",
                    circle.len(),
                    ALLOWED_CIRCLES[i].1
                )),
                None => too_big.push(format!("{} files: {circle:?}", circle.len())),
            }
        }
    }
    println!("module circles:\n{}", found.join("\n"));
    assert!(
        files >= 200,
        "only {files} source files in the module graphs"
    );
    assert!(
        too_big.is_empty(),
        "circles of more than {MOST_FILES_IN_A_CIRCLE} files in the module imports:\n{}",
        too_big.join("\n")
    );
    let stale: Vec<&str> = ALLOWED_CIRCLES
        .iter()
        .zip(&listed_seen)
        .filter(|(_, seen)| !**seen)
        .map(|((file, _, _), _)| *file)
        .collect();
    assert!(
        stale.is_empty(),
        "ALLOWED_CIRCLES lists circles that are gone or smaller than 4 files (strike them): {stale:?}"
    );
}

/// The scanner on a tree it can be checked against: focus-tui's fuzzy matcher,
/// whose mod.rs declares four files and re-exports two of them.
#[test]
fn the_scanner_follows_mod_and_use() {
    let graph = crate_graph(&workspace().join("crates/focus-tui"));
    let arrows = |file: &str| -> Vec<String> {
        graph.arrows[&format!("crates/focus-tui/src/{file}")]
            .iter()
            .map(|f| f.trim_start_matches("crates/focus-tui/src/").to_string())
            .collect()
    };
    assert_eq!(
        arrows("fuzzy/mod.rs"),
        [
            "fuzzy/cores.rs",
            "fuzzy/packed.rs",
            "fuzzy/rank.rs",
            "fuzzy/score.rs"
        ]
    );
    assert_eq!(
        arrows("fuzzy/rank.rs"),
        ["fuzzy/cores.rs", "fuzzy/packed.rs", "fuzzy/score.rs"]
    );
    assert!(arrows("editor.rs").contains(&"keys.rs".to_string()));
    assert!(arrows("editor.rs").contains(&"width.rs".to_string()));
    let mut made_up = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("d", "e")] {
        made_up
            .entry(from.to_string())
            .or_insert_with(BTreeSet::new)
            .insert(to.to_string());
    }
    assert_eq!(circles(&made_up), [["a", "b", "c", "d"]]);
}

/// `use` lines as the scanner reads them: renamings, words holding "as", and
/// `super` inside an inline module (the file's own module, not its parent).
#[test]
fn the_scanner_reads_use_lines_as_rust_does() {
    let code = "use crate::bash::spill::SpillDir;\n\
                use super::{a as b, c::{d, e}};\n\
                mod linux {\n    use super::Rules;\n    use super::super::Up;\n    use libc_like::X;\n    fn f() { let _ = format!(\"{x}\"); }\n}\n\
                use super::after;\n";
    let paths: Vec<String> = used_paths(code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "crate::bash::spill::SpillDir",
            "super::a",
            "super::c::d",
            "super::c::e",
            "self::Rules",
            "super::Up",
            "super::after"
        ]
    );
}
