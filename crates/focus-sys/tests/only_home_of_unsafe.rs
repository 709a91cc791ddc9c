//! focus-sys is the only home of `unsafe`: every other crate root forbids it,
//! and no source file elsewhere in the workspace (examples and tests included)
//! opens an `unsafe` block or declares an `unsafe` item.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
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

#[test]
fn unsafe_lives_only_in_focus_sys() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut offenders = Vec::new();
    let mut roots = 0;
    for krate in std::fs::read_dir(&crates).unwrap().flatten() {
        let name = krate.file_name().to_string_lossy().into_owned();
        if name == "focus-sys" || !krate.path().is_dir() {
            continue;
        }
        for root in ["src/lib.rs", "src/main.rs"] {
            let path = krate.path().join(root);
            if let Ok(text) = std::fs::read_to_string(&path) {
                roots += 1;
                if !text.contains("#![forbid(unsafe_code)]") {
                    offenders.push(format!("{name}/{root} does not forbid unsafe_code"));
                }
            }
        }
        let mut files = Vec::new();
        rust_files(&krate.path(), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                let uses_unsafe = ["unsafe {", "unsafe fn", "unsafe impl", "unsafe extern"]
                    .iter()
                    .any(|form| code.contains(form));
                if uses_unsafe {
                    offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        roots >= 6,
        "found only {roots} crate roots under {}",
        crates.display()
    );
    assert!(
        offenders.is_empty(),
        "unsafe outside focus-sys:\n{}",
        offenders.join("\n")
    );
}
