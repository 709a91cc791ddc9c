//! docs/vendoring.md promises that the JSON codec can be copied out of focus-core
//! as `src/json/` with `src/scan.rs` and `src/shared_text.rs`. This test keeps the
//! promise: those files may name no other part of the crate.

use std::path::{Path, PathBuf};

/// The modules the JSON codec may use besides its own.
const ALLOWED: &[&str] = &["crate::json", "crate::scan", "crate::shared_text"];

fn sources() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: Vec<PathBuf> = std::fs::read_dir(src.join("json"))
        .expect("src/json exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.push(src.join("scan.rs"));
    files.push(src.join("shared_text.rs"));
    files
}

#[test]
fn the_json_codec_uses_only_itself_scan_and_shared_text() {
    let files = sources();
    assert!(files.len() > 5, "found only {files:?}");
    let mut outside = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                let path = &rest[at..];
                if !ALLOWED.iter().any(|allowed| path.starts_with(allowed)) {
                    outside.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
                rest = &rest[at + "crate::".len()..];
            }
        }
    }
    assert!(
        outside.is_empty(),
        "the JSON codec reaches outside json/, scan.rs and shared_text.rs:\n{}",
        outside.join("\n")
    );
}
