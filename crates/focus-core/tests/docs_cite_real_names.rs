//! The teaching documents in `docs/` must name things that exist.
//!
//! Every name written in backticks in `docs/*.md` and `README.md` is checked
//! against the workspace's Rust sources:
//! - `name()` or `Type::name()`: a `fn name` must exist;
//! - `CamelCase`: the identifier must appear as a whole word in the code;
//! - `some_file.rs` or `dir/`-style paths ending in `.rs`: such a file must exist.
//!
//! A renamed function therefore fails this test until the documents follow.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

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
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Identifier-like words of the code, and the names after `fn `.
fn index_sources(files: &[PathBuf]) -> (HashSet<String>, HashSet<String>) {
    let mut words = HashSet::new();
    let mut fns = HashSet::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut previous = "";
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.is_empty() {
                continue;
            }
            if previous == "fn" {
                fns.insert(word.to_string());
            }
            words.insert(word.to_string());
            previous = word;
        }
    }
    (words, fns)
}

#[test]
fn every_cited_name_exists_in_the_code() {
    let root = workspace_root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    assert!(
        files.len() > 20,
        "found only {} Rust files under {}",
        files.len(),
        root.display()
    );
    let (words, fns) = index_sources(&files);
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
            if let Some(call) = span.strip_suffix("()") {
                let last = call.rsplit("::").next().unwrap_or(call);
                let last = last.rsplit('.').next().unwrap_or(last);
                if is_ident(last) {
                    checked += 1;
                    if !fns.contains(last) {
                        missing.push(format!("{name}: `{span}` (no `fn {last}`)"));
                    }
                }
            } else if span.ends_with(".rs") && !span.contains(' ') {
                checked += 1;
                if !file_paths.iter().any(|p| p.ends_with(&format!("/{span}"))) {
                    missing.push(format!("{name}: `{span}` (no such file)"));
                }
            } else if is_ident(span)
                && span.len() > 2
                && span.starts_with(|c: char| c.is_ascii_uppercase())
                && span.chars().any(|c| c.is_ascii_lowercase())
            {
                checked += 1;
                if !words.contains(span) {
                    missing.push(format!("{name}: `{span}` (not in the code)"));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "checked only {checked} names; is docs/ empty?"
    );
    assert!(
        missing.is_empty(),
        "documents cite names the code does not have:\n{}",
        missing.join("\n")
    );
}
