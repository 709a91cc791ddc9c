//! The teaching documents in `docs/` must name things that exist.
//!
//! Every name written in backticks in `docs/*.md` and `README.md` is checked
//! against the workspace's Rust sources ([`docs_cite::CodeIndex`]):
//! - `name()` or `value.name()`: a `fn name` must exist somewhere;
//! - a path, called or not (`Type::name`, `Type::name(args)`, `module::name`,
//!   `focus_core::json::parse`): each step must hold where its owner is the
//!   workspace's: `name` a method, field or variant of `Type`, or a name that
//!   `module` defines, declares or re-exports. Paths into the standard library
//!   (`std::`, `Vec::with_capacity`) are not the workspace's and are passed over;
//! - `CamelCase`: the identifier must appear as a whole word in the code;
//! - `some_file.rs`: such a file must exist.
//!
//! A renamed function therefore fails this test until the documents follow, and so
//! does a method cited on the wrong type.

use crate::docs_cite;

use docs_cite::CodeIndex;
use focus_testkit::tree::workspace;
use std::path::{Path, PathBuf};

/// The backticked spans of a Markdown text, skipping fenced code blocks.
fn backticked(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            spans.push(inside.to_string());
        }
    }
    spans
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The path of a span that is a Rust path with at least two segments, its call
/// arguments (if any) removed: `Run::turn`, `SseDecoder::feed(bytes, &mut events)`.
fn rust_path(span: &str) -> Option<Vec<&str>> {
    let path = match span.find('(') {
        Some(open) if span.ends_with(')') => &span[..open],
        Some(_) => return None,
        None => span,
    };
    let segments: Vec<&str> = path.split("::").collect();
    (segments.len() >= 2 && segments.iter().all(|s| is_ident(s))).then_some(segments)
}

/// What is wrong with one backticked span, if anything; `None` when it is fine or
/// not a name this test checks. Counts the names it checks in `checked`.
fn problem_with(
    span: &str,
    index: &CodeIndex,
    files: &[String],
    checked: &mut usize,
) -> Option<String> {
    if let Some(segments) = rust_path(span) {
        if matches!(segments[0], "std" | "core" | "alloc") {
            return None;
        }
        let mut problem = None;
        for pair in segments.windows(2) {
            match index.owner_has(pair[0], pair[1]) {
                Some(true) => *checked += 1,
                Some(false) => {
                    *checked += 1;
                    problem = Some(format!("`{}` has no `{}`", pair[0], pair[1]));
                    break;
                }
                None => {}
            }
        }
        return problem;
    }
    if let Some(call) = span.strip_suffix("()") {
        let last = call.rsplit('.').next().unwrap_or(call);
        if is_ident(last) {
            *checked += 1;
            return (!index.fns.contains(last)).then(|| format!("no `fn {last}`"));
        }
        return None;
    }
    if span.ends_with(".rs") && !span.contains(' ') {
        *checked += 1;
        let found = files.iter().any(|p| p.ends_with(&format!("/{span}")));
        return (!found).then(|| "no such file".to_string());
    }
    if is_ident(span)
        && span.len() > 2
        && span.starts_with(|c: char| c.is_ascii_uppercase())
        && span.chars().any(|c| c.is_ascii_lowercase())
    {
        *checked += 1;
        return (!index.words.contains(span)).then(|| "not in the code".to_string());
    }
    None
}

#[test]
fn every_cited_name_exists_in_the_code() {
    let root = workspace();
    let (index, files) = CodeIndex::of_tree(&root.join("crates"));
    assert!(
        files.len() > 20,
        "found only {} Rust files under {}",
        files.len(),
        root.display()
    );
    let file_paths: Vec<String> = files
        .iter()
        .map(|f| f.to_string_lossy().replace('\\', "/"))
        .collect();

    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.push(root.join("README.md"));
    docs.sort();

    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap_or_default();
        let name = doc.file_name().unwrap().to_string_lossy().to_string();
        for span in backticked(&text) {
            let span = span.trim();
            if let Some(why) = problem_with(span, &index, &file_paths, &mut checked) {
                missing.push(format!("{name}: `{span}`: {why}"));
            }
        }
    }
    assert!(
        checked > 100,
        "checked only {checked} names; is docs/ empty?"
    );
    assert!(
        missing.is_empty(),
        "documents cite names the code does not have:\n{}",
        missing.join("\n")
    );
}

/// The index on a small made-up crate: what it must find, and what it must not.
#[test]
fn the_index_knows_methods_fields_variants_and_module_names() {
    let mut index = CodeIndex::default();
    index.add_source(
        Path::new("crates/demo-crate/src/lib.rs"),
        r##"
        //! fn not_a_function() in a comment
        pub mod shapes;
        pub use shapes::{Circle, area};
        const LIMIT: usize = 3;
        "##,
    );
    index.add_source(
        Path::new("crates/demo-crate/src/shapes.rs"),
        r##"
        pub struct Circle { pub radius: f64 }
        pub enum Kind { Round, Square(u8), Odd { sides: u32 } }
        pub trait Shape { fn area(&self) -> f64; fn name(&self) -> &str { "shape" } }
        impl<'a, T: Into<f64>> From<T> for Circle where T: Copy {
            fn from(r: T) -> Circle { let s = "impl Fake { fn nope() {} }"; Circle { radius: r.into() } }
        }
        impl Circle {
            pub fn new(radius: f64) -> Circle { let c = '{'; let _ = c; Circle { radius } }
            fn diameter(&self) -> f64 { self.radius * 2.0 }
        }
        impl Shape for Circle { fn area(&self) -> f64 { 3.14 * self.radius * self.radius } }
        pub fn area(shape: &dyn Shape) -> f64 { fn helper() {} shape.area() }
        fn raw() -> &'static str { r#"impl Ghost { fn boo() {} }"# }
        "##,
    );
    let has = |owner: &str, member: &str| index.owner_has(owner, member);
    assert_eq!(has("Circle", "new"), Some(true));
    assert_eq!(has("Circle", "diameter"), Some(true));
    assert_eq!(has("Circle", "from"), Some(true), "a trait impl's method");
    assert_eq!(has("Circle", "area"), Some(true), "a trait impl's method");
    assert_eq!(has("Circle", "radius"), Some(true), "a field");
    assert_eq!(has("Circle", "nope"), Some(false), "inside a string");
    assert_eq!(has("Circle", "missing"), Some(false));
    assert_eq!(has("Kind", "Square"), Some(true), "a variant");
    assert_eq!(has("Kind", "Odd"), Some(true));
    assert_eq!(has("Shape", "name"), Some(true), "a trait's method");
    assert_eq!(has("shapes", "area"), Some(true), "a module's function");
    assert_eq!(
        has("shapes", "helper"),
        Some(false),
        "nested in a function body"
    );
    assert_eq!(has("shapes", "Kind"), Some(true));
    assert_eq!(
        has("demo_crate", "shapes"),
        Some(true),
        "a declared submodule"
    );
    assert_eq!(has("demo_crate", "Circle"), Some(true), "a re-export");
    assert_eq!(has("demo_crate", "LIMIT"), Some(true));
    assert_eq!(
        has("demo_crate", "not_a_function"),
        Some(false),
        "in a comment"
    );
    assert_eq!(
        has("Fake", "nope"),
        None,
        "a type only named inside a string"
    );
    assert_eq!(
        has("Ghost", "boo"),
        None,
        "a type only named inside a raw string"
    );
    assert_eq!(
        has("Vec", "with_capacity"),
        None,
        "not the workspace's type"
    );
    assert!(index.fns.contains("diameter") && !index.fns.contains("not_a_function"));
}
