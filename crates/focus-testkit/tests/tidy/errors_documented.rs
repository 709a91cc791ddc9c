//! Every public function of a library crate that returns a `Result` says when it
//! fails: its doc comment has an `# Errors` section (the Rust API guidelines'
//! C-FAILURE).
//!
//! A small scanner, not a parser: in the production part of each `src/` file (up
//! to its first `#[cfg(test)]`), a line starting `pub fn` (or `pub const fn`)
//! begins a signature, which runs to its first `{` or `;`; when what follows its
//! `->` is `Result`, `io::Result` or `std::io::Result`, the `///` lines right
//! above it (attributes between are passed over) must hold `# Errors`.

use focus_testkit::tree::{rust_files, workspace};

/// The library crates: every crate but the binary and the test support.
fn library_crates() -> Vec<String> {
    let mut crates: Vec<String> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().join("src/lib.rs").is_file())
        .filter(|entry| !entry.path().join("src/main.rs").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "focus-testkit")
        .collect();
    crates.sort();
    crates
}

/// The public functions of `code` returning a `Result` whose doc comment has
/// no `# Errors` section: `(line number, name)`.
fn undocumented_errors(code: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed
            .strip_prefix("pub fn ")
            .or_else(|| trimmed.strip_prefix("pub const fn "))
        else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut signature = String::new();
        for next in &lines[at..] {
            signature.push_str(next);
            signature.push(' ');
            if next.contains('{') || next.trim_end().ends_with(';') {
                break;
            }
        }
        let signature = signature.split('{').next().unwrap_or_default();
        let Some((_, returns)) = signature.rsplit_once("->") else {
            continue;
        };
        let returns = returns.trim_start();
        let result = ["Result<", "io::Result<", "std::io::Result<"]
            .iter()
            .any(|form| returns.starts_with(form));
        if !result {
            continue;
        }
        let documented = lines[..at]
            .iter()
            .rev()
            .map(|line| line.trim_start())
            .take_while(|line| line.starts_with("///") || line.starts_with("#["))
            .any(|line| line.starts_with("/// # Errors"));
        if !documented {
            found.push((at + 1, name));
        }
    }
    found
}

#[test]
fn every_public_fallible_function_says_when_it_fails() {
    let mut missing = Vec::new();
    let mut checked_crates = 0;
    for krate in library_crates() {
        checked_crates += 1;
        for file in rust_files(&workspace().join("crates").join(&krate).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let code = text
                .find("#[cfg(test)]")
                .map_or(&text[..], |at| &text[..at]);
            let name = file
                .strip_prefix(workspace())
                .unwrap_or(&file)
                .display()
                .to_string();
            for (line, function) in undocumented_errors(code) {
                missing.push(format!("{name}:{line}: {function}"));
            }
        }
    }
    assert!(
        checked_crates >= 6,
        "found only {checked_crates} library crates"
    );
    assert!(
        missing.is_empty(),
        "{} public function(s) return a Result without an `# Errors` section:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_scanner_finds_what_it_must() {
    let code = "/// Reads.\n///\n/// # Errors\n///\n/// When it cannot.\npub fn good() -> io::Result<()> {\n}\n\
                /// Parses.\n#[must_use]\npub fn bad(\n    text: &str,\n) -> Result<u8, String>\nwhere\n{\n}\n\
                /// Infallible.\npub fn total() -> u8 {\n}\n\
                pub(crate) fn private() -> Result<(), ()> {\n}\n\
                /// Declared.\npub fn declared() -> std::io::Result<()>;\n";
    let found = undocumented_errors(code);
    assert_eq!(
        found,
        [(10, "bad".to_string()), (22, "declared".to_string())]
    );
}
