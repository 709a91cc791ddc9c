//! The documents' claims about the crates, checked against the crates, so they
//! cannot drift:
//!
//! - the README's crate map: every crate has a row; "depends on" is the crate's
//!   `[dependencies]`; a type the row names (in backticks, or by a phrase of
//!   [`PHRASES`]) is defined in that crate;
//! - the table of `docs/vendoring.md`: the crates to copy for a row are the first
//!   one and every sibling it needs to build, no more and no fewer, and a type
//!   the cell names is defined in one of them;
//! - "`Type` (focus-x" anywhere in the README, `vendoring.md` and
//!   `ARCHITECTURE.md`: `Type` is defined in focus-x;
//! - the statuses the documents say are retried are exactly the ones
//!   `retryable_status` (focus-providers) retries;
//! - nothing the code has is called missing ("not yet", [`FEATURES`]).
//!
//! A type is "defined in" a crate when one of its `src/` files declares it `pub`
//! (`pub struct`, `pub enum`, `pub trait`, `pub type`, `pub fn`).

use focus_testkit::tree::{rust_files, workspace};
use std::collections::BTreeSet;

/// Phrases a crate map row may say instead of a type's name, and the type they
/// mean: the row that says one must be the crate that defines the type.
const PHRASES: &[(&str, &str)] = &[
    ("test server", "TestServer"),
    ("mock llm", "MockLlm"),
    ("scripted provider", "ScriptedProvider"),
    ("curl transport", "CurlTransport"),
    ("session manager", "SessionManager"),
    ("permission gate", "Gatekeeper"),
];

/// Features a document might call missing, and the file and text in the code that
/// show they are there: `(words, file, evidence)`.
const FEATURES: &[(&[&str], &str, &str)] = &[
    (
        &["resources"],
        "crates/focus-tools/src/mcp/offers.rs",
        "resources/read",
    ),
    (
        &["prompts"],
        "crates/focus-tools/src/mcp/offers.rs",
        "prompts/get",
    ),
];

/// The crates of the workspace (folders of `crates/` with a manifest).
fn crates() -> BTreeSet<String> {
    std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().join("Cargo.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The siblings the `[dependencies]` table of `krate`'s manifest names by path.
fn dependencies(krate: &str) -> BTreeSet<String> {
    let manifest =
        std::fs::read_to_string(workspace().join("crates").join(krate).join("Cargo.toml"))
            .unwrap_or_default();
    let mut section = "";
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]" {
            if let Some(rest) = line.split("path = \"../").nth(1) {
                found.insert(rest.split('"').next().unwrap_or_default().to_string());
            }
        }
    }
    found
}

/// `krate` and every sibling it needs to build, through `[dependencies]`.
fn needs(krate: &str) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    let mut todo = vec![krate.to_string()];
    while let Some(next) = todo.pop() {
        if all.insert(next.clone()) {
            todo.extend(dependencies(&next));
        }
    }
    all
}

/// The crates whose `src/` declares `name` public.
fn defined_in(name: &str) -> BTreeSet<String> {
    let forms: Vec<String> = ["struct", "enum", "trait", "type", "fn"]
        .iter()
        .map(|kind| format!("pub {kind} {name}"))
        .collect();
    let mut found = BTreeSet::new();
    for krate in crates() {
        let files = rust_files(&workspace().join("crates").join(&krate).join("src"));
        let declares = files.iter().any(|file| {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            forms.iter().any(|form| {
                text.match_indices(form.as_str()).any(|(at, _)| {
                    let after = text[at + form.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            })
        });
        if declares {
            found.insert(krate);
        }
    }
    found
}

/// A document of the workspace, by path.
fn document(path: &str) -> String {
    std::fs::read_to_string(workspace().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rows (cells trimmed) of the first Markdown table after the line `heading`.
fn table_after(text: &str, heading: &str) -> Vec<Vec<String>> {
    let mut lines = text
        .lines()
        .skip_while(|line| line.trim() != heading)
        .skip(1);
    let rows: Vec<Vec<String>> = lines
        .by_ref()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.trim()
                .trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect();
    assert!(rows.len() > 2, "no table after {heading:?}");
    // The header and the `|---|` line.
    rows.into_iter().skip(2).collect()
}

/// The backticked spans of `text`.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether `span` looks like a type's name (`TestServer`, not `src/json/`).
fn is_type_name(span: &str) -> bool {
    span.starts_with(|c: char| c.is_ascii_uppercase())
        && span.chars().all(|c| c.is_ascii_alphanumeric())
        && span.chars().any(|c| c.is_ascii_lowercase())
}

/// A crate as the documents shorten it (`core`, `focus-core`) → its folder name.
fn crate_named(short: &str) -> String {
    let short = short.trim().trim_matches('`');
    if short.starts_with("focus-") {
        short.to_string()
    } else {
        format!("focus-{short}")
    }
}

/// The problems with the README's crate map.
fn crate_map_problems(readme: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let all = crates();
    let mut rows = BTreeSet::new();
    for row in table_after(readme, "## Crate map") {
        let [name, holds, depends] = &row[..] else {
            problems.push(format!(
                "README crate map: a row without three cells: {row:?}"
            ));
            continue;
        };
        let krate = crate_named(name);
        if !all.contains(&krate) {
            problems.push(format!("README crate map: {krate} is no crate of crates/"));
            continue;
        }
        rows.insert(krate.clone());
        let claimed: BTreeSet<String> = match depends.as_str() {
            "nothing" => BTreeSet::new(),
            "all but testkit" => all
                .iter()
                .filter(|c| **c != krate && *c != "focus-testkit")
                .cloned()
                .collect(),
            list => list.split(',').map(crate_named).collect(),
        };
        let actual = dependencies(&krate);
        if claimed != actual {
            problems.push(format!(
                "README crate map: {krate} depends on {actual:?}, the row says {claimed:?}"
            ));
        }
        let mut types: Vec<&str> = backticked(holds)
            .into_iter()
            .filter(|span| is_type_name(span))
            .collect();
        let lower = holds.to_lowercase();
        types.extend(
            PHRASES
                .iter()
                .filter(|(phrase, _)| lower.contains(phrase))
                .map(|(_, ty)| *ty),
        );
        for ty in types {
            let homes = defined_in(ty);
            if !homes.contains(&krate) {
                problems.push(format!(
                    "README crate map: the {krate} row holds `{ty}`, which is defined in {homes:?}"
                ));
            }
        }
    }
    for missing in all.difference(&rows) {
        problems.push(format!("README crate map: no row for {missing}"));
    }
    problems
}

/// The problems with the table of docs/vendoring.md.
fn vendoring_problems(vendoring: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for row in table_after(vendoring, "## What stands alone") {
        let [want, copy, _] = &row[..] else {
            problems.push(format!("vendoring.md: a row without three cells: {row:?}"));
            continue;
        };
        let spans = backticked(copy);
        let listed: Vec<String> = spans
            .iter()
            .filter(|span| span.starts_with("focus-"))
            .map(|span| span.to_string())
            .collect();
        let Some(first) = listed.first() else {
            problems.push(format!("vendoring.md: {want:?} names no crate to copy"));
            continue;
        };
        let listed: BTreeSet<String> = listed.iter().cloned().collect();
        let needed = needs(first);
        for missing in needed.difference(&listed) {
            problems.push(format!(
                "vendoring.md: {want:?} copies {first} without {missing}, which it needs"
            ));
        }
        for extra in listed.difference(&needed) {
            problems.push(format!(
                "vendoring.md: {want:?} copies {extra}, which {first} does not need"
            ));
        }
        for ty in spans.iter().filter(|span| is_type_name(span)) {
            let homes = defined_in(ty);
            if homes.is_disjoint(&listed) {
                problems.push(format!(
                    "vendoring.md: {want:?} promises `{ty}`, defined in {homes:?}, not in {listed:?}"
                ));
            }
        }
    }
    problems
}

/// The problems with "`Type` (focus-x" in `text` (the document `name`).
fn placement_problems(name: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let pieces: Vec<&str> = text.split('`').collect();
    for pair in pieces.windows(2).skip(1).step_by(2) {
        let (ty, after) = (pair[0], pair[1]);
        let Some(rest) = after.strip_prefix(" (focus-") else {
            continue;
        };
        if !is_type_name(ty) {
            continue;
        }
        let short: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let krate = format!("focus-{short}");
        let homes = defined_in(ty);
        if !homes.contains(&krate) {
            problems.push(format!(
                "{name}: `{ty}` ({krate}…): it is defined in {homes:?}"
            ));
        }
    }
    problems
}

/// The statuses `retryable_status` (focus-providers) may retry, read from its
/// source: the numbers of its `match` arms (the one `_` arm is "overloaded").
fn retried_statuses() -> BTreeSet<u16> {
    let source = document("crates/focus-providers/src/http.rs");
    let body = source
        .split("fn retryable_status")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("retryable_status exists");
    let arms = body
        .lines()
        .filter_map(|line| line.split_once("=>"))
        .map(|(pattern, _)| pattern)
        .collect::<Vec<_>>()
        .join(" ");
    statuses_in(&arms)
}

/// What a text claims is retried: the statuses it names up to the first
/// "never" or "not" after one (which starts what is not retried).
fn claimed_statuses(text: &str) -> BTreeSet<u16> {
    let mut said = String::new();
    for word in text.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
        let bare = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        let negation = matches!(bare.to_lowercase().as_str(), "never" | "not");
        if negation && !statuses_in(&said).is_empty() {
            break;
        }
        said.push_str(word);
    }
    statuses_in(&said)
}

/// The HTTP statuses a text names: three-digit numbers, and `5xx` for a class.
fn statuses_in(text: &str) -> BTreeSet<u16> {
    let mut found = BTreeSet::new();
    let words = text.split(|c: char| !c.is_ascii_alphanumeric());
    for word in words {
        if word.len() != 3 {
            continue;
        }
        if let Ok(status) = word.parse::<u16>() {
            if (100..600).contains(&status) {
                found.insert(status);
            }
        } else if let Some(class) = word.strip_suffix("xx").and_then(|d| d.parse::<u16>().ok()) {
            found.extend(class * 100..class * 100 + 100);
        }
    }
    found
}

/// `statuses` (sorted) as text, runs written `501-511`.
fn ranges(statuses: &[&u16]) -> String {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for &&status in statuses {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == status => *end = status,
            _ => runs.push((status, status)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|(start, end)| match start == end {
            true => start.to_string(),
            false => format!("{start}-{end}"),
        })
        .collect();
    runs.join(", ")
}

/// The problems with what the documents say is retried.
fn retry_problems() -> Vec<String> {
    let retried = retried_statuses();
    let architecture = document("docs/ARCHITECTURE.md");
    let providers = document("docs/providers.md");
    let claims = [
        (
            "ARCHITECTURE.md (Retries)",
            architecture
                .split("**Retries.**")
                .nth(1)
                .and_then(|rest| rest.split("\n\n").next())
                .unwrap_or_default(),
        ),
        (
            "providers.md (retries)",
            providers
                .lines()
                .find(|line| line.trim_start().starts_with("- retries"))
                .unwrap_or_default(),
        ),
    ];
    let mut problems = Vec::new();
    for (name, text) in claims {
        let said = claimed_statuses(text);
        let wrong: Vec<_> = said.difference(&retried).collect();
        let unsaid: Vec<_> = retried.difference(&said).collect();
        if !wrong.is_empty() {
            problems.push(format!(
                "{name}: says {} are retried; the code does not retry them",
                ranges(&wrong)
            ));
        }
        if !unsaid.is_empty() {
            problems.push(format!(
                "{name}: does not say {} are retried; the code retries them",
                ranges(&unsaid)
            ));
        }
    }
    problems
}

/// The problems with "not yet" said of something the code has.
fn absence_problems() -> Vec<String> {
    let mut problems = Vec::new();
    let mut documents: Vec<_> = std::fs::read_dir(workspace().join("docs"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    documents.push(workspace().join("README.md"));
    for path in documents {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .replace('\n', " ");
        let lower = text.to_lowercase();
        for (at, _) in lower.match_indices("not yet") {
            let sentence = lower[at..].split(". ").next().unwrap_or_default();
            for (words, file, evidence) in FEATURES {
                let has = document(file).contains(evidence);
                if has && words.iter().all(|word| sentence.contains(word)) {
                    problems.push(format!(
                        "{}: says {words:?} are not there yet; {file} has them",
                        path.file_name().unwrap_or_default().to_string_lossy()
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn the_documents_say_what_the_crates_are() {
    let readme = document("README.md");
    let vendoring = document("docs/vendoring.md");
    let architecture = document("docs/ARCHITECTURE.md");
    let mut problems = crate_map_problems(&readme);
    problems.extend(vendoring_problems(&vendoring));
    for (name, text) in [
        ("README.md", &readme),
        ("vendoring.md", &vendoring),
        ("ARCHITECTURE.md", &architecture),
    ] {
        problems.extend(placement_problems(name, text));
    }
    problems.extend(retry_problems());
    problems.extend(absence_problems());
    assert!(
        problems.is_empty(),
        "{} false claim(s) in the documents:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_claim_readers_read_what_they_must() {
    assert_eq!(
        statuses_in("408, 429 and 5xx; not 1234 or x5xx"),
        [408, 429].into_iter().chain(500..600).collect()
    );
    assert!(retried_statuses().contains(&429));
    assert!(!retried_statuses().contains(&501));
    assert_eq!(
        claimed_statuses("never twice: 429 or 503; never 501 or another 4xx"),
        [429, 503].into_iter().collect()
    );
    assert!(defined_in("TestServer").contains("focus-testkit"));
    assert!(
        !defined_in("TestServe").contains("focus-testkit"),
        "whole names only"
    );
    assert!(needs("focus-providers").contains("focus-sys"));
    let table = "## T\n\n| a | b |\n|---|---|\n| `x` | y |\n| z | w |\n\nafter\n";
    assert_eq!(table_after(table, "## T"), [["`x`", "y"], ["z", "w"]]);
    let placed = placement_problems(
        "t",
        "`TestServer` (focus-transport) and `Tool` (focus-core)",
    );
    assert_eq!(placed.len(), 1, "{placed:?}");
}
